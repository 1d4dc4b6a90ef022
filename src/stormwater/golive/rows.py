"""What every ``golive cases`` kind that goes through its domain's acts shares (issue 32; the permits' way,
``permit_cases``): the file read through the import pipeline with its columns found by name or alias, and the apply
loop — every row the checks passed run through the acts (so their own refusals are listed too, by row and field),
then everything rolled back unless applying with no row refused."""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from django.db import transaction

from stormwater.imports.pipeline import error, refuse_on_errors

from .cases import CasesResult, _Rollback
from .export import _norm, parse_date


class RowRefused(ValueError):
    """An act's refusal of a row, with the file's target column it concerns."""

    def __init__(self, message: str, field: str):
        super().__init__(message)
        self.field = field


def read_case_file(path: str | Path, *, source: str | None, targets: tuple[str, ...], aliases: dict,
                   required: tuple[str, ...]):
    """→ (the table, its name, its problems, target → the file's column). Refused on a missing required column."""
    from stormwater.gis.assessor import read_source

    t = read_source(str(path))
    name = source or t.name
    problems = list(t.problems)
    norm = {_norm(c): c for c in t.columns}
    low = {}
    for target in targets:
        hit = next((norm[a] for a in (target, *aliases.get(target, ())) if a in norm), None)
        if hit:
            low[target] = hit
    missing = [c for c in required if c not in low]
    if missing:
        problems.append(error("missing_column", name, f"the file has no column {', '.join(missing)} (columns: "
                              f"{', '.join(targets)})"))
        refuse_on_errors(name, problems)
    return t, name, problems, low


def case_rows(t, low: dict, bad: list[str]):
    """For each row of the file read by ``read_case_file``: (its row number, its values by target, ``get(target)``
    → the value or "", ``refuse(target, why)`` → listed in ``bad`` as ``row N (the file's column): why``)."""
    for n, raw in zip(t.row_numbers, t.rows):
        vals = {c: raw.get(low[c], "").strip() for c in low}

        def refuse(c: str, why: str, n=n) -> None:
            bad.append(f"row {n} ({low.get(c, c)}): {why}")

        yield n, vals, (lambda c, vals=vals: vals.get(c, "")), refuse


def dates_of(get, refuse, columns, today) -> dict:
    """Each date column's day (None when blank); refuses one that is not a date or is later than today."""
    days = {}
    for c in columns:
        days[c] = parse_date(get(c)) if get(c) else None
        if get(c) and days[c] is None:
            refuse(c, f"{get(c)!r} is not a date")
        elif days[c] and days[c] > today:
            refuse(c, f"{days[c]} is in the future")
    return days


def in_order(days: dict, order: tuple[str, ...], refuse) -> bool:
    """Refuse (at the later column) each given date earlier than the one before it; True when all are in order."""
    given = [c for c in order if days.get(c)]
    ok = True
    for a, b in zip(given, given[1:]):
        if days[b] < days[a]:
            refuse(b, f"dates out of order: {b.replace('_', ' ')} {days[b]} before {a.replace('_', ' ')} {days[a]}")
            ok = False
    return ok


def apply_rows(todo: list, convert: Callable, *, res: CasesResult, bad: list[str], col: Callable[[str], str],
               apply: bool, name: str, problems: list, what: str, refusals: tuple[type, ...]) -> CasesResult:
    """Run ``convert(row)`` (→ the case number) for every row in a savepoint; an act's refusal (one of
    ``refusals``, or ``RowRefused``) is listed as ``row N (column): why``. Rolled back unless ``apply`` and no row
    was refused; refused as a whole (``ImportRefused``) when any was."""
    try:
        with transaction.atomic():
            for r in todo:
                try:
                    with transaction.atomic():
                        res.cases.append(convert(r))
                        res.created += 1
                except (RowRefused, *refusals) as e:
                    field = getattr(e, "field", None) or "status"
                    bad.append(f"row {r.n} ({col(field)}): {e}")
            if bad or not apply:
                raise _Rollback
    except _Rollback:
        pass
    if bad:
        res.created, res.cases = 0, []
        problems.append(error("bad_row", name, f"{what} that cannot be converted: nothing converted", bad))
    refuse_on_errors(name, problems)
    return res
