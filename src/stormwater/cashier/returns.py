"""A check returned unpaid (issue 17): the payment is reversed as before (``receivables.payment_reverse``: exactly
what it paid is owed again and interest runs as if it had never been paid), and when the town configuration sets
``returned_check_charge`` (MGL c.60 §57A lets the town charge for a dishonoured check) that charge is added.

The charge is posted to the oldest installment the check had paid, as an entry of kind "demand" (a charge added
for collection, revenue with the demand charges in the general ledger) in the installment's *interest* bucket:
so a payment pays it before the fee itself (billing ¶C–¶D order: charges, interest, principal), it earns no
interest, and it neither counts as a demand served nor blocks one (those read the demand bucket)."""
from __future__ import annotations

from datetime import date

from django.db import transaction
from django.utils import timezone

from stormwater.audit.services import actor_or_none as _user, audit_record
from stormwater.receivables.models import Payment, PaymentMethod, PaymentReversal
from stormwater.receivables.services import CollectionError, installment_paid_first, payment_reverse
from stormwater.rules.money import fmt
from stormwater.utility.models import Component, EntryKind, LedgerEntry

RETURNED_CHECK_MEMO = "Returned check charge (MGL c.60 §57A; town configuration returned_check_charge)"


@transaction.atomic
def returned_check_record(*, payment: Payment, reason: str, reversed_on: date | None = None,
                          acting_user) -> PaymentReversal:
    from stormwater.townconfig import town_config

    if payment.method not in (PaymentMethod.CHECK, PaymentMethod.LOCKBOX):
        raise CollectionError(f"Payment {payment.pk} was not a check ({payment.get_method_display()}): reverse it "
                              "without the returned-check charge.")
    reversed_on = reversed_on or timezone.localdate()
    rev = payment_reverse(payment=payment, reason=reason, reversed_on=reversed_on, acting_user=acting_user)
    charge = town_config().returned_check_charge
    entry = None
    if charge > 0:
        inst = installment_paid_first(payment)
        if inst is None:
            raise CollectionError(f"Account {payment.account.number} has no bill to add the returned-check charge to.")
        entry = LedgerEntry.objects.create(account=payment.account, kind=EntryKind.DEMAND, component=Component.INTEREST,
                                           amount=charge, effective_on=reversed_on, bill=inst.bill, installment=inst,
                                           payment=payment, created_by=_user(acting_user), memo=RETURNED_CHECK_MEMO)
    audit_record(actor=acting_user, action="payment.returned_check", obj=payment, why=reason,
                 data={"charge": fmt(charge) if entry else "0.00", "reversed_on": str(reversed_on)})
    return rev
