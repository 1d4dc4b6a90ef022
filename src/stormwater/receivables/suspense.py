"""The lockbox suspense queue (issue 25): a row of a lockbox or processor file that cannot post — it matches no
account, or repeats a reference already on its account with another amount — waits here instead of refusing the
whole file (``lockbox._parse_batch`` holds it; ``models.SuspenseItem``). The Collector then

- **matches** it to an account: the payment is posted by ``services.payment_post`` (Ch. 295 Art. IV billing ¶C–¶D:
  interest to the day received, oldest installment first, demand → interest → principal), with the file and its
  line, on the day the bank received it (or, when the books are closed through that day, the first open day);
- **returns** it to the payer (the check sent back), or
- **refunds** it (the Town pays it back to a named payee).

Each act is one transaction on the item's locked row, with an audit row; an item leaves "waiting" once, so nothing
is posted twice; nothing is deleted, so nothing is lost. The file's totals reconcile at every moment:
file total = posted + in suspense + returned + refunded (``file_reconciliation``, shown on the file's page).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal

from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from stormwater.audit.services import actor_or_none as _user, audit_record
from stormwater.rules.money import ZERO, fmt, round_cents
from stormwater.utility.models import Account

from .base import CollectionError
from .models import Payment, PaymentBatch, SuspenseItem, SuspenseState
from .selectors import closed_through

ERR_NOT_WAITING = "Suspense item {n} is no longer waiting: it was {state} ({when})."


@dataclass(frozen=True)
class FileReconciliation:
    file_total: Decimal   # every row the file carried that was not already posted: what the bank received with it
    posted: Decimal       # payments posted with the file (at import, and suspense rows matched since)
    in_suspense: Decimal  # rows still waiting
    returned: Decimal
    refunded: Decimal
    matched: Decimal      # the part of ``posted`` that waited in suspense first
    permit_fees: Decimal = ZERO  # permit fees paid online receipted with the file (issue 30, online_fees.py)

    @property
    def balanced(self) -> bool:
        return self.file_total == self.posted + self.permit_fees + self.in_suspense + self.returned + self.refunded


def file_reconciliation(batch: PaymentBatch) -> FileReconciliation:
    """The file's totals (two queries): its total as posted at import plus every row held, against the payments
    posted with it and the held rows by state."""
    by_state = {s: ZERO for s in SuspenseState.values}
    for r in SuspenseItem.objects.filter(file=batch).values("state").annotate(s=Sum("amount")).order_by():
        by_state[r["state"]] = round_cents(r["s"] or ZERO)
    posted = round_cents(Payment.objects.filter(batch=batch).aggregate(s=Sum("amount"))["s"] or ZERO)
    fees = round_cents(batch.settled_fees.aggregate(s=Sum("amount"))["s"] or ZERO)
    return FileReconciliation(file_total=batch.total + sum(by_state.values(), ZERO), posted=posted, permit_fees=fees,
                              in_suspense=by_state[SuspenseState.WAITING], returned=by_state[SuspenseState.RETURNED],
                              refunded=by_state[SuspenseState.REFUNDED], matched=by_state[SuspenseState.MATCHED])


def received_totals(file_ids) -> dict[int, Decimal]:
    """{file id: the rows held in suspense, whatever became of them} — what a file brought beyond its posted total
    (the bank deposited it all). One query."""
    return {r["file"]: round_cents(r["s"] or ZERO) for r in SuspenseItem.objects.filter(file__in=list(file_ids))
            .values("file").annotate(s=Sum("amount")).order_by()}


def _waiting(item: SuspenseItem) -> SuspenseItem:
    item = SuspenseItem.objects.select_for_update().get(pk=item.pk)
    if item.state != SuspenseState.WAITING:
        raise CollectionError(ERR_NOT_WAITING.format(n=item.number, state=item.get_state_display().lower(),
                                                     when=timezone.localtime(item.resolved_at).strftime("%Y-%m-%d")
                                                     if item.resolved_at else "earlier"))
    return item


def _close(item: SuspenseItem, state: str, note: str, acting_user, **fields) -> None:
    item.state, item.note = state, (note or "").strip()
    item.resolved_at, item.resolved_by = timezone.now(), _user(acting_user)
    for k, v in fields.items():
        setattr(item, k, v)
    item.save()


@transaction.atomic
def suspense_match(*, item: SuspenseItem, account: Account, note: str = "", acting_user) -> Payment:
    """Post a held row to the account the Collector found for it (with its file and line)."""
    from .services import payment_post

    item = _waiting(item)
    if account is None:
        raise CollectionError("account: choose the account the payment belongs to")
    day = item.received_on
    through = closed_through()
    if through and day <= through:  # the books are closed: the first open day (said in the audit row)
        day = min(through + timedelta(days=1), date.today())
    payment = payment_post(account=account, amount=item.amount, received_on=day, method=item.method,
                           reference=item.reference, batch=item.file, batch_line=item.line, confirm_duplicate=True,
                           acting_user=acting_user)
    _close(item, SuspenseState.MATCHED, note, acting_user, payment=payment)
    audit_record(actor=acting_user, action="suspense.match", obj=item,
                 data={"file": item.file.filename, "line": item.line, "amount": fmt(item.amount),
                       "account": account.number, "payment": payment.pk, "received_on": str(day),
                       "note": item.note})
    return payment


@transaction.atomic
def suspense_return(*, item: SuspenseItem, note: str, acting_user) -> SuspenseItem:
    """The held row's check is sent back to the payer (a reason is required)."""
    item = _waiting(item)
    if not (note or "").strip():
        raise CollectionError("note: say why and how it is returned (e.g. check sent back to the payer)")
    _close(item, SuspenseState.RETURNED, note, acting_user)
    audit_record(actor=acting_user, action="suspense.return", obj=item,
                 data={"file": item.file.filename, "line": item.line, "amount": fmt(item.amount), "note": item.note})
    return item


@transaction.atomic
def suspense_refund(*, item: SuspenseItem, payee: str, note: str, acting_user) -> SuspenseItem:
    """The held row's amount is paid back by the Town to ``payee`` (a reason is required)."""
    item = _waiting(item)
    if not (payee or "").strip():
        raise CollectionError("payee: name who the refund is paid to")
    if not (note or "").strip():
        raise CollectionError("note: say why it is refunded")
    _close(item, SuspenseState.REFUNDED, note, acting_user, payee=payee.strip()[:200])
    audit_record(actor=acting_user, action="suspense.refund", obj=item,
                 data={"file": item.file.filename, "line": item.line, "amount": fmt(item.amount),
                       "payee": item.payee, "note": item.note})
    return item
