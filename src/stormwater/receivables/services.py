"""Collections services (Ch. 295 Art. IV, billing and collection ¶A–¶D). Each is atomic, locks the
account it changes (two clerks, one account: nothing lost or doubled), and writes an audit row."""
from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

from django.db import transaction

from stormwater.audit.services import actor_or_none as _user, audit_record
from stormwater.rules.calendar import add_calendar_days, add_months
from stormwater.rules.interest import interest_start
from stormwater.rules.money import ZERO, fmt, fmt_display, fmt_ratio, round_cents, to_decimal
from stormwater.utility.models import (DEAD_STATES, Account, Bill, BillRun, Component, EntryKind, Installment,
                                       LedgerEntry)
from stormwater.utility.posting import ALLOCATION_ORDER, credit_apply  # noqa: F401 (named here: lockbox, callers)
from stormwater.utility.posting import account_lock as _lock, allocate as _allocate
from stormwater.utility.selectors import resolution_in_force

from .base import (DEMAND_TO_COMMITMENT_DAYS, ERR_AMOUNT, ERR_BEFORE_BOOKS, ERR_CLOSED, ERR_FUTURE, ERR_IMPLAUSIBLE,  # noqa: F401
                   ERR_TOO_LARGE, ERR_UNKNOWN_ACCOUNT, MONEY_COLUMN_MAX, CollectionError, payment_amount_check)
from .ledger import account_position
from .models import (Commitment, CommitmentLine, Demand, Payment, PaymentBatch, PaymentMethod, PaymentReversal,
                     PeriodClose)
from .selectors import closed_through

ERR_ALREADY_REVERSED = "This payment was already reversed on {day}."
ERR_BACK_BILL_LONG = ("A back bill may cover at most one year of charges (Ch. 295 Art. IV billing ¶A); "
                      "{start} – {end} is {days} days.")
ERR_BACK_BILL_OVERLAP = "Parcel {pid} is already billed for part of {start} – {end} (bill {bill})."
ERR_BACK_BILL_AGAIN = ("Parcel {pid} was already back billed on {day}: back billing is limited to one year of "
                       "charges (Ch. 295 Art. IV billing ¶A).")

class DuplicateSuspected(CollectionError):
    """A payment like one posted before (``selectors.payment_duplicates`` under the caller's rule): it is posted
    only when the person who was shown the earlier payment confirms it is a second one (issue 16 "confirm",
    issue 17 "a payment matching an earlier one asks before posting")."""

    def __init__(self, matches: list[Payment]):
        self.matches = matches
        first = matches[0]
        super().__init__(
            f"This looks like payment {first.pk} (${fmt_display(first.amount)} received {first.received_on}"
            + (f", reference {first.reference}" if first.reference else "")
            + f") already posted to {first.account.number}. Post it again only if it really is a second payment.")

    def json_detail(self) -> dict:
        return {"duplicate_of": [{"payment": p.pk, "amount": fmt(p.amount), "received_on": str(p.received_on),
                                  "reference": p.reference} for p in self.matches]}


def _check_open(day: date, field: str) -> None:
    through = closed_through()
    if through and day <= through:
        raise CollectionError(ERR_CLOSED.format(field=field, day=day, through=through))


def _check_books_open(day: date, field: str) -> None:
    """Nothing received before the books open (``selectors.books_open_from``, issue 26)."""
    from .selectors import books_open_from, books_open_refusal

    refusal = books_open_refusal(day, field, books_open_from())
    if refusal:
        raise CollectionError(refusal)


def _materialize_interest(account: Account, on: date, user) -> None:
    """Post, as of ``on``, the interest each installment has earned and not yet had posted."""
    for d in account_position(account, as_of=on).dues:
        if d.interest_accrued > 0:
            LedgerEntry.objects.create(account=account, kind=EntryKind.INTEREST, component=Component.INTEREST,
                                       amount=d.interest_accrued, effective_on=on, bill=d.installment.bill,
                                       installment=d.installment, created_by=_user(user),
                                       memo=f"Interest through {on} (Ch. 295 Art. IV billing ¶C)")


@transaction.atomic
def payment_post(*, account: Account, amount: Decimal, received_on: date, method: str = PaymentMethod.CHECK,
                 reference: str = "", acting_user, batch: PaymentBatch | None = None,
                 batch_line: int | None = None, confirm_duplicate: bool = False, duplicates=None) -> Payment:
    """Post a payment: interest brought up to date, then oldest installment first, demand charges →
    interest → principal; any overpayment stays as an unapplied credit balance.

    A payment like one already posted (``selectors.payment_duplicates`` under ``duplicates``, a
    ``selectors.DuplicateRule``; default ``BY_REFERENCE``: the same account, amount, reference and day) raises
    ``DuplicateSuspected`` unless the person who was shown the earlier one confirms it is a second payment
    (``confirm_duplicate``; the payment form, the API and the cashier pass ``AT_ENTRY`` and ask first, issue 16–17).
    The check is made under the account's lock: two windows posting the same check at once post it once."""
    from .selectors import BY_REFERENCE, payment_duplicates

    amount = round_cents(to_decimal(amount, field="amount"))
    payment_amount_check(amount)
    if received_on > date.today():
        raise CollectionError(ERR_FUTURE.format(day=received_on))
    _check_open(received_on, "received_on")
    _check_books_open(received_on, "received_on")
    account = _lock(account)
    reference = (reference or "").strip()
    if not confirm_duplicate:
        prior = list(payment_duplicates(account=account, amount=amount, received_on=received_on, reference=reference,
                                        rule=duplicates or BY_REFERENCE))
        if prior:
            raise DuplicateSuspected(prior)
    _materialize_interest(account, received_on, acting_user)
    payment = Payment.objects.create(account=account, amount=amount, received_on=received_on, method=method,
                                     reference=reference, batch=batch, batch_line=batch_line,
                                     created_by=_user(acting_user))
    memo = f"Payment {payment.pk}" + (f" ref {reference}" if reference else "")
    left = _allocate(account, amount, received_on, kind=EntryKind.PAYMENT, user=acting_user, payment=payment,
                     memo=memo)
    if left > 0:
        LedgerEntry.objects.create(account=account, kind=EntryKind.PAYMENT, component=Component.UNAPPLIED,
                                   amount=-left, effective_on=received_on, payment=payment,
                                   created_by=_user(acting_user), memo=memo + " (overpayment: credit balance)")
    audit_record(actor=acting_user, action="payment.post", obj=payment,
                 data={"account": account.number, "amount": fmt(amount), "received_on": str(received_on),
                       "unapplied": fmt(left)})
    return payment


@transaction.atomic
def payment_reverse(*, payment: Payment, reason: str, reversed_on: date | None = None, acting_user) -> PaymentReversal:
    """Undo a bounced or mistaken payment: one reversing entry per entry it made, so exactly what it paid
    is owed again (and interest runs as if it had never been paid)."""
    reversed_on = reversed_on or date.today()
    if not (reason or "").strip():
        raise CollectionError("reason: required")
    _lock(payment.account)
    payment = Payment.objects.select_for_update().get(pk=payment.pk)
    if hasattr(payment, "reversal"):
        raise CollectionError(ERR_ALREADY_REVERSED.format(day=payment.reversal.reversed_on))
    _check_open(reversed_on, "reversed_on")
    for e in payment.entries.all():
        LedgerEntry.objects.create(account=e.account, kind=EntryKind.REVERSAL, component=e.component,
                                   amount=-e.amount, effective_on=reversed_on, bill=e.bill, installment=e.installment,
                                   payment=payment, reverses=e, created_by=_user(acting_user),
                                   memo=f"Reversal of payment {payment.pk}: {reason}")
    rev = PaymentReversal.objects.create(payment=payment, reversed_on=reversed_on, reason=reason,
                                         created_by=_user(acting_user))
    # The credit balance the payment left may have been spent since (applied to a later bill, or to what an earlier
    # reversal made owed again): that spending is withdrawn, so no credit balance goes below zero (issue 25).
    _withdraw_spent_credit(payment, reversed_on, reason, acting_user)
    # A credit balance left by other payments now covers what the bounced payment no longer pays.
    credit_apply(account=payment.account, on=reversed_on, acting_user=acting_user)
    audit_record(actor=acting_user, action="payment.reverse", obj=payment, why=reason)
    return rev


def _withdraw_spent_credit(payment: Payment, on: date, reason: str, user) -> Decimal:
    """After ``payment`` is reversed, the account's unapplied credit may stand above zero: what the payment left as
    a credit balance was applied since to installments (``credit_apply``: a new bill, or what an earlier reversal
    made owed again), and that credit is gone with the payment. An unapplied bucket above zero owes money on no
    installment: the balance would count it and "due now" would not, interest would run on a principal the bounced
    money still seems to pay, and a lien commitment would leave it out (issue 25: pay $3.16, demand, pay $100
    leaving a credit, reverse the $3.16 — the credit pays it again — then reverse the $100).

    So the credit applications are withdrawn, the latest first (the last spending is what the balance ran out on),
    until the unapplied credit is back to zero: each a REVERSAL entry that ``reverses`` the application on its
    installment and component (the demand charge, interest or principal it paid is owed again, and interest runs as
    if that part had never been paid: ``ledger.interest_accrued_total``), with its counterpart on the unapplied
    credit; dated the reversal's day, or the application's own if later (a credit applied to a bill issued on a
    later day). Their memo names the payment; they carry none (an application of credit was never a payment on its
    bill: ``selectors.bill_standing`` counts what was paid by the payments' own entries). Ch. 295 Art. IV billing
    ¶C–¶D: what is owed is the installments' buckets; DESIGN.md: a correction is a reversing entry.

    What cannot be withdrawn is a credit balance refunded since: the town paid it out of money it never received, so
    the owner owes it again. It is moved onto the oldest installment the payment paid (``_refunded_owed``), never left
    owed on the unapplied credit. Returns what was withdrawn or moved."""
    from django.db.models import Sum

    account = payment.account
    over = round_cents(LedgerEntry.objects.filter(account=account, component=Component.UNAPPLIED)
                       .aggregate(s=Sum("amount"))["s"] or ZERO)
    if over <= 0:
        return ZERO
    applied = list(LedgerEntry.objects.filter(account=account, kind=EntryKind.CREDIT, installment__isnull=False,
                                              amount__lt=0).exclude(component=Component.UNAPPLIED)
                   .select_related("bill", "installment").order_by("-effective_on", "-id"))
    undone = {r["reverses"]: r["s"] for r in LedgerEntry.objects.filter(reverses__in=[e.pk for e in applied])
              .values("reverses").annotate(s=Sum("amount"))}
    left = over
    for e in applied:
        if left <= 0:
            break
        take = min(left, round_cents(-e.amount - (undone.get(e.pk) or ZERO)))
        if take <= 0:
            continue
        day = max(on, e.effective_on)
        memo = (f"Reversal of payment {payment.pk}: {reason} — the credit balance it left, applied "
                f"{e.effective_on}, is withdrawn")[:300]
        LedgerEntry.objects.create(account=account, kind=EntryKind.REVERSAL, component=e.component, amount=take,
                                   effective_on=day, bill=e.bill, installment=e.installment, reverses=e,
                                   created_by=_user(user), memo=memo)
        LedgerEntry.objects.create(account=account, kind=EntryKind.REVERSAL, component=Component.UNAPPLIED,
                                   amount=-take, effective_on=day, created_by=_user(user), memo=memo)
        left -= take
    if left > 0:
        _refunded_owed(payment, left, on, reason, user)
    return over


def installment_paid_first(payment: Payment) -> Installment | None:
    """The oldest installment ``payment`` paid (else the account's latest): where what its return leaves owed is
    posted (the returned-check charge, ``cashier.returns``; a credit it left that was refunded, ``_refunded_owed``)."""
    paid = (payment.entries.filter(installment__isnull=False, reverses__isnull=True)
            .select_related("installment__bill").order_by("installment__due_date", "id").first())
    return paid.installment if paid else (Installment.objects.filter(bill__account=payment.account)
                                          .select_related("bill").order_by("-due_date").first())


def _refunded_owed(payment: Payment, amount: Decimal, on: date, reason: str, user) -> None:
    """A credit balance the bounced ``payment`` left was refunded (``cashier.refunds``) before the check came back:
    the owner holds money the town never received, so it is owed again (issue 25: the unapplied credit stayed above
    zero — owed on no installment, so "due now", demands and a lien commitment left it out). It moves, as a credit
    balance kept as credit moves the other way (``abatement_post``), from the unapplied credit to the oldest
    installment the payment had paid: in its *interest* bucket, as the returned-check charge is
    (``cashier.returns``): paid before the fee itself, earning no interest (billing ¶C charges interest on the fee,
    and this is not a fee), and counted in what a demand and a lien collect (billing ¶D)."""
    inst = installment_paid_first(payment)
    if inst is None:
        # No live bill on the account (every run that billed it voided since): the refunded money would be owed on
        # nothing, below zero on the credit balance, left out of "due now", demands and liens (found by the books
        # invariants, PostgreSQL seed 3108). The reversal is refused, and nothing of it is kept (atomic), until the
        # account has a bill to owe it on or the refund is recovered.
        raise CollectionError(
            f"Payment {payment.pk} left a credit balance that was refunded since (${fmt_display(amount)} of it), and "
            f"account {payment.account.number} has no bill left to owe it on (its bills were voided): recover the "
            "refund, or reverse this payment once the account is billed again.")
    memo = (f"Reversal of payment {payment.pk}: {reason} — its credit balance was refunded, and is owed "
            "again")[:300]
    LedgerEntry.objects.create(account=payment.account, kind=EntryKind.CREDIT, component=Component.INTEREST,
                               amount=amount, effective_on=on, bill=inst.bill, installment=inst,
                               created_by=_user(user), memo=memo)
    LedgerEntry.objects.create(account=payment.account, kind=EntryKind.CREDIT, component=Component.UNAPPLIED,
                               amount=-amount, effective_on=on, created_by=_user(user), memo=memo)


# --- Demands and commitment ------------------------------------------------------------------------

@transaction.atomic
def demand_serve(*, account: Account, served_on: date, acting_user) -> Demand:
    """Serve a demand (Ch. 295 Art. IV billing ¶D): only once interest accrues; adds the demand charge
    of the resolution in force (Chapter 189's amount, configuration). A demand is dated the day it is mailed,
    never a day to come (issue 17)."""
    if served_on > date.today():
        raise CollectionError(f"served_on: {served_on} is in the future (a demand is dated the day it is mailed)")
    _check_open(served_on, "served_on")
    account = _lock(account)
    pos = account_position(account, as_of=served_on)
    overdue = pos.overdue(served_on)
    if not overdue:
        raise CollectionError(f"Account {account.number}: no interest accrues yet, so no demand may be served "
                              "(Ch. 295 Art. IV billing ¶D).")
    if pos.demand > 0:
        raise CollectionError(f"Account {account.number}: a demand is already outstanding.")
    res = resolution_in_force(served_on)
    if res is None:
        raise CollectionError(f"No rate resolution in force on {served_on}: the demand charge is unknown.")
    _materialize_interest(account, served_on, acting_user)
    target = overdue[0].installment
    LedgerEntry.objects.create(account=account, kind=EntryKind.DEMAND, component=Component.DEMAND,
                               amount=res.demand_charge, effective_on=served_on, bill=target.bill, installment=target,
                               created_by=_user(acting_user), memo="Demand charge (Chapter 189)")
    pos = account_position(account, as_of=served_on)
    demand = Demand.objects.create(account=account, served_on=served_on, resolution=res,
                                   demand_charge=res.demand_charge, principal_due=pos.principal,
                                   interest_due=pos.interest, total_due=pos.total, created_by=_user(acting_user))
    audit_record(actor=acting_user, action="demand.serve", obj=demand,
                 data={"account": account.number, "total_due": fmt(pos.total)})
    from .mailing import demand_email

    demand_email(demand)  # where the owner has an email address; recorded in notices.NoticeSent
    return demand


def commitment_due_on(demand: Demand) -> date:
    """The first day a demanded amount may be committed (billing ¶D "unpaid 14 days after mailing"): the day
    after the owner's last day to pay, the 14th day after mailing rolled forward past weekends and holidays
    (MGL c.4 §9). One rule with ``calc deadline demand_to_commitment`` (rules.deadlines)."""
    from stormwater.rules.deadlines import deadline

    return deadline("demand_to_commitment", demand.served_on).due


@transaction.atomic
def commitment_create(*, tax_fiscal_year: int, committed_on: date, demands: list[Demand],
                      acting_user) -> Commitment:
    """Commit demanded amounts still unpaid 14 days after mailing to the Board of Assessors for the
    next annual tax bill (billing ¶D). The amounts leave the stormwater account as lien entries. A commitment
    is dated the day it is made, never a day to come (issue 17)."""
    if committed_on > date.today():
        raise CollectionError(f"committed_on: {committed_on} is in the future (a commitment is dated the day it is "
                              "made)")
    _check_open(committed_on, "committed_on")
    if not demands:
        raise CollectionError("Select at least one demand to commit.")
    c = Commitment.objects.create(tax_fiscal_year=tax_fiscal_year, committed_on=committed_on,
                                  created_by=_user(acting_user))
    for demand in demands:
        if committed_on < commitment_due_on(demand):
            raise CollectionError(f"Account {demand.account.number}: the demand was mailed {demand.served_on}; it "
                                  f"may be committed from {commitment_due_on(demand)}, the day after the owner's last day to "
                                  "pay (14 days after mailing, rolled past weekends and holidays; Ch. 295 Art. IV "
                                  "billing ¶D, MGL c.4 §9).")
        if hasattr(demand, "commitment_line"):
            raise CollectionError(f"Account {demand.account.number}: this demand is already committed.")
        account = _lock(demand.account)
        _materialize_interest(account, committed_on, acting_user)
        pos = account_position(account, as_of=committed_on)
        parts = {comp: ZERO for comp in ALLOCATION_ORDER}
        for d in pos.dues:
            # Only what is past due: a later installment not yet due is not part of the lien.
            if d.installment.bill.is_back_bill or committed_on < interest_start(d.installment.due_date):
                continue
            for comp in ALLOCATION_ORDER:
                owed = d.buckets[comp]
                if owed > 0:
                    LedgerEntry.objects.create(account=account, kind=EntryKind.LIEN, component=comp, amount=-owed,
                                               effective_on=committed_on, bill=d.installment.bill,
                                               installment=d.installment, created_by=_user(acting_user),
                                               memo=f"Committed to the FY{tax_fiscal_year} tax bill (lien)")
                    parts[comp] += owed
        total = sum(parts.values(), ZERO)
        if total <= 0:
            raise CollectionError(f"Account {account.number}: nothing is unpaid any more; not committed.")
        CommitmentLine.objects.create(commitment=c, account=account, demand=demand,
                                      principal=parts[Component.PRINCIPAL], interest=parts[Component.INTEREST],
                                      demand_charges=parts[Component.DEMAND], total=total)
    audit_record(actor=acting_user, action="commitment.create", obj=c,
                 data={"tax_fiscal_year": tax_fiscal_year, "lines": len(demands)})
    return c


@transaction.atomic
def lien_paid_record(*, line: CommitmentLine, paid_on: date, amount: Decimal, acting_user) -> CommitmentLine:
    """A committed amount paid through the tax bill closes the lien line."""
    line = CommitmentLine.objects.select_for_update().get(pk=line.pk)
    if line.paid_on:
        raise CollectionError(f"This lien was already closed on {line.paid_on}.")
    amount = round_cents(Decimal(amount))
    if amount <= 0:
        raise CollectionError(ERR_AMOUNT)
    line.paid_on, line.paid_amount = paid_on, amount
    line.save(update_fields=["paid_on", "paid_amount"])
    audit_record(actor=acting_user, action="lien.paid", obj=line, data={"amount": fmt(amount), "on": str(paid_on)})
    return line


# --- Back billing -----------------------------------------------------------------------------------

@transaction.atomic
def back_bill_issue(*, parcel, period_start: date, period_end: date, issue_date: date, acting_user) -> Bill:
    """Back bill a parcel found unbilled (Ch. 295 Art. IV billing ¶A): at most one year of charges, and no
    late fees or delinquency charges of any kind (the bill is marked so interest and demands skip it).

    The amount is the annual fee under the resolution in force on ``period_start``, prorated by days
    when the period is shorter than a year.
    """
    from stormwater.parcels.models import Parcel
    from stormwater.utility.selectors import BillingProblem, assess, association_split, parcel_facts

    days = (period_end - period_start).days + 1
    year_days = (add_months(period_start, 12) - period_start).days
    if period_end < period_start:
        raise CollectionError("period_end: before period_start")
    if days > year_days:
        raise CollectionError(ERR_BACK_BILL_LONG.format(start=period_start, end=period_end, days=days))
    if period_start > issue_date:
        raise CollectionError("period_start: a back bill covers a past period")
    _check_open(issue_date, "issue_date")
    prior = Bill.objects.filter(parcel=parcel, is_back_bill=True, issue_date__gt=issue_date - timedelta(days=365))
    if prior.exists():
        raise CollectionError(ERR_BACK_BILL_AGAIN.format(pid=parcel.parcel_id, day=prior.first().issue_date))
    # A proof waiting for approval bills the parcel too (issue 16): it counts; a voided run's bills do not.
    overlap = Bill.all_objects.filter(parcel=parcel, run__state__in=["proof", "preparing", "issued"],
                                      period_start__lte=period_end, period_end__gte=period_start).first()
    if overlap:
        raise CollectionError(ERR_BACK_BILL_OVERLAP.format(pid=parcel.parcel_id, start=period_start, end=period_end,
                                                           bill=overlap.number))
    res = resolution_in_force(period_start)
    if res is None:
        raise CollectionError(f"No rate resolution in force on {period_start}.")
    # A unit parcel named by its association's instrument owes no fee of its own: its share is billed through the
    # master parcel (Ch. 295 Art. IV ¶G; utility.selectors.association_split, as the bill run reads it).
    split = association_split(on=period_end)
    master = split.master_of(parcel.pk)
    if master is not None:
        mid = Parcel.objects.get(pk=master).parcel_id
        us = split.unit_share(parcel.pk, master_parcel_id=mid, master_fee=None)
        raise CollectionError(f"Parcel {parcel.parcel_id} is unit {us.unit} of {us.association}: billed through parcel "
                              f"{mid} for its {fmt_ratio(us.percent)}% share, never on its own (Ch. 295 Art. IV ¶G); "
                              "nothing to back bill on this parcel.")
    try:
        fee = assess(parcel_facts(parcel, as_of=period_end), res.fee_terms())
    except BillingProblem as e:
        raise CollectionError(str(e)) from None
    amount = fee.annual_fee if days == year_days else round_cents(fee.annual_fee * days / year_days)
    if amount <= 0:
        raise CollectionError(f"Parcel {parcel.parcel_id} owes no fee for the period: nothing to back bill.")
    if parcel.owner is None:
        raise CollectionError("No record owner: nothing to bill.")
    account, _ = Account.objects.get_or_create(parcel=parcel, unit=None, defaults={"number": f"SW-{parcel.parcel_id}"})
    run = BillRun.objects.create(period_label=f"Back bill {period_start}–{period_end}", period_start=period_start,
                                 period_end=period_end, issue_date=issue_date, resolution=res,
                                 created_by=_user(acting_user), bill_count=1, total_billed=amount)
    expl = (fee.explanation + f"\nBack bill for {period_start} – {period_end} ({days} of {year_days} days"
            f"{'' if days == year_days else ', prorated'}): ${fmt(amount)}. No interest or late charges of any kind "
            "apply to a back bill (Ch. 295 Art. IV billing ¶A).")
    # The account's next revision for the period: 1, or after bills of voided runs (utility.Bill.revision).
    revision = 1 + Bill.all_objects.filter(account=account, period_start=period_start,
                                           run__state__in=DEAD_STATES).count()
    bill = Bill.objects.create(
        number=f"BB-{issue_date:%Y%m%d}-{parcel.parcel_id}", revision=revision, run=run, account=account, parcel=parcel,
        period_start=period_start, period_end=period_end, issue_date=issue_date, owner_name=parcel.owner.name,
        mailing_address=parcel.owner.mailing_address, property_class=fee.property_class.value,
        impervious_sqft=fee.impervious_sqft, erus=fee.erus, gross_fee=fee.gross_fee, credit_percent=fee.credit_percent,
        amount=amount, blocks=[b.as_json() for b in fee.blocks], explanation=expl, is_back_bill=True,
        water_sewer_account=parcel.water_sewer_account)
    inst = Installment.objects.create(bill=bill, seq=1, amount=amount, issue_date=issue_date,
                                      due_date=add_calendar_days(issue_date, 30))
    LedgerEntry.objects.create(account=account, kind=EntryKind.CHARGE, amount=amount, effective_on=issue_date,
                               bill=bill, installment=inst, memo=f"{bill.number} back bill",
                               created_by=_user(acting_user))
    audit_record(actor=acting_user, action="back_bill.issue", obj=bill,
                 data={"parcel": parcel.parcel_id, "amount": fmt(amount), "days": days})
    return bill


@transaction.atomic
def period_close(*, closed_through: date, acting_user) -> PeriodClose:
    closed_through_value = closed_through
    prior = PeriodClose.objects.order_by("-closed_through").first()
    if prior and prior.closed_through >= closed_through_value:
        raise CollectionError(f"The books are already closed through {prior.closed_through}.")
    if closed_through_value >= date.today():
        raise CollectionError("closed_through: only past days can be closed")
    pc = PeriodClose.objects.create(closed_through=closed_through_value, created_by=_user(acting_user))
    audit_record(actor=acting_user, action="period.close", obj=pc, data={"through": str(closed_through_value)})
    return pc


# --- Abatements (the relief app decides; the ledger entries are made here) ----------------------------

class AbatementDisposition:
    REFUND = "refund"
    CREDIT = "credit"


@transaction.atomic
def abatement_post(*, bill: Bill, amount: Decimal, on: date, disposition: str, acting_user,
                   memo: str = "") -> list[LedgerEntry]:
    """Post a granted abatement against ``bill`` (Ch. 295 Art. IV billing ¶E; appeals ¶A).

    The bill's principal is reduced by ``amount`` (latest installment first) as ABATEMENT entries.
    What the owner had already paid on that principal becomes an overpayment, which is either
    refunded (REFUND entries: money out to the owner) or kept as a credit balance (moved to
    unapplied credit, applied to the next bill), as the owner chose.
    """
    amount = round_cents(Decimal(amount))
    if amount <= 0:
        raise CollectionError(ERR_AMOUNT)
    if amount > bill.amount:
        raise CollectionError(f"amount: an abatement of ${fmt(amount)} exceeds the bill (${fmt(bill.amount)}).")
    if disposition not in (AbatementDisposition.REFUND, AbatementDisposition.CREDIT):
        raise CollectionError("disposition: refund or credit")
    _check_open(on, "on")
    account = _lock(bill.account)
    made: list[LedgerEntry] = []
    insts = list(bill.installments.order_by("-seq"))
    charged = {i.pk: i.amount for i in insts}
    left = amount
    for inst in insts:
        take = min(left, charged[inst.pk])
        if take <= 0:
            continue
        made.append(LedgerEntry.objects.create(
            account=account, kind=EntryKind.ABATEMENT, component=Component.PRINCIPAL, amount=-take, effective_on=on,
            bill=bill, installment=inst, created_by=_user(acting_user), memo=memo or f"Abatement of {bill.number}"))
        left -= take
    # What is now overpaid on this bill's principal (negative buckets) goes back to the owner.
    from .ledger import account_dues

    for d in account_dues(account, as_of=on):
        if d.installment.bill_id != bill.pk or d.buckets[Component.PRINCIPAL] >= 0:
            continue
        over = -d.buckets[Component.PRINCIPAL]
        if disposition == AbatementDisposition.REFUND:
            made.append(LedgerEntry.objects.create(
                account=account, kind=EntryKind.REFUND, component=Component.PRINCIPAL, amount=over, effective_on=on,
                bill=bill, installment=d.installment, created_by=_user(acting_user), memo="Abatement refunded"))
        else:
            made.append(LedgerEntry.objects.create(
                account=account, kind=EntryKind.CREDIT, component=Component.PRINCIPAL, amount=over, effective_on=on,
                bill=bill, installment=d.installment, created_by=_user(acting_user), memo="Abatement kept as credit"))
            made.append(LedgerEntry.objects.create(
                account=account, kind=EntryKind.CREDIT, component=Component.UNAPPLIED, amount=-over, effective_on=on,
                created_by=_user(acting_user), memo="Abatement kept as credit"))
    audit_record(actor=acting_user, action="abatement.post", obj=bill,
                 data={"amount": fmt(amount), "disposition": disposition, "on": str(on)})
    return made


# Lockbox and processor files are posted set-based by their own module (the acts of a file, not of one
# payment); their names stay reachable here, where callers have always found them.
from .lockbox import BATCH_COLUMNS, BatchRejected, BatchResult, payment_batch_post  # noqa: E402,F401
