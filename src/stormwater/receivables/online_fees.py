"""A permit application fee paid online (issue 30), through the one pay-online mechanism of receivables/online.py.

Ch. 380 § 380-10 G(1): "The DPW shall obtain with each submission an application and inspection fee", and no review
begins until the fees are paid; § 380-10 B(1)(e) puts the payment among the items of a completed package. Filing is
refused until the fee is paid (``permits.selectors.filing_readiness``); the fee is recorded at the counter (staff:
"Record payment", ``permits.application.permit_fees_paid``) or, here, paid online:

1. The applicant's filing page, the package otherwise complete → "Pay the fee online and file" → the Town's
   confirmation page (``payviews.fee_pay_confirm``) → ``fee_payment_start``: an ``OnlinePayment`` of the permit
   (not of an account: the model's check constraint) for the fee due → the processor's page, as for a bill
   (``online.handoff_url``: the processor is told the permit file's number as the "account").
2. The processor's signed return (``online.online_payment_return``, once): **paid online, pending settlement**. Not
   money yet, so not paid: the application stays a draft, no clock, no notice; the counter refuses to take the fee.
3. The processor's settlement file, posted by the Collector as for bills (``processor.processor_file_post`` →
   ``lockbox.payment_batch_post``): its row names the permit number and carries the confirmation number. Such a row
   matches no account; ``fee_rows_split`` takes it out of the rows that would wait in suspense and ``fee_rows_settle``
   receipts it with the file — it counts in the file's total, so the daily cash, the deposit and the file's
   reconciliation carry it as they carry the file, and the GL has it on its own revenue line
   (``cashier.gl._permit_fees``, ``TownConfig.gl_permit_fees``) — then records the fee paid with the counter's own act
   (``permit_fees_paid``, receipt "online <confirmation>") and files the application with the filing's own act
   (``permit_file``, on the day the processor paid): the 42-day clock and the notices start there and only there.

Nothing doubles: a fee is paid online only while it is not paid (nor paid online, pending); the counter refuses a fee
paid online; a fee paid online for a permit whose fee was paid by then (at the counter, or by a second online trip)
is held in suspense as a refund due (``SuspenseReason.FEE_ALREADY_PAID``), for the Collector to refund from the
exceptions list; a re-sent return is refused (online.py) and a settlement row already receipted (a cumulative file)
is skipped.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from django.db import transaction
from django.utils import timezone

from stormwater.audit.services import audit_record
from stormwater.rules.money import fmt, fmt_usd

from . import online
from .models import OnlinePayment, SuspenseItem, SuspenseReason

ERR_NOT_DRAFT = "The fee is paid online with the application, before it is filed (§ 380-10 G(1))."
ERR_ALREADY_PAID = "The application fees are paid (receipt {receipt}): nothing is due (§ 380-10 G(1))."
ERR_PENDING = ("The application fees were paid online on {day} (confirmation {confirmation}), pending settlement: "
               "they are not paid twice.")
ERR_NO_SCHEDULE = "No fee schedule is in force: the fee cannot be computed; ask the DPW Stormwater Division."
ERR_MISSING_FIRST = ("Add the missing items first: a fee paid online files the application when the payment reaches "
                     "the Town (§ 380-10 B(1)). Missing: {items}.")
ERR_NO_PROCESSOR = "Paying online is not available: the town has no payment processor."
REFUND_DETAIL = ("permit {number}: its fees were already paid ({receipt}) when this online payment (confirmation "
                 "{confirmation}) settled: refund it (§ 380-10 G(1): the fee is obtained once)")


def _paid_online(app, *, exclude=None):
    qs = OnlinePayment.objects.filter(permit=app, state=OnlinePayment.PAID)
    return qs.exclude(pk=exclude.pk) if exclude is not None else qs


def fee_pending(app) -> OnlinePayment | None:
    """The permit's fee paid online whose settlement has not reached the Town: paid, not receipted with a file and
    not held as a refund due."""
    refunds = SuspenseItem.objects.filter(reason=SuspenseReason.FEE_ALREADY_PAID).values("reference")
    return (_paid_online(app).filter(settled_file__isnull=True).exclude(confirmation__in=refunds)
            .order_by("paid_at", "id").first())


def fees_paid_online(app) -> list[dict]:
    """The permit's fees paid online as the API gives them: amount, confirmation, state (``pending_settlement``,
    ``settled`` with the file that receipted it, or ``refund_due``: the fee was paid by then)."""
    refunds = set(SuspenseItem.objects.filter(reason=SuspenseReason.FEE_ALREADY_PAID, reference__in=_paid_online(app)
                                              .values("confirmation")).values_list("reference", flat=True))
    return [{"amount": fmt(o.amount), "confirmation": o.confirmation, "paid_at": o.paid_at.isoformat(),
             "state": "settled" if o.settled_file_id else "refund_due" if o.confirmation in refunds
             else "pending_settlement", "settled_on": str(o.settled_on) if o.settled_on else None}
            for o in _paid_online(app).order_by("paid_at", "id")]


@dataclass(frozen=True)
class FeeOffer:
    """What the filing page offers: the amount to pay online, or why not (``refusal``)."""

    amount: Decimal | None
    refusal: str | None
    pending: OnlinePayment | None = None


def fee_online_offer(app, on: date | None = None) -> FeeOffer | None:
    """None where paying online is not available at all (no processor: no button)."""
    from stormwater.permits.selectors import filing_readiness
    from stormwater.permits.workflow import Status

    if online.processor() is None:
        return None
    on = on or timezone.localdate()
    pending = fee_pending(app)
    if app.case.status != Status.DRAFT:
        return FeeOffer(None, ERR_NOT_DRAFT, pending)
    ready = filing_readiness(app, on)
    if ready.fee_paid:
        return FeeOffer(None, ERR_ALREADY_PAID.format(receipt=ready.receipt), pending)
    if pending is not None:
        return FeeOffer(None, ERR_PENDING.format(day=timezone.localdate(pending.paid_at),
                                                 confirmation=pending.confirmation), pending)
    if ready.fee_total is None:
        return FeeOffer(None, ERR_NO_SCHEDULE)
    if ready.missing:
        return FeeOffer(ready.fee_total, ERR_MISSING_FIRST.format(items="; ".join(ready.missing)))
    return FeeOffer(ready.fee_total, None)


@transaction.atomic
def fee_payment_start(*, application, acting_user, amount: Decimal | None = None) -> OnlinePayment:
    """The applicant confirmed paying the fee online: the one-time reference of the hand-off (``ValueError`` naming
    why not: see ``fee_online_offer``). ``amount``: the amount the confirmation page showed; a fee that moved since
    is refused, naming the amount due now."""
    from stormwater.permits.models import PermitApplication

    app = PermitApplication.objects.select_for_update().select_related("case").get(pk=application.pk)
    offer = fee_online_offer(app)
    if offer is None:
        raise ValueError(ERR_NO_PROCESSOR)
    if offer.refusal:
        raise ValueError(offer.refusal)
    if amount is not None and amount != offer.amount:
        raise ValueError(f"The fee due is now {fmt_usd(offer.amount)}, not {fmt_usd(amount)}: check it and "
                         "continue again.")
    return online.online_payment_start(permit=app, amount=offer.amount, acting_user=acting_user)


# --- settlement: the processor's file ----------------------------------------------------------------------------

@dataclass(frozen=True)
class FeeRow:
    """A settlement row that is a permit fee paid online: receipted with the file (``refund`` False) or, the fee
    being paid by then, held in suspense as a refund due."""

    line: int
    online: OnlinePayment
    amount: Decimal
    received_on: date
    reference: str
    method: str


def fee_rows_split(held: list, *, lock: bool = True) -> tuple[list[FeeRow], list, list[int]]:
    """(the rows that are permit fees paid online, the rows still to hold, the lines already receipted before).

    A row is a permit fee when it matches no account and its reference is the confirmation number of a permit fee
    paid online, naming that permit's number and amount. ``lock``: the online payments are locked (posting)."""
    candidates = {h.line for h in held if h.reason == SuspenseReason.NO_ACCOUNT and h.reference}
    if not candidates:
        return [], held, []
    qs = (OnlinePayment.objects.filter(permit__isnull=False, state=OnlinePayment.PAID,
                                       confirmation__in=[h.reference for h in held if h.line in candidates])
          .select_related("permit__case").order_by("pk"))
    ops = {o.confirmation.upper(): o for o in (qs.select_for_update(of=("self",)) if lock else qs)}
    fees, rest, before = [], [], []
    for h in held:
        op = ops.get(h.reference.upper()) if h.line in candidates else None
        if op is None or op.amount != h.amount or op.permit.case.number.upper() != h.account_text.upper():
            rest.append(h)
        elif op.settled_file_id is not None:
            before.append(h.line)  # a cumulative file carries the row again: receipted once
        else:
            fees.append(FeeRow(h.line, op, h.amount, h.received_on, h.reference, h.method))
    return fees, rest, before


def fee_refunds_due(fees: list[FeeRow], held_row) -> tuple[list[FeeRow], list]:
    """(the fees to receipt, the rows to hold as a refund due): a fee whose permit's fees are paid by now (at the
    counter, or by another online payment already receipted, or by an earlier row of the same file)."""
    from stormwater.permits.models import PermitApplication

    # the permits' rows locked (id order), as the counter's act locks its permit: a fee recorded at the counter at
    # the same moment is seen here, and this fee becomes a refund due rather than a second receipt
    locked = {a.pk: a for a in PermitApplication.objects.select_for_update().select_related("case")
              .filter(pk__in=sorted({f.online.permit_id for f in fees})).order_by("pk")} if fees else {}
    out, refunds, seen = [], [], set()
    for f in fees:
        app = locked[f.online.permit_id]
        paid = app.fees_paid_on is not None or _paid_online(app, exclude=f.online).filter(
            settled_file__isnull=False).exists() or app.pk in seen
        if paid:
            receipt = app.fees_receipt or "paid online"
            refunds.append(held_row(f.line, app.case.number[:80], f.amount, f.received_on, f.reference, f.method,
                                    SuspenseReason.FEE_ALREADY_PAID,
                                    REFUND_DETAIL.format(number=app.case.number, receipt=receipt,
                                                         confirmation=f.online.confirmation)[:300]))
        else:
            seen.add(app.pk)
            out.append(f)
    return out, refunds


def fee_rows_settle(batch, fees: list[FeeRow], acting_user) -> None:
    """Receipt each fee with ``batch`` (the processor's file) and let the filing proceed: the fee recorded paid with
    the counter's act, then the application filed with the filing's act on the day the processor paid."""
    from stormwater.permits.services import permit_fee_received_online

    for f in fees:
        op = f.online
        OnlinePayment.objects.filter(pk=op.pk, settled_file__isnull=True).update(settled_file=batch,
                                                                                 settled_on=f.received_on)
        op.refresh_from_db()
        audit_record(actor=acting_user, action="online_payment.settled", obj=op,
                     data={"permit": op.permit.case.number, "amount": fmt(op.amount), "file": batch.pk,
                           "confirmation": op.confirmation, "received_on": str(f.received_on)})
        permit_fee_received_online(application=op.permit, online_payment=op, paid_on=f.received_on,
                                   acting_user=acting_user)
