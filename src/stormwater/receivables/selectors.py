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

from stormwater.utility.models import Account

from .models import Demand
from .positions import (ALL, AGING_BUCKETS, AccountFigures, AccountFilter, AccountReport, PositionReport, _as_date,
                        _date_param, _figures)
from .services import DEMAND_TO_COMMITMENT_DAYS

__all__ = ["AGING_BUCKETS", "AgingRow", "aging", "aging_report", "commitment_candidates", "commitment_report",
           "delinquency", "delinquency_report", "demand_candidates", "demand_report", "bill_standing",
           "BillStanding"]


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


def payment_duplicates(*, account: Account, amount: Decimal, received_on: date, reference: str = ""):
    """Payments already posted (and not reversed) that match a new one on account, amount, reference and date
    received — the same check keyed or filed twice (issue 16: a duplicate asks for confirmation before it is
    posted; the staff page and ``POST /api/payments/`` with ``confirm_duplicate``). The reference is compared
    without surrounding spaces or case; a reversed payment (a bounced check paid again) does not count."""
    from .models import Payment

    return (Payment.objects.filter(account=account, amount=Decimal(amount), received_on=received_on,
                                   reference__iexact=(reference or "").strip(), reversal__isnull=True)
            .select_related("created_by", "batch").order_by("id"))
