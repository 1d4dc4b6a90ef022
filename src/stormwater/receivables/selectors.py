"""Reads for the Collector and Finance: aging, delinquency, demand and commitment candidates.

Set-based (issue 15): each report is a ``positions.PositionReport`` — the database computes every
account's position as of the date in one statement, pages the rows and totals them over all rows, in a
constant number of queries whatever the number of accounts. The conditions are those of the
per-account reference (``ledger.account_position``); tests/receivables/test_positions_sql.py holds the
figures equal.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import Sequence

from stormwater.rules.money import round_cents
from stormwater.utility.models import Account

from .base import DEMAND_TO_COMMITMENT_DAYS
from .models import Demand, PeriodClose
from .positions import (ALL, AGING_BUCKETS, AccountFigures, AccountFilter, AccountReport, PositionReport, _as_date,
                        _date_param, _figures)

__all__ = ["AGING_BUCKETS", "AgingRow", "aging", "aging_report", "commitment_candidates", "commitment_report",
           "delinquency", "delinquency_report", "demand_candidates", "demand_report", "bill_standing",
           "BillStanding", "DuplicateRule", "PaymentContent", "payment_duplicates", "payment_duplicates_each",
           "AT_ENTRY", "BY_REFERENCE", "FILE_ROW", "closed_through", "books_open_from", "books_open_refusal"]


def closed_through() -> date | None:
    """The last day of the closed books (``services.period_close``), or None: nothing is posted on or before it."""
    pc = PeriodClose.objects.order_by("-closed_through").first()
    return pc.closed_through if pc else None


def books_open_from() -> date | None:
    """The first day a payment may be received on (issue 26, the default closed-books rule): July 1 starting the
    oldest fiscal year billed (MGL c.44 §56: the fiscal year runs July 1 – June 30) or, if earlier, the day the first
    bill was issued — a bill issued before its fiscal year begins is owed from its issue (Ch. 295 Art. IV billing ¶B:
    each installment due 30 days after its own issue) and must be payable then; None before any bill. (Issue 25: a
    town whose first run was voided and FY2028 billed in December could take no payment, not even a returned check's
    charge, until July.)"""
    from django.db.models import Min

    from stormwater.utility.models import Bill

    first = Bill.objects.aggregate(first=Min("period_start"), issued=Min("issue_date"))
    if first["first"] is None:
        return None
    start = first["first"]
    fy_start = date(start.year if start.month >= 7 else start.year - 1, 7, 1)
    return min(fy_start, first["issued"]) if first["issued"] else fy_start


def books_open_refusal(day: date, field: str, start: date | None) -> str | None:
    """Why ``day`` may not be a payment's (``books_open_from``), in the words of ``base.ERR_BEFORE_BOOKS``; None if
    it may."""
    from .base import ERR_BEFORE_BOOKS

    if start is None or day >= start:
        return None
    why = (f"the first day of FY{start.year + 1}, the oldest fiscal year billed" if (start.month, start.day) == (7, 1)
           else "the day the first bill was issued")
    return ERR_BEFORE_BOOKS.format(field=field, day=day, start=start, why=why)


def aging_report(*, as_of: date) -> AccountReport:
    """Accounts receivable aging: what each account owes by days past the (rolled) due date of each
    installment — current, 1–30, 31–60, 61–90, over 90 — and its balance with interest to the date."""
    return AccountReport("aging", as_of=as_of)


def delinquency_report(*, as_of: date) -> AccountReport:
    """Accounts past due (an installment owing after its due date) with a balance owed."""
    return AccountReport("delinquency", as_of=as_of)


def demand_report(*, as_of: date) -> AccountReport:
    """Accounts on which interest accrues and no demand charge is unpaid (Ch. 295 Art. IV billing ¶D)."""
    return AccountReport("demand", as_of=as_of)


def latest_ripe_mailing(as_of: date) -> date:
    """The last mailing day whose demand may be committed on ``as_of`` (services.commitment_due_on: the day
    after the owner's last day to pay, the 14th day rolled past weekends and holidays, MGL c.4 §9). The
    first day to commit is at least 15 days after mailing and grows with the mailing day, so the answer is
    found walking back from ``as_of`` − 15 days over the few days a roll can add."""
    from stormwater.rules.deadlines import deadline

    day = as_of - timedelta(days=DEMAND_TO_COMMITMENT_DAYS + 1)
    while deadline("demand_to_commitment", day).due > as_of:
        day -= timedelta(days=1)
    return day


class CommitmentReport(PositionReport):
    """Demands whose owner's last day to pay (14 days after mailing, rolled) has passed, not yet committed, whose accounts still owe and are past
    due (billing ¶D): one row per demand, newest first, with its account's position."""

    extra_from = "\nJOIN receivables_demand d ON d.account_id = pa.account_id"
    extra_cols = ("d.id", "d.served_on")
    where = ("pa.total > 0 AND pa.overdue = 1 AND d.served_on <= %s AND NOT EXISTS "
             "(SELECT 1 FROM receivables_commitmentline cl WHERE cl.demand_id = d.id)")
    order_by = "d.served_on DESC, d.id DESC"

    def where_params(self) -> list:
        return [_date_param(latest_ripe_mailing(self.as_of))]

    def row(self, r: Sequence) -> AccountFigures:
        f = _figures(r[:-2])
        f.extra = {"demand_id": r[-2], "served_on": _as_date(r[-1])}
        return f


@dataclass(frozen=True)
class BillStanding:
    """Whether a bill is paid (issue 17: the owner's bill page says paid, partly paid or unpaid)."""

    status: str          # "paid", "partly_paid", "unpaid", "not_issued"
    label: str
    remaining: Decimal   # still owed on this bill today, interest and demand charges included
    paid: Decimal        # paid on this bill (payments less reversals)
    account_balance: Decimal


def bill_standing(bill, *, as_of: date) -> BillStanding:
    """What is owed and paid on ``bill`` as of ``as_of`` (the ledger's allocation: ``ledger.account_position``)."""
    from django.db.models import Sum

    from stormwater.rules.money import ZERO, round_cents
    from stormwater.utility.models import LedgerEntry

    from .ledger import account_position

    if bill.run.state != "issued" or getattr(bill, "voided", False):
        return BillStanding("not_issued", "Not issued", ZERO, ZERO, ZERO)
    pos = account_position(bill.account, as_of=as_of)
    remaining = sum((d.total for d in pos.dues if d.installment.bill_id == bill.pk), ZERO)
    paid = -round_cents(LedgerEntry.objects.filter(bill=bill, payment__isnull=False)
                        .aggregate(s=Sum("amount"))["s"] or ZERO)
    if remaining <= 0:
        status, label = "paid", "Paid"
    elif paid > 0:
        status, label = "partly_paid", "Partly paid"
    else:
        status, label = "unpaid", "Unpaid"
    return BillStanding(status, label, max(remaining, ZERO), max(paid, ZERO), pos.total)


@dataclass(frozen=True)
class PayOffer:
    """What the "Pay" button offers on an account or one bill (issue 17, paying online), as of a day. Never negative.

    ``due_now``: what is owed now — past-due installments and installments issued and due, with interest to date and
    demand charges (Ch. 295 Art. IV billing ¶B–¶D), less any unapplied credit; an installment not yet issued is not
    due (¶B: each installment is due 30 days after its own issue). ``balance``: everything still owed, the installments
    not yet issued included (the "whole balance" choice where ``TownConfig.pay_whole_balance_online``). ``credit``:
    what the account holds beyond what it owes today (the account's balance below zero), said as a credit."""

    due_now: Decimal
    balance: Decimal
    credit: Decimal

    @property
    def more_than_due(self) -> bool:
        return self.balance > self.due_now

    @property
    def later(self) -> Decimal:
        """Owed, but not due yet (installments not yet issued)."""
        return self.balance - self.due_now


def pay_offer(account: Account, *, as_of: date, bill=None, position=None) -> PayOffer:
    """The ``PayOffer`` of ``account`` (or of one of its bills) on ``as_of``, from the ledger's allocation
    (``ledger.account_position``: payments oldest installment first, demand → interest → principal). ``position``:
    the account's ``account_position`` on ``as_of`` when the caller has read it already (read once, not twice)."""
    from stormwater.rules.money import ZERO

    from .ledger import account_position

    pos = position if position is not None else account_position(account, as_of=as_of)
    dues = [d for d in pos.dues if bill is None or d.installment.bill_id == bill.pk]
    owed_now = sum((d.total for d in dues if d.issued and d.total > 0), ZERO)
    owed_all = sum((d.total for d in dues if d.total > 0), ZERO)
    unapplied = max(pos.credit, ZERO)
    return PayOffer(due_now=round_cents(max(owed_now - unapplied, ZERO)),
                    balance=round_cents(max(owed_all - unapplied, ZERO)), credit=round_cents(max(-pos.total, ZERO)))


def commitment_report(*, as_of: date, accounts: AccountFilter = ALL) -> CommitmentReport:
    return CommitmentReport(as_of=as_of, accounts=accounts)


# --- whole lists (the JSON API's older callers, tests): the same SQL, model objects in one more query ------

@dataclass
class AgingRow:
    account: Account
    buckets: dict[str, Decimal]
    total: Decimal
    oldest_due: date | None


def _accounts(rows: list[AccountFigures]) -> dict[int, Account]:
    return Account.objects.select_related("parcel", "unit").in_bulk([r.account_id for r in rows])


def aging(*, as_of: date) -> list[AgingRow]:
    rows = list(aging_report(as_of=as_of))
    accts = _accounts(rows)
    return [AgingRow(accts[r.account_id], r.buckets, r.total, r.oldest_due) for r in rows]


def delinquency(*, as_of: date) -> list[AgingRow]:
    rows = list(delinquency_report(as_of=as_of))
    accts = _accounts(rows)
    return [AgingRow(accts[r.account_id], r.buckets, r.total, r.oldest_due) for r in rows]


def demand_candidates(*, as_of: date) -> list[tuple[Account, AccountFigures]]:
    rows = list(demand_report(as_of=as_of))
    accts = _accounts(rows)
    return [(accts[r.account_id], r) for r in rows]


def commitment_candidates(*, as_of: date) -> list[tuple[Demand, AccountFigures]]:
    rows = list(commitment_report(as_of=as_of))
    demands = Demand.objects.select_related("account", "account__parcel").in_bulk(
        [r.extra["demand_id"] for r in rows])
    return [(demands[r.extra["demand_id"]], r) for r in rows]


# --- Duplicate payments: ONE rule for the screen, the API, the cashier's window and every file ----------------

@dataclass(frozen=True)
class PaymentContent:
    """What a payment is, for telling whether it was posted before (issue 17: "a payment is a duplicate by its
    content — account, amount, date, check/reference — whatever file carried it")."""

    account_id: int
    amount: Decimal
    received_on: date
    reference: str = ""

    @property
    def ref(self) -> str:
        """The reference as compared: without surrounding spaces, case aside ("chk 1001" is "CHK 1001")."""
        return (self.reference or "").strip().upper()


@dataclass(frozen=True)
class DuplicateRule:
    """When an earlier payment is the same as a new one. Always: the same account and amount. Then:

    - with a check/reference number: the same number, received within ``reference_days`` days of each other
      (0: the same day; None: any day — a check number is one check for ever);
    - without one: an earlier payment without one received the same day, if ``unreferenced`` (cash at the
      counter keyed twice); otherwise a payment without a reference is never held to be a duplicate;
    - a payment since reversed counts only if ``include_reversed`` (a bounced check paid again by the owner is a
      new payment; a file's row that was posted and later bounced is still that row, not to be posted again).
    """

    reference_days: int | None = 0
    unreferenced: bool = True
    include_reversed: bool = False

    def matches(self, new: PaymentContent, old: PaymentContent) -> bool:
        if new.account_id != old.account_id or round_cents(new.amount) != round_cents(old.amount):
            return False
        if new.ref:
            return old.ref == new.ref and (self.reference_days is None
                                           or abs((new.received_on - old.received_on).days) <= self.reference_days)
        return self.unreferenced and not old.ref and old.received_on == new.received_on

    def days(self, new: PaymentContent) -> tuple[date, date] | None:
        """The days received an earlier match can have (None: any)."""
        if new.ref and self.reference_days is None:
            return None
        span = timedelta(days=self.reference_days or 0) if new.ref else timedelta(0)
        return new.received_on - span, new.received_on + span


# The rules in use (docs/collector.md "Duplicates"):
# - keyed at the window, on the payment form or through the API: the cashier is asked, never silently refused —
#   the same check number any day, or an unreferenced payment of the same amount the same day;
AT_ENTRY = DuplicateRule(reference_days=None)
# - posted by a program (``payment_post``'s default: imports, the demo): the same reference the same day;
BY_REFERENCE = DuplicateRule(unreferenced=False)
# - a row of a lockbox or processor file: its whole content, the same day, even if reversed since (a bank's
#   cumulative file carries yesterday's rows again; they are the same payments).
FILE_ROW = DuplicateRule(include_reversed=True)


def payment_duplicates_each(payments: Sequence[PaymentContent], *, rule: DuplicateRule = DuplicateRule()
                            ) -> list[list]:
    """For each of ``payments``, the payments already posted that it would duplicate under ``rule``, oldest
    first: one query whatever the number (the accounts, amounts and days of them all), then ``rule.matches``."""
    from .models import Payment

    out: list[list] = [[] for _ in payments]
    if not payments:
        return out
    qs = Payment.objects.filter(account_id__in={p.account_id for p in payments})
    spans = [rule.days(p) for p in payments]
    if all(s is not None for s in spans):
        qs = qs.filter(received_on__gte=min(s[0] for s in spans), received_on__lte=max(s[1] for s in spans))
    if not rule.include_reversed:
        qs = qs.filter(reversal__isnull=True)
    if len(payments) == 1:  # one payment (the screen, the API): narrowed in SQL to its own reference
        only = payments[0]
        qs = qs.filter(amount=round_cents(Decimal(only.amount)))
        qs = qs.filter(reference__iexact=only.reference.strip()) if only.ref else qs.filter(reference="")
    by_account: dict[int, list] = {}
    for p in qs.select_related("account", "created_by", "batch").order_by("id"):
        by_account.setdefault(p.account_id, []).append(p)
    for i, new in enumerate(payments):
        out[i] = [p for p in by_account.get(new.account_id, ())
                  if rule.matches(new, PaymentContent(p.account_id, p.amount, p.received_on, p.reference))]
    return out


def payment_duplicates(*, account: Account, amount: Decimal, received_on: date, reference: str = "",
                       rule: DuplicateRule = DuplicateRule()):
    """Payments already posted that one new payment would duplicate under ``rule`` (default: the same account,
    amount, reference — spaces and case aside — and day received, not reversed), oldest first, as a queryset
    (``payment_duplicates_each`` for one)."""
    from .models import Payment

    hits = payment_duplicates_each([PaymentContent(account.pk, Decimal(amount), received_on, reference or "")],
                                   rule=rule)[0]
    return (Payment.objects.filter(pk__in=[p.pk for p in hits])
            .select_related("account", "created_by", "batch").order_by("id"))
