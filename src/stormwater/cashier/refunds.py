"""Refund vouchers (issue 17): a credit balance paid back to the owner, requested by one person and approved by
another (two people for money leaving the Town; an abatement's refund is posted by receivables.abatement_post).

On approval a REFUND entry moves the amount out of the account's unapplied credit (component "unapplied"), so
the credit balance and every report read the refund at once; the ledger stays append-only."""
from __future__ import annotations

from decimal import Decimal

from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from stormwater.audit.services import actor_or_none as _user, audit_record
from stormwater.receivables.ledger import unapplied_credit
from stormwater.receivables.services import CollectionError, _check_open, _lock
from stormwater.rules.money import ZERO, fmt, round_cents, to_decimal
from stormwater.utility.models import Account, Component, EntryKind, LedgerEntry

from .models import RefundState, RefundVoucher


def refundable(account: Account) -> Decimal:
    """The credit balance today less what vouchers waiting for approval already ask for."""
    pending = (RefundVoucher.objects.filter(account=account, state=RefundState.REQUESTED)
               .aggregate(s=Sum("amount"))["s"] or ZERO)
    return unapplied_credit(account, as_of=timezone.localdate()) - pending


@transaction.atomic
def refund_request(*, account: Account, amount, payee: str, reason: str, payee_address: str = "",
                   acting_user) -> RefundVoucher:
    account = _lock(account)
    amount = round_cents(to_decimal(amount))
    if amount <= 0:
        raise CollectionError("amount: must be greater than zero")
    if not (reason or "").strip() or not (payee or "").strip():
        raise CollectionError("payee and reason: required")
    can = refundable(account)
    if amount > can:
        raise CollectionError(f"amount: ${fmt(amount)} is more than the credit balance available to refund "
                              f"(${fmt(max(can, ZERO))}).")
    v = RefundVoucher.objects.create(account=account, amount=amount, payee=payee.strip()[:200],
                                     payee_address=(payee_address or "").strip(), reason=reason.strip(),
                                     requested_on=timezone.localdate(), requested_by=_user(acting_user))
    audit_record(actor=acting_user, action="refund.request", obj=v,
                 data={"account": account.number, "amount": fmt(amount), "payee": v.payee}, why=v.reason)
    return v


def _decidable(voucher: RefundVoucher, acting_user) -> RefundVoucher:
    voucher = RefundVoucher.objects.select_for_update().get(pk=voucher.pk)
    if voucher.state != RefundState.REQUESTED:
        raise CollectionError(f"Voucher {voucher.number} is already {voucher.get_state_display().lower()}.")
    if acting_user is None or voucher.requested_by_id == getattr(acting_user, "pk", None):
        raise CollectionError(f"Voucher {voucher.number} must be approved or rejected by a second person, not the "
                              "one who requested it.")
    return voucher


@transaction.atomic
def refund_approve(*, voucher: RefundVoucher, acting_user, note: str = "") -> RefundVoucher:
    account = _lock(voucher.account)
    voucher = _decidable(voucher, acting_user)
    today = timezone.localdate()
    _check_open(today, "approved_on")
    credit = unapplied_credit(account, as_of=today)
    if voucher.amount > credit:
        raise CollectionError(f"The credit balance is now ${fmt(credit)}: less than the voucher's "
                              f"${fmt(voucher.amount)} (applied to a bill since?). Reject it and request again.")
    voucher.entry = LedgerEntry.objects.create(
        account=account, kind=EntryKind.REFUND, component=Component.UNAPPLIED, amount=voucher.amount,
        effective_on=today, created_by=_user(acting_user), memo=f"Refund voucher {voucher.number} to {voucher.payee}")
    voucher.state, voucher.decided_at, voucher.decided_by = RefundState.APPROVED, timezone.now(), acting_user
    voucher.decision_note = (note or "").strip()
    voucher.save()
    audit_record(actor=acting_user, action="refund.approve", obj=voucher,
                 data={"account": account.number, "amount": fmt(voucher.amount)}, why=voucher.decision_note)
    return voucher


@transaction.atomic
def refund_reject(*, voucher: RefundVoucher, acting_user, note: str = "") -> RefundVoucher:
    voucher = _decidable(voucher, acting_user)
    if not (note or "").strip():
        raise CollectionError("note: say why the refund is rejected")
    voucher.state, voucher.decided_at, voucher.decided_by = RefundState.REJECTED, timezone.now(), acting_user
    voucher.decision_note = note.strip()
    voucher.save()
    audit_record(actor=acting_user, action="refund.reject", obj=voucher, why=voucher.decision_note)
    return voucher
