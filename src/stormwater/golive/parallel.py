"""The parallel run (issue 32): the first bill run after go-live proofed against the old system's own bill register
for the same period — per account, the bills that differ, the bills only here and the bills only in the old
register — as the proof compares a run with last year (``utility.proof``: the same ``Difference`` rows, the old
register in the place of last year's bills). Works on a proof before approval (its bills are read through
``Bill.all_objects``), which is when it is useful.

The register (CSV or .xlsx through the pipeline): ``account`` (or ``parcel_id``), ``amount`` (the period's charge,
alias ``bill_amount``/``total``), optional ``bill_number``. Refused by row and field: no account, an amount that is
not dollars and cents, the same account twice with different amounts, an account or parcel unknown here.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

from stormwater.imports.pipeline import ImportRefused, Problem, error, refuse_on_errors
from stormwater.rules.money import ZERO, fmt
from stormwater.utility.models import Account, Bill, BillRun
from stormwater.utility.proof import Difference

from .export import _norm, parse_money

ACCOUNT = ("account", "account_number", "acct")
PARCEL = ("parcel_id", "parcel", "map_block_lot", "loc_id")
AMOUNT = ("amount", "bill_amount", "total", "charge")
NUMBER = ("bill_number", "bill", "bill_no")


@dataclass
class ParallelResult:
    run: BillRun
    register: str
    accounts_here: int
    accounts_old: int
    total_here: Decimal
    total_old: Decimal
    same: int = 0
    differences: list[Difference] = field(default_factory=list)   # changed, then only here, then only in the old
    problems: list[Problem] = field(default_factory=list)

    def as_json(self) -> dict:
        def row(d: Difference) -> dict:
            kind = "only_here" if d.last_amount is None else "only_old" if d.amount is None else "differs"
            return {"kind": kind, "parcel_id": d.parcel_id, "owner_name": d.owner_name, "bill": d.number,
                    "amount": fmt(d.amount) if d.amount is not None else None, "old_bill": d.last_number,
                    "old_amount": fmt(d.last_amount) if d.last_amount is not None else None,
                    "difference": fmt(d.difference)}
        return {"run": self.run.pk, "period": self.run.period_label, "register": self.register,
                "accounts_here": self.accounts_here, "accounts_old": self.accounts_old,
                "total_here": fmt(self.total_here), "total_old": fmt(self.total_old),
                "total_difference": fmt(self.total_here - self.total_old), "same": self.same,
                "differences": [row(d) for d in self.differences], "problems": [p.as_json() for p in self.problems]}


def _col(columns: list[str], names: tuple[str, ...]) -> str | None:
    low = {_norm(c): c for c in columns}
    return next((low[n] for n in names if n in low), None)


def parallel_run(*, run: BillRun, path: str | Path, source: str | None = None) -> ParallelResult:
    """Compare ``run``'s bills with the old system's bill register for the same period, account by account."""
    from stormwater.gis.assessor import read_source

    t = read_source(str(path))
    name = source or t.name
    problems = list(t.problems)
    acol, pcol, mcol, ncol = (_col(t.columns, x) for x in (ACCOUNT, PARCEL, AMOUNT, NUMBER))
    if (acol is None and pcol is None) or mcol is None:
        problems.append(error("missing_column", name, f"the register needs account (or parcel_id) and amount columns "
                              f"(its columns: {', '.join(t.columns)})"))
        refuse_on_errors(name, problems)
    bills = list(Bill.all_objects.filter(run=run).select_related("account", "parcel"))
    accounts = {a.number: a for a in Account.objects.filter(number__in=[r.get(acol, "") for r in t.rows])} \
        if acol else {}
    by_parcel = {a.parcel.parcel_id: a for a in Account.objects.filter(
        unit__isnull=True, parcel__parcel_id__in=[r.get(pcol, "") for r in t.rows]).select_related("parcel")} \
        if pcol else {}
    old: dict[int, tuple[int, Decimal, str]] = {}
    bad: dict[str, list[str]] = {}
    for n, r in zip(t.row_numbers, t.rows):
        key = (r.get(acol, "") if acol else "").strip()
        pid = (r.get(pcol, "") if pcol else "").strip()
        a = accounts.get(key) or by_parcel.get(pid)
        amount = parse_money(r[mcol])
        if not key and not pid:
            bad.setdefault("missing_account", []).append(f"row {n} ({acol or pcol}): blank")
        elif a is None:
            bad.setdefault("unknown_account", []).append(f"row {n} ({acol or pcol}): {key or pid}")
        elif amount is None or amount < 0:
            bad.setdefault("bad_money", []).append(f"row {n} ({mcol}): {r[mcol]!r}")
        elif a.pk in old and old[a.pk][1] != amount:
            bad.setdefault("conflicting_amount", []).append(f"row {n} ({mcol}): {key or pid} is {r[mcol]} here and "
                                                            f"{fmt(old[a.pk][1])} on row {old[a.pk][0]}")
        else:
            old[a.pk] = (n, amount, (r.get(ncol, "") if ncol else "").strip())
    for code, ids in bad.items():
        problems.append(error(code, name, {"missing_account": "rows with no account", "unknown_account":
                                           "accounts and parcels this system does not have",
                                           "bad_money": "amounts that are not dollars and cents",
                                           "conflicting_amount": "one account with two amounts"}[code], ids))
    refuse_on_errors(name, problems)
    here = {b.account_id: b for b in bills}
    res = ParallelResult(run, name, len(here), len(old), sum((b.amount for b in bills), ZERO),
                         sum((v[1] for v in old.values()), ZERO), problems=problems)
    changed, only_here, only_old = [], [], []
    for aid, b in here.items():
        o = old.get(aid)
        d = Difference(b.parcel.parcel_id, b.parcel.address, b.owner_name, b.number, b.property_class, b.erus,
                       b.amount, o[2] or None if o else None, None, None, o[1] if o else None)
        if o is None:
            only_here.append(d)
        elif o[1] == b.amount:
            res.same += 1
        else:
            changed.append(d)
    missing = Account.objects.filter(pk__in=[a for a in old if a not in here]).select_related("parcel__owner")
    for a in missing:
        o = old[a.pk]
        owner = a.billed_owner
        only_old.append(Difference(a.parcel.parcel_id, a.parcel.address, owner.name if owner else "", None, None,
                                   None, None, o[2] or None, None, None, o[1]))
    key = lambda d: (-abs(d.difference), d.parcel_id)  # noqa: E731
    res.differences = sorted(changed, key=key) + sorted(only_here, key=key) + sorted(only_old, key=key)
    return res


__all__ = ["ImportRefused", "ParallelResult", "parallel_run"]
