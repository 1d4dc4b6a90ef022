"""The calculator contract shared by ``stormwater calc ...`` and ``POST /api/calc/...``.

Input and output are plain JSON objects; money is a string with two decimals. Bad input raises
CalcInputError whose message names the field (the CLI exits 2 with {"error": ...}; the API answers 400).
"""
from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from typing import Any

from stormwater.rules.classes import PropertyClass
from stormwater.rules.fees import FeeTerms, compute_fee
from stormwater.rules.money import allocate, fmt, to_decimal

FEE_FIELDS = {"property_class", "impervious_sqft", "eru_sqft", "rate_per_eru", "small_residential_rate",
              "credit_percent", "installments"}


class CalcInputError(ValueError):
    pass


MAX_MAGNITUDE = Decimal("1e12")  # any number a calculator takes (dollars, ft², percent) is far below this


def _num(payload: dict, name: str, *, minimum: Decimal | None = None, maximum: Decimal | None = None,
         positive: bool = False) -> Decimal | None:
    if name not in payload or payload[name] is None:
        return None
    try:
        d = to_decimal(payload[name], field=name)
    except ValueError as e:
        raise CalcInputError(str(e)) from None
    if abs(d) >= MAX_MAGNITUDE:  # an absurd magnitude (issue 15: 3.6e245 as an amount was a 500)
        raise CalcInputError(f"{name}: must be less than {MAX_MAGNITUDE:,.0f} in magnitude")
    if positive and d <= 0:
        raise CalcInputError(f"{name}: must be greater than zero")
    if minimum is not None and d < minimum:
        raise CalcInputError(f"{name}: must be at least {minimum}")
    if maximum is not None and d > maximum:
        raise CalcInputError(f"{name}: must be at most {maximum}")
    return d


def _object(payload: Any) -> dict:
    if not isinstance(payload, dict):
        raise CalcInputError("input: expected one JSON object")
    return payload


def calc_fee(payload: Any, *, terms: FeeTerms) -> dict:
    """``terms``: the resolution in force today; any rate given in the payload overrides it."""
    p = _object(payload)
    unknown = sorted(set(p) - FEE_FIELDS)
    if unknown:
        raise CalcInputError(f"{unknown[0]}: unknown field (expected {', '.join(sorted(FEE_FIELDS))})")
    raw_class = p.get("property_class")
    if raw_class is None:
        raise CalcInputError("property_class: required (small_residential | large_residential | nonresidential | exempt)")
    try:
        pclass = PropertyClass(raw_class)
    except (ValueError, TypeError):
        raise CalcInputError(f"property_class: {raw_class!r} is not one of small_residential, large_residential, "
                             "nonresidential, exempt") from None
    imp = _num(p, "impervious_sqft", minimum=Decimal(0))
    if imp is None:
        if pclass in (PropertyClass.NONRESIDENTIAL, PropertyClass.LARGE_RESIDENTIAL):
            raise CalcInputError("impervious_sqft: required for this property class")
        imp = Decimal(0)
    changes: dict[str, Any] = {}
    for name, kw in (("eru_sqft", {"positive": True}), ("rate_per_eru", {"minimum": Decimal(0)}),
                     ("small_residential_rate", {"minimum": Decimal(0)})):
        v = _num(p, name, **kw)
        if v is not None:
            changes[name] = v
    credit = _num(p, "credit_percent", minimum=Decimal(0), maximum=Decimal(100)) or Decimal(0)
    inst = p.get("installments")
    if inst is not None:
        if isinstance(inst, bool) or not (isinstance(inst, int) or (isinstance(inst, str) and inst.strip().isdigit())):
            raise CalcInputError("installments: must be a whole number 1–4")
        inst = int(inst)
        if not 1 <= inst <= 4:
            raise CalcInputError("installments: must be 1, 2, 3 or 4 (billed at least annually, at most quarterly)")
    if changes:
        terms = replace(terms, label=terms.label + "; with rates given in the request", **changes)
    try:
        fee = compute_fee(property_class=pclass, impervious_sqft=imp, terms=terms, credit_percent=credit,
                          installments=inst)
    except ValueError as e:
        raise CalcInputError(str(e)) from None
    return fee.as_json()


def calc_split(payload: Any) -> dict:
    """Split an amount by recorded unit percentages (Ch. 295 Art. IV ¶G); shares sum to the cent."""
    p = _object(payload)
    amount = _num(p, "amount", minimum=Decimal(0))
    if amount is None:
        raise CalcInputError("amount: required")
    if amount != amount.quantize(Decimal("0.01")):
        raise CalcInputError("amount: must be in whole cents")
    shares = p.get("shares")
    if not isinstance(shares, list) or not shares:
        raise CalcInputError("shares: a non-empty list of {unit, percent} is required")
    units, percents = [], []
    for i, s in enumerate(shares):
        if not isinstance(s, dict) or "unit" not in s or "percent" not in s:
            raise CalcInputError(f"shares[{i}]: each share needs unit and percent")
        if str(s["unit"]) in {str(u) for u in units}:
            raise CalcInputError(f"shares[{i}].unit: unit {s['unit']!r} appears twice")
        try:
            pct = to_decimal(s["percent"], field=f"shares[{i}].percent")
        except ValueError as e:
            raise CalcInputError(str(e)) from None
        if abs(pct) > 100:
            raise CalcInputError(f"shares[{i}].percent: must be at most 100")
        if pct <= 0:
            raise CalcInputError(f"shares[{i}].percent: must be greater than zero")
        units.append(s["unit"])
        percents.append(pct)
    total = sum(percents, Decimal(0))
    if total != 100:
        raise CalcInputError(f"shares: percentages must total 100 (they total {total})")
    amounts = allocate(amount, percents)
    return {"amount": fmt(amount), "shares": [{"unit": u, "percent": str(pc), "amount": fmt(a)}
                                              for u, pc, a in zip(units, percents, amounts)]}


INTEREST_FIELDS = {"unpaid_principal", "due_date", "as_of", "rate_percent"}


def _date(p: dict, name: str):
    from datetime import date

    raw = p.get(name)
    if raw is None:
        raise CalcInputError(f"{name}: required (YYYY-MM-DD)")
    try:
        return date.fromisoformat(str(raw))
    except ValueError:
        raise CalcInputError(f"{name}: {raw!r} is not a date (YYYY-MM-DD)") from None


def calc_interest(payload: Any, *, rate_percent: Decimal) -> dict:
    """Interest on an unpaid principal (Ch. 295 Art. IV billing ¶C): 12 % a year (the resolution's
    rate) from the day after the due date, the due date rolled past weekends and Massachusetts
    holidays (MGL c.4 §9); simple, per day, /365, rounded to the cent."""
    from stormwater.rules.calendar import roll_forward
    from stormwater.rules.interest import interest_start, simple_interest

    p = _object(payload)
    unknown = sorted(set(p) - INTEREST_FIELDS)
    if unknown:
        raise CalcInputError(f"{unknown[0]}: unknown field (expected {', '.join(sorted(INTEREST_FIELDS))})")
    principal = _num(p, "unpaid_principal", minimum=Decimal(0))
    if principal is None:
        raise CalcInputError("unpaid_principal: required")
    due, as_of = _date(p, "due_date"), _date(p, "as_of")
    rate = _num(p, "rate_percent", minimum=Decimal(0), maximum=Decimal(100))
    rate = rate_percent if rate is None else rate
    interest, days = simple_interest(unpaid_principal=principal, due_date=due, as_of=as_of, rate_percent=rate)
    return {"interest": fmt(interest), "days": days, "rate_percent": str(rate),
            "due_date_rolled": str(roll_forward(due)), "accrues_from": str(interest_start(due)),
            "explanation": f"${fmt(principal)} × {rate}% × {days} days / 365 = ${fmt(interest)} (interest from "
                           f"{interest_start(due)}, the day after the due date"
                           f"{' rolled to ' + str(roll_forward(due)) if roll_forward(due) != due else ''}; "
                           "Ch. 295 Art. IV billing ¶C, MGL c.4 §9)."}
