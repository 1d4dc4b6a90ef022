"""``stormwater calc deadline`` and ``POST /api/calc/deadline``: the calculator contract of
``utility.calc`` (plain JSON in and out; bad input raises CalcInputError naming the field)."""
from __future__ import annotations

from datetime import date
from typing import Any

from stormwater.rules.deadlines import CLOCKS, deadline
from stormwater.utility.calc import CalcInputError

DEADLINE_FIELDS = {"clock", "start", "hearing_date"}


def _day(p: dict, name: str) -> date | None:
    v = p.get(name)
    if v in (None, ""):
        return None
    try:
        return date.fromisoformat(str(v))
    except ValueError:
        raise CalcInputError(f"{name}: {v!r} is not a date (YYYY-MM-DD)") from None


def calc_deadline(payload: Any) -> dict:
    """{clock, start} (+ hearing_date for a clock counting back from the hearing) → {due, rule, …}."""
    if not isinstance(payload, dict):
        raise CalcInputError("input: expected one JSON object")
    unknown = sorted(set(payload) - DEADLINE_FIELDS)
    if unknown:
        raise CalcInputError(f"{unknown[0]}: unknown field (expected {', '.join(sorted(DEADLINE_FIELDS))})")
    name = payload.get("clock")
    if name is None:
        raise CalcInputError(f"clock: required (one of {', '.join(CLOCKS)})")
    if not isinstance(name, str) or name not in CLOCKS:
        raise CalcInputError(f"clock: {name!r} is not one of {', '.join(CLOCKS)}")
    rule = CLOCKS[name]
    hearing = _day(payload, "hearing_date")  # checked whenever given, used by the clocks counting back
    if rule.before:
        if hearing is None:
            raise CalcInputError(f"hearing_date: required for {name} (it counts back from the hearing)")
        start = hearing
    else:
        start = _day(payload, "start")
        if start is None:
            raise CalcInputError(f"start: required ({rule.start_is})")
    d = deadline(name, start)
    out = d.as_json()
    out.update({"label": rule.label, "citation": rule.citation, "who_acts": rule.party,
                "counts": "back" if rule.before else "forward"})
    if rule.before:
        out["hearing_date"] = out.pop("start")
    return out
