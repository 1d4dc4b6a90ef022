"""The cashier's window (issue 17 "Cash receipting"): receipts, cashier's batches, deposits.

Every payment is posted by ``receivables.services.payment_post`` (Ch. 295 Art. IV billing ¶C–¶D: interest
brought to the day, oldest installment first, demand → interest → principal, an overpayment kept as a credit
balance); these services add what the office needs around it. Each is one ``transaction.atomic`` and writes
one audit row of its own.
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal

from django.db import IntegrityError, transaction
from django.db.models import Sum
from django.utils import timezone

from stormwater.audit.services import actor_or_none as _user, audit_record
from stormwater.receivables.ledger import account_position
from stormwater.receivables.models import PaymentBatch
from stormwater.receivables.selectors import AT_ENTRY
from stormwater.receivables.services import CollectionError, DuplicateSuspected, _lock, payment_post  # noqa: F401
from stormwater.rules.money import ZERO, fmt, fmt_display, round_cents, to_decimal
from stormwater.utility.models import Account

from .models import BatchState, CashBatch, Deposit, DepositFile, Receipt, Tender


def _open_batch(cashier, day: date) -> CashBatch:
    """The cashier's open batch (locked), opened on ``day`` if there is none."""
    batch = CashBatch.objects.select_for_update().filter(cashier=cashier, state=BatchState.OPEN).first()
    if batch is not None:
        return batch
    try:
        with transaction.atomic():
            batch = CashBatch.objects.create(cashier=cashier, opened_on=day)
    except IntegrityError:  # opened at the same moment by the cashier's other window
        batch = CashBatch.objects.get(cashier=cashier, state=BatchState.OPEN)
    audit_record(actor=cashier, action="cash_batch.open", obj=batch, data={"opened_on": str(day)})
    return CashBatch.objects.select_for_update().get(pk=batch.pk)


@transaction.atomic
def receipt_post(*, account: Account, amount, tender: str, received_on: date | None = None, reference: str = "",
                 payer: str = "", confirm_duplicate: bool = False, acting_user) -> Receipt:
    """Take a payment at the window: posted to the account, put in the cashier's open batch, numbered.

    A payment matching an earlier one (``receivables.selectors.AT_ENTRY``: account, amount and the same check/
    reference number any day, or without one the same day) is refused with ``DuplicateSuspected`` unless
    ``confirm_duplicate`` says the cashier was asked and it is a second payment."""
    if acting_user is None or not getattr(acting_user, "pk", None):
        raise CollectionError("A receipt is issued by a signed-in cashier.")
    if tender not in Tender.values:
        raise CollectionError(f"tender: one of {', '.join(Tender.values)}")
    amount = round_cents(to_decimal(amount))
    reference = (reference or "").strip()
    if tender == Tender.CHECK and not reference:
        raise CollectionError("reference: the check number is required for a check")
    received_on = received_on or timezone.localdate()
    # The account's row lock first (as payment_post takes it): two windows posting the same check at once are
    # serialized, so the second sees the first as a duplicate (payment_post asks under this lock; the whole
    # receipt, its batch included, is rolled back), and the balances printed are the account's own.
    account = _lock(account)
    batch = _open_batch(acting_user, timezone.localdate())
    before = account_position(account, as_of=received_on).total
    payment = payment_post(account=account, amount=amount, received_on=received_on, method=tender,
                           reference=reference, acting_user=acting_user, confirm_duplicate=confirm_duplicate,
                           duplicates=AT_ENTRY)
    after = account_position(account, as_of=received_on).total
    receipt = Receipt.objects.create(payment=payment, batch=batch, tender=tender, balance_before=before,
                                     balance_after=after, payer=(payer or "").strip()[:200])
    audit_record(actor=acting_user, action="receipt.issue", obj=receipt,
                 data={"number": receipt.number, "payment": payment.pk, "batch": batch.number,
                       "account": account.number, "amount": fmt(amount), "tender": tender,
                       "duplicate_confirmed": bool(confirm_duplicate)})
    return receipt


@transaction.atomic
def receipt_email(*, receipt: Receipt, to: str, acting_user):
    """E-mail the receipt's PDF through the notices outbox (sent after commit, exactly once)."""
    from django.core.exceptions import ValidationError
    from django.core.validators import validate_email

    from stormwater.notices.services import notice_email

    from .documents import receipt_pdf

    to = (to or "").strip()
    try:
        validate_email(to)
    except ValidationError:
        raise CollectionError(f"to: {to!r} is not an e-mail address") from None
    rec = notice_email(
        to=to, subject=f"{receipt_town()} — receipt {receipt.number}", kind="receipt", obj=receipt,
        body=(f"Your payment of ${fmt_display(receipt.payment.amount)} to stormwater account "
              f"{receipt.payment.account.number} was received on {receipt.payment.received_on:%B %-d, %Y}. "
              f"The receipt is attached.\n"),
        attachment=(f"receipt-{receipt.number}.pdf", receipt_pdf(receipt), "application/pdf"))
    audit_record(actor=acting_user, action="receipt.email", obj=receipt, data={"to": to})
    return rec


def receipt_town() -> str:
    from stormwater.townconfig import town_config

    return town_config().name


def batch_expected(batch: CashBatch) -> dict[str, Decimal]:
    """What the batch's receipts say the drawer holds, by tender (payments reversed before the close — a
    mistake voided at the window — are not in the drawer), fees receipted at the window included (issue 25)."""
    sums = {t: ZERO for t in Tender.values}
    for row in (batch.receipts.filter(payment__reversal__isnull=True).values("tender")
                .annotate(s=Sum("payment__amount"))):
        sums[row["tender"]] = round_cents(row["s"] or ZERO)
    for row in batch.fee_receipts.values("tender").annotate(s=Sum("amount")).order_by():
        sums[row["tender"]] += round_cents(row["s"] or ZERO)
    return sums


@transaction.atomic
def lien_fee_receipt(*, cert, tender: str, reference: str = "", payer: str = "", acting_user):
    """Take the municipal lien certificate fee (MGL c.60 §23; ``TownConfig.lien_certificate_fee`` as fixed on the
    request) at the window: a numbered fee receipt in the cashier's open batch, recorded as the certificate's fee
    reference (issue 25: the fee used to be a typed reference only, in no batch, deposit or ledger)."""
    from .models import FeeKind, FeeReceipt, LienCertificate

    if acting_user is None or not getattr(acting_user, "pk", None):
        raise CollectionError("A fee is receipted by a signed-in cashier.")
    if tender not in Tender.values:
        raise CollectionError(f"tender: one of {', '.join(Tender.values)}")
    reference = (reference or "").strip()[:80]
    if tender == Tender.CHECK and not reference:
        raise CollectionError("reference: the check number is required for a check")
    cert = LienCertificate.objects.select_for_update().get(pk=cert.pk)
    if cert.fee <= 0:
        raise CollectionError(f"Certificate {cert.number} has no fee to take.")
    if FeeReceipt.objects.filter(certificate=cert).exists() or cert.fee_reference:
        raise CollectionError(f"The fee of certificate {cert.number} is already paid ({cert.fee_reference}).")
    batch = _open_batch(acting_user, timezone.localdate())
    fee = FeeReceipt.objects.create(kind=FeeKind.LIEN_CERTIFICATE, certificate=cert, batch=batch, tender=tender,
                                    amount=cert.fee, reference=reference, payer=(payer or "").strip()[:200],
                                    issued_by=acting_user)
    cert.fee_reference = fee.number
    cert.save(update_fields=["fee_reference"])
    audit_record(actor=acting_user, action="fee_receipt.issue", obj=fee,
                 data={"number": fee.number, "certificate": cert.number, "batch": batch.number,
                       "amount": fmt(fee.amount), "tender": tender, "reference": reference})
    return fee


ERR_OVER_SHORT_REASON = ("over_short_reason: the count is {what} ${amount}: say why (the difference is recorded and "
                         "a second person approves it)")
ERR_SECOND_PERSON = "A second person approves the over/short: not the cashier who closed the batch."
ERR_APPROVER_ROLE = "The over/short is approved by a user with the Collector/Treasurer role."


@transaction.atomic
def cash_batch_close(*, batch: CashBatch, counted: dict, reason: str = "", acting_user) -> CashBatch:
    """Close a batch with the totals the cashier counted by tender; the difference from the receipts (over or
    short) is recorded, never adjusted away. A difference needs the cashier's reason (issue 25) and then a second
    person's approval (``cash_batch_over_short_approve``) before the batch is deposited."""
    batch = CashBatch.objects.select_for_update().get(pk=batch.pk)
    if batch.state != BatchState.OPEN:
        raise CollectionError(f"Batch {batch.number} is already closed.")
    unknown = sorted(set(counted) - set(Tender.values))
    if unknown:
        raise CollectionError(f"counted: unknown tender(s) {', '.join(unknown)}")
    amounts = {}
    for t in Tender.values:
        v = round_cents(to_decimal(counted.get(t) or "0", field=f"counted.{t}"))
        if v < 0:
            raise CollectionError(f"counted.{t}: cannot be negative")
        amounts[t] = v
    expected = batch_expected(batch)
    difference = sum(amounts.values(), ZERO) - sum(expected.values(), ZERO)
    reason = (reason or "").strip()
    if difference and not reason:
        raise CollectionError(ERR_OVER_SHORT_REASON.format(what="over" if difference > 0 else "short",
                                                           amount=fmt_display(abs(difference))))
    batch.over_short_reason = reason if difference else ""
    batch.counted = {t: fmt(v) for t, v in amounts.items()}
    batch.expected = {t: fmt(v) for t, v in expected.items()}
    batch.counted_total = sum(amounts.values(), ZERO)
    batch.expected_total = sum(expected.values(), ZERO)
    batch.state, batch.closed_at, batch.closed_by = BatchState.CLOSED, timezone.now(), _user(acting_user)
    batch.save()
    audit_record(actor=acting_user, action="cash_batch.close", obj=batch,
                 data={"counted": batch.counted, "expected": batch.expected,
                       "over_short": fmt(batch.counted_total - batch.expected_total),
                       "reason": batch.over_short_reason})
    return batch


@transaction.atomic
def cash_batch_over_short_approve(*, batch: CashBatch, note: str = "", acting_user) -> CashBatch:
    """A second person approves a batch's over/short (issue 25; the same two-person rule as refund vouchers):
    another user than the cashier and the one who closed it, with the Collector/Treasurer role."""
    from stormwater.roles import Role

    batch = CashBatch.objects.select_for_update().get(pk=batch.pk)
    if batch.state == BatchState.OPEN:
        raise CollectionError(f"Batch {batch.number} is still open: close it with the count first.")
    if not batch.over_short:
        raise CollectionError(f"Batch {batch.number} balanced: there is no over/short to approve.")
    if batch.over_short_approved_by_id:
        raise CollectionError(f"The over/short of batch {batch.number} is already approved.")
    user = _user(acting_user)
    if user is None or user.pk in (batch.cashier_id, batch.closed_by_id):
        raise CollectionError(ERR_SECOND_PERSON)
    if getattr(user, "role", None) != Role.COLLECTOR:
        raise CollectionError(ERR_APPROVER_ROLE)
    batch.over_short_approved_by, batch.over_short_approved_at = user, timezone.now()
    batch.over_short_note = (note or "").strip()[:500]
    batch.save(update_fields=["over_short_approved_by", "over_short_approved_at", "over_short_note"])
    audit_record(actor=acting_user, action="cash_batch.over_short_approve", obj=batch,
                 data={"over_short": fmt(batch.over_short), "reason": batch.over_short_reason,
                       "note": batch.over_short_note})
    return batch


@transaction.atomic
def deposit_create(*, deposited_on: date, bank_amount, bank_reference: str = "", batches=(), files=(),
                   acting_user) -> Deposit:
    """Record a bank deposit carrying closed cashier's batches and posted lockbox/processor files. What the
    deposit should be (batches as counted + files as posted) against what the bank credited is its
    reconciliation (``selectors.deposit_reconciliation``)."""
    bank_amount = round_cents(to_decimal(bank_amount, field="bank_amount"))
    if bank_amount < 0:
        raise CollectionError("bank_amount: cannot be negative")
    if deposited_on > timezone.localdate():
        raise CollectionError(f"deposited_on: {deposited_on} is in the future")
    batches = list(CashBatch.objects.select_for_update().filter(pk__in=[b.pk for b in batches]))
    files = list(PaymentBatch.objects.filter(pk__in=[f.pk for f in files]))
    if not batches and not files:
        raise CollectionError("Choose at least one closed batch or posted file for the deposit.")
    for b in batches:
        if b.state != BatchState.CLOSED:
            raise CollectionError(f"Batch {b.number} is {b.get_state_display().lower()}: only a closed batch "
                                  "is deposited.")
        if b.over_short_waiting:
            raise CollectionError(f"Batch {b.number} is {'over' if b.over_short > 0 else 'short'} "
                                  f"${fmt_display(abs(b.over_short))}: a second person approves it before it is "
                                  "deposited.")
    taken = DepositFile.objects.filter(file__in=files).select_related("file").first()
    if taken:
        raise CollectionError(f"File {taken.file.filename} is already in deposit D-{taken.deposit_id:06d}.")
    dep = Deposit.objects.create(deposited_on=deposited_on, bank_amount=bank_amount,
                                 bank_reference=(bank_reference or "").strip()[:80], created_by=_user(acting_user))
    CashBatch.objects.filter(pk__in=[b.pk for b in batches]).update(deposit=dep, state=BatchState.DEPOSITED)
    DepositFile.objects.bulk_create([DepositFile(deposit=dep, file=f) for f in files])
    from stormwater.receivables.suspense import received_totals

    held = received_totals(f.pk for f in files)  # rows held in suspense reached the bank with their file (issue 25)
    expected = (sum((b.counted_total for b in batches), ZERO)
                + sum((f.total + held.get(f.pk, ZERO) for f in files), ZERO))
    audit_record(actor=acting_user, action="deposit.create", obj=dep,
                 data={"bank_amount": fmt(bank_amount), "expected": fmt(expected),
                       "difference": fmt(bank_amount - expected), "batches": [b.number for b in batches],
                       "files": [f.filename for f in files]})
    return dep
