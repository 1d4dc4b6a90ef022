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
from .positions import (AGING_BUCKETS, AccountFigures, AccountReport, PositionReport, _as_date, _date_param,
                        _figures)
from .services import DEMAND_TO_COMMITMENT_DAYS

__all__ = ["AGING_BUCKETS", "AgingRow", "aging", "aging_report", "commitment_candidates", "commitment_report",
           "delinquency", "delinquency_report", "demand_candidates", "demand_report"]


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


class CommitmentReport(PositionReport):
    """Demands mailed more than 14 days ago, not yet committed, whose accounts still owe and are past
    due (billing ¶D): one row per demand, newest first, with its account's position."""

    extra_from = "\nJOIN receivables_demand d ON d.account_id = pa.account_id"
    extra_cols = ("d.id", "d.served_on")
    where = ("pa.total > 0 AND pa.overdue = 1 AND d.served_on <= %s AND NOT EXISTS "
             "(SELECT 1 FROM receivables_commitmentline cl WHERE cl.demand_id = d.id)")
    order_by = "d.served_on DESC, d.id DESC"

    def where_params(self) -> list:
        # services.commitment_due_on: from the 15th day after mailing.
        return [_date_param(self.as_of - timedelta(days=DEMAND_TO_COMMITMENT_DAYS + 1))]

    def row(self, r: Sequence) -> AccountFigures:
        f = _figures(r[:-2])
        f.extra = {"demand_id": r[-2], "served_on": _as_date(r[-1])}
        return f


def commitment_report(*, as_of: date) -> CommitmentReport:
    return CommitmentReport(as_of=as_of)


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
