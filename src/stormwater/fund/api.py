"""JSON API of the Stormwater Management Account. Money in and out as strings with 2 decimals."""
from __future__ import annotations

import json
from datetime import date
from decimal import Decimal, InvalidOperation

from django.http import JsonResponse
from django.views.decorators.http import require_GET, require_POST

from stormwater.accounts.access import require_perm
from stormwater.accounts.roles import Perm
from stormwater.rules.money import fmt

from . import services
from .selectors import (GROUPINGS, RateModelInputs, budget_summary, fiscal_year_of, rate_model_run,
                        receipts_by_period, receipts_total, revenue_vs_budget)


class InputError(ValueError):
    pass


def _body(request) -> dict:
    try:
        p = json.loads(request.body or b"null")
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise InputError(f"input: not valid JSON ({e})") from None
    if not isinstance(p, dict):
        raise InputError("input: expected one JSON object")
    return p


def _allowed(p: dict, fields: set[str]) -> None:
    unknown = sorted(set(p) - fields)
    if unknown:
        raise InputError(f"unknown field{'s' if len(unknown) > 1 else ''}: {', '.join(unknown)}")


def _dec(p: dict, key: str, default=None, *, required=False) -> Decimal | None:
    if key not in p or p[key] is None:
        if required:
            raise InputError(f"{key}: required")
        return default
    if isinstance(p[key], bool):
        raise InputError(f"{key}: a number is required")
    try:
        d = Decimal(str(p[key]))
    except InvalidOperation:
        raise InputError(f"{key}: {p[key]!r} is not a number") from None
    if not d.is_finite():
        raise InputError(f"{key}: {p[key]!r} is not a finite number")
    return d


def _date(p: dict, key: str, default=None, *, required=False) -> date | None:
    if key not in p or p[key] in (None, ""):
        if required:
            raise InputError(f"{key}: required (YYYY-MM-DD)")
        return default
    try:
        return date.fromisoformat(str(p[key]))
    except ValueError:
        raise InputError(f"{key}: expected YYYY-MM-DD") from None


def _int(p: dict, key: str, default=None, *, required=False) -> int | None:
    if key not in p or p[key] is None:
        if required:
            raise InputError(f"{key}: required")
        return default
    if isinstance(p[key], bool) or not isinstance(p[key], (int, str)):
        raise InputError(f"{key}: a whole number is required")
    try:
        return int(p[key])
    except ValueError:
        raise InputError(f"{key}: a whole number is required") from None


def _str(p: dict, key: str, *, required=True, default="") -> str:
    v = p.get(key)
    if v is None or (isinstance(v, str) and not v.strip()):
        if required:
            raise InputError(f"{key}: required")
        return default
    if not isinstance(v, str):
        raise InputError(f"{key}: text is required")
    return v


def _err(e: Exception, status: int = 400) -> JsonResponse:
    return JsonResponse({"error": str(e)}, status=status)


@require_perm(Perm.FUND_VIEW, api=True)
def api_fund_budget(request, fy: int):
    """GET /api/fund/<fy>/: the year's budget lines, other revenue, reserve use and what the fee must raise."""
    if not 2000 <= fy <= 2100:
        return _err(InputError("fiscal_year: expected a year between 2000 and 2100"), 404)
    return JsonResponse(budget_summary(fy).as_json())


LINE_FIELDS = {"category", "allowed_use", "description", "amount"}
REVENUE_FIELDS = {"kind", "source", "amount", "dated", "received", "notes"}


@require_POST
@require_perm(Perm.FUND_BUDGET, api=True)
def api_fund_line_create(request, fy: int):
    """POST /api/fund/<fy>/lines/ {category, allowed_use, description, amount} → 201 and the line."""
    try:
        p = _body(request)
        _allowed(p, LINE_FIELDS)
        line = services.budget_line_create(
            fiscal_year=fy, category=_str(p, "category"), allowed_use=_str(p, "allowed_use"),
            description=_str(p, "description"), amount=_dec(p, "amount", required=True), acting_user=request.user)
    except ValueError as e:
        return _err(e)
    return JsonResponse({"id": line.pk, "fiscal_year": fy, "category": line.category,
                         "allowed_use": line.allowed_use, "description": line.description,
                         "amount": fmt(line.amount)}, status=201)


@require_POST
@require_perm(Perm.FUND_BUDGET, api=True)
def api_fund_revenue_create(request, fy: int):
    """POST /api/fund/<fy>/other-revenue/ {kind, source, amount, dated, received?, notes?} → 201."""
    try:
        p = _body(request)
        _allowed(p, REVENUE_FIELDS)
        received = p.get("received", False)
        if not isinstance(received, bool):
            raise InputError("received: true or false")
        rev = services.other_revenue_create(
            fiscal_year=fy, kind=_str(p, "kind"), source=_str(p, "source"), amount=_dec(p, "amount", required=True),
            dated=_date(p, "dated", required=True), received=received, notes=_str(p, "notes", required=False),
            acting_user=request.user)
    except ValueError as e:
        return _err(e)
    return JsonResponse({"id": rev.pk, "fiscal_year": fy, "kind": rev.kind, "source": rev.source,
                         "amount": fmt(rev.amount), "dated": str(rev.dated), "received": rev.received}, status=201)


MODEL_FIELDS = {"fiscal_year", "base_as_of", "budget", "other_revenue", "reserve_use", "collection_rate_percent",
                "credit_allowance_percent", "flat_ratio", "sample_erus"}
ADOPT_FIELDS = {"label", "adopted_on", "effective_from", "rate_per_eru", "installments", "interest_rate_percent",
                "demand_charge", "notes"}


def _model_inputs(p: dict) -> RateModelInputs:
    erus = p.get("sample_erus", [5, 20, 60, 200])
    if not isinstance(erus, list) or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 1
                                             for x in erus) or len(erus) > 12:
        raise InputError("sample_erus: a list of up to 12 whole numbers ≥ 1")
    for key in ("budget", "other_revenue", "reserve_use"):
        if (_dec(p, key) or 0) < 0:
            raise InputError(f"{key}: must not be negative")
    fy = _int(p, "fiscal_year", required=True)
    if not 2000 <= fy <= 2100:
        raise InputError("fiscal_year: expected a year between 2000 and 2100")
    return RateModelInputs(
        fiscal_year=fy, base_as_of=_date(p, "base_as_of", date.today()),
        budget=_dec(p, "budget"), other_revenue=_dec(p, "other_revenue"), reserve_use=_dec(p, "reserve_use"),
        collection_rate_percent=_dec(p, "collection_rate_percent", Decimal(100)),
        credit_allowance_percent=_dec(p, "credit_allowance_percent", Decimal(0)),
        flat_ratio=_dec(p, "flat_ratio", Decimal(1)), sample_erus=tuple(erus))


def run_json(run) -> dict:
    return {"fiscal_year": run.inputs.fiscal_year, "base_as_of": str(run.inputs.base_as_of),
            "eru_sqft": str(run.terms.eru_sqft), "terms_source": run.terms_source,
            "blocks": [{"first_eru": b.first_eru, "last_eru": b.last_eru, "coefficient": str(b.coefficient)}
                       for b in run.terms.blocks],
            **run.solution.as_json(), "sample_bills": [s.as_json() for s in run.samples]}


@require_POST
@require_perm(Perm.FUND_VIEW, api=True)
def api_fund_rate_model(request):
    """POST /api/fund/rate-model {fiscal_year, …} → the solved rate, revenue by class and block, sample bills."""
    try:
        p = _body(request)
        _allowed(p, MODEL_FIELDS)
        run = rate_model_run(inputs=_model_inputs(p))
    except ValueError as e:
        return _err(e)
    return JsonResponse(run_json(run))


@require_POST
@require_perm(Perm.RATES_ADOPT, api=True)
def api_fund_rate_adopt(request):
    """POST /api/fund/rate-model/adopt {model: {...}, adoption: {label, adopted_on, effective_from, …}} → 201."""
    try:
        p = _body(request)
        _allowed(p, {"model", "adoption"})
        m, a = p.get("model"), p.get("adoption")
        if not isinstance(m, dict) or not isinstance(a, dict):
            raise InputError("model and adoption: two JSON objects are required")
        _allowed(m, MODEL_FIELDS)
        _allowed(a, ADOPT_FIELDS)
        adoption = services.Adoption(
            label=_str(a, "label"), adopted_on=_date(a, "adopted_on", date.today()),
            effective_from=_date(a, "effective_from", required=True), installments=_int(a, "installments", 1),
            interest_rate_percent=_dec(a, "interest_rate_percent", Decimal(12)),
            demand_charge=_dec(a, "demand_charge", Decimal(25)), rate_per_eru=_dec(a, "rate_per_eru"),
            notes=_str(a, "notes", required=False))
        res = services.rate_model_adopt(model_inputs=_model_inputs(m), adoption=adoption, acting_user=request.user)
    except ValueError as e:
        return _err(e)
    return JsonResponse({"resolution_id": res.pk, "label": res.label, "effective_from": str(res.effective_from),
                         "rate_per_eru": fmt(res.rate_per_eru), "small_residential_rate": fmt(res.small_residential_rate),
                         "eru_sqft": str(res.eru_sqft)}, status=201)


@require_GET
@require_perm(Perm.FUND_VIEW, api=True)
def api_fund_receipts(request):
    """GET /api/fund/reports/receipts?start=&end=&grouping=month|quarter|fiscal_year|day"""
    try:
        q = request.GET
        today = date.today()
        start = _date(q, "start", date(fiscal_year_of(today) - 1, 7, 1))
        end = _date(q, "end", today)
        grouping = q.get("grouping", "month")
        if grouping not in GROUPINGS:
            raise InputError(f"grouping: expected one of {', '.join(GROUPINGS)}")
        periods = receipts_by_period(start, end, grouping)
    except ValueError as e:
        return _err(e)
    return JsonResponse({"start": str(start), "end": str(end), "grouping": grouping,
                         "total": fmt(receipts_total(start, end)),
                         "periods": [{"label": p.label, "start": str(p.start), "end": str(p.end),
                                      "receipts": fmt(p.receipts), "payment_entries": p.payments,
                                      "reversal_entries": p.reversals} for p in periods]})


@require_GET
@require_perm(Perm.FUND_VIEW, api=True)
def api_fund_revenue_vs_budget(request):
    """GET /api/fund/reports/revenue-vs-budget?fy=2027&as_of=2027-03-31"""
    try:
        q = request.GET
        today = date.today()
        fy = _int(q, "fy", fiscal_year_of(today))
        if not 2000 <= fy <= 2100:
            raise InputError("fy: expected a year between 2000 and 2100")
        as_of = _date(q, "as_of", today)
        rvb = revenue_vs_budget(fy, as_of=as_of)
    except ValueError as e:
        return _err(e)
    return JsonResponse({"fiscal_year": fy, "as_of": str(as_of), "budget": fmt(rvb.summary.total),
                         "billed": fmt(rvb.billed), "budgeted_total": fmt(rvb.budgeted_total),
                         "actual_total": fmt(rvb.actual_total),
                         "rows": [{"source": r.source, "budgeted": fmt(r.budgeted),
                                   "actual": None if r.actual is None else fmt(r.actual),
                                   "percent": None if r.percent is None else str(r.percent), "note": r.note}
                                  for r in rvb.rows]})
