"""Reads for the Collector and Finance: statements, demand and commitment candidates, aging."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from stormwater.rules.interest import interest_start
from stormwater.rules.money import ZERO
from stormwater.utility.models import Account

from .ledger import account_position
from .models import Demand
from .services import commitment_due_on

AGING_BUCKETS = ("current", "1-30", "31-60", "61-90", "over 90")


def accounts_with_charges():
    return Account.objects.filter(entries__isnull=False).distinct().select_related("parcel", "unit")


def demand_candidates(*, as_of: date) -> list[tuple[Account, object]]:
    """Accounts on which interest accrues and no demand charge is unpaid (billing ¶D)."""
    out = []
    for acct in accounts_with_charges():
        pos = account_position(acct, as_of=as_of)
        if pos.overdue(as_of) and pos.demand <= 0 and pos.total > 0:
            out.append((acct, pos))
    return out


def commitment_candidates(*, as_of: date) -> list[tuple[Demand, object]]:
    """Demands mailed more than 14 days ago whose accounts still owe, not yet committed (billing ¶D)."""
    out = []
    for d in Demand.objects.filter(commitment_line__isnull=True).select_related("account", "account__parcel"):
        if as_of < commitment_due_on(d):
            continue
        pos = account_position(d.account, as_of=as_of)
        if pos.total > 0 and pos.overdue(as_of):
            out.append((d, pos))
    return out


@dataclass
class AgingRow:
    account: Account
    buckets: dict[str, Decimal]
    total: Decimal
    oldest_due: date | None


def aging(*, as_of: date) -> list[AgingRow]:
    """Accounts receivable aging by days past the (rolled) due date of each installment."""
    rows = []
    for acct in accounts_with_charges():
        pos = account_position(acct, as_of=as_of)
        b = {k: ZERO for k in AGING_BUCKETS}
        oldest = None
        for d in pos.dues:
            owed = d.total
            if owed <= 0 or not d.issued:
                continue
            start = interest_start(d.installment.due_date)
            late = (as_of - start).days + 1 if as_of >= start else 0
            key = ("current" if late <= 0 else "1-30" if late <= 30 else "31-60" if late <= 60
                   else "61-90" if late <= 90 else "over 90")
            b[key] += owed
            if late > 0 and (oldest is None or d.installment.due_date < oldest):
                oldest = d.installment.due_date
        total = pos.total
        if total != 0 or any(b.values()):
            rows.append(AgingRow(acct, b, total, oldest))
    return rows


def delinquency(*, as_of: date) -> list[AgingRow]:
    return [r for r in aging(as_of=as_of) if r.oldest_due is not None and r.total > 0]
