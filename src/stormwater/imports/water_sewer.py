"""Water/sewer accounts: which parcel's stormwater fee goes on which Town water/sewer bill (issue 20).

The Town's water and sewer billing system knows its accounts by service address; the stormwater fee is billed
per parcel (Ch. 295 Art. IV ¶B, ¶E) and, where a parcel has a water/sewer account, consolidated on that bill
(docs/consolidated-billing.md). This file ties the two: one row per parcel.

The file (CSV, any encoding the pipeline reads; header names case-insensitive):
    parcel_id,water_sewer_account
    12-34-5,W004512
``account`` is accepted for ``water_sewer_account``. Refused, naming row and column: a missing column, a blank
parcel id, a parcel id the Assessors' records do not have, an account longer than 40 characters or with control
characters, one parcel given two different accounts. A blank account cell is a fact the file does not carry: the
parcel's account stays as it is (the import never blanks one). One account on several parcels is allowed (an
owner with several lots on one water bill) and listed as a warning. Imports no Django.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .pipeline import Problem, error, read_csv

PARCEL_COLUMNS = ("parcel_id",)
ACCOUNT_COLUMNS = ("water_sewer_account", "account")
MAX_ACCOUNT = 40  # parcels.Parcel.water_sewer_account


@dataclass
class AccountRow:
    row: int
    parcel_id: str
    account: str


def _find(columns: list[str], names: tuple[str, ...]) -> str | None:
    low = {c.strip().lower(): c for c in columns}
    return next((low[n] for n in names if n in low), None)


def read_accounts(path: str | Path, *, name: str | None = None) -> tuple[list[AccountRow], list[Problem]]:
    """Read and validate the whole file (no database). → rows to apply, findings."""
    t = read_csv(path, name=name)
    problems = list(t.problems)
    pcol, acol = _find(t.columns, PARCEL_COLUMNS), _find(t.columns, ACCOUNT_COLUMNS)
    if pcol is None or acol is None:
        missing = [n for n, c in (("parcel_id", pcol), ("water_sewer_account", acol)) if c is None]
        problems.append(error("missing_column", t.name, f"the file has no column {' or '.join(missing)} (its "
                              f"columns: {', '.join(t.columns) or 'none'}); the header must name parcel_id and "
                              "water_sewer_account"))
        return [], problems
    rows: list[AccountRow] = []
    no_id, bad, blank, dup_same = [], [], [], []
    seen: dict[str, AccountRow] = {}
    conflicts = []
    for n, r in zip(t.row_numbers, t.rows):
        pid, acct = r[pcol].strip(), r[acol].strip()
        if not pid:
            no_id.append(f"row {n} ({pcol})")
            continue
        if not acct:
            blank.append(f"row {n} ({acol}): {pid}")
            continue
        if len(acct) > MAX_ACCOUNT or any(ord(ch) < 32 for ch in acct):
            bad.append(f"row {n} ({acol}): {acct[:60]!r}")
            continue
        if pid in seen:
            if seen[pid].account != acct:
                conflicts.append(f"row {n} ({acol}): {pid} is {acct} here and {seen[pid].account} on row {seen[pid].row}")
            else:
                dup_same.append(f"row {n}: {pid}")
            continue
        seen[pid] = AccountRow(n, pid, acct)
        rows.append(seen[pid])
    if no_id:
        problems.append(error("missing_id", t.name, "rows with no parcel id: nothing imported", no_id))
    if bad:
        problems.append(error("bad_account", t.name, f"accounts longer than {MAX_ACCOUNT} characters or with control "
                              "characters: nothing imported", bad))
    if conflicts:
        problems.append(error("conflicting_account", t.name, "a parcel given two different accounts: nothing "
                              "imported", conflicts))
    if blank:
        problems.append(Problem("blank_account", t.name, "no account on these rows: the parcel's account is left as "
                                "it is", blank, severity="info"))
    if dup_same:
        problems.append(Problem("duplicate_row", t.name, "the same parcel and account again: counted once",
                                dup_same, severity="info"))
    by_account: dict[str, list[str]] = {}
    for r in rows:
        by_account.setdefault(r.account, []).append(r.parcel_id)
    shared = [f"{a}: {', '.join(pids)}" for a, pids in by_account.items() if len(pids) > 1]
    if shared:
        problems.append(Problem("shared_account", t.name, "one account on several parcels (each parcel's fee goes "
                                "on that one water/sewer bill)", shared))
    return rows, problems
