"""JSON API of the Stormwater Management Account. Money in and out as strings with 2 decimals."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

from django.http import JsonResponse
from django.views.decorators.http import require_GET, require_POST

from stormwater.accounts.access import require_perm
from stormwater.accounts.roles import Perm
from stormwater.rules.money import fmt
from stormwater.web.jsonapi import (BadInput, api_errors, date_field, decimal_field, int_field, json_object,
                                      only_fields, text_field)

from . import services
from .selectors import (GROUPINGS, RateModelInputs, budget_summary, fiscal_year_of, rate_model_run,
                        receipts_by_period, receipts_total, revenue_vs_budget)


_errors = api_errors()


@require_perm(Perm.FUND_VIEW, api=True)
def api_fund_budget(request, fy: int):
    """GET /api/fund/<fy>/: the year's budget lines, other revenue, reserve use and what the fee must raise."""
    if not 2000 <= fy <= 2100:
        return JsonResponse({"error": "fiscal_year: expected a year between 2000 and 2100"}, status=404)
    return JsonResponse(budget_summary(fy).as_json())


LINE_FIELDS = {"category", "allowed_use", "description", "amount"}
REVENUE_FIELDS = {"kind", "source", "amount", "dated", "received", "notes"}


@require_POST
@require_perm(Perm.FUND_BUDGET, api=True)
@_errors
def api_fund_line_create(request, fy: int):
    """POST /api/fund/<fy>/lines/ {category, allowed_use, description, amount} → 201 and the line."""
    p = json_object(request)
    only_fields(p, LINE_FIELDS)
    line = services.budget_line_create(
        fiscal_year=fy, category=text_field(p, "category", required=True),
        allowed_use=text_field(p, "allowed_use", required=True),
        description=text_field(p, "description", required=True),
        amount=decimal_field(p, "amount", required=True), acting_user=request.user)
    return JsonResponse({"id": line.pk, "fiscal_year": fy, "category": line.category,
                         "allowed_use": line.allowed_use, "description": line.description,
                         "amount": fmt(line.amount)}, status=201)


@require_POST
@require_perm(Perm.FUND_BUDGET, api=True)
@_errors
def api_fund_revenue_create(request, fy: int):
    """POST /api/fund/<fy>/other-revenue/ {kind, source, amount, dated, received?, notes?} → 201."""
    p = json_object(request)
    only_fields(p, REVENUE_FIELDS)
    received = p.get("received", False)
    if not isinstance(received, bool):
        raise BadInput("received: true or false")
    rev = services.other_revenue_create(
        fiscal_year=fy, kind=text_field(p, "kind", required=True), source=text_field(p, "source", required=True),
        amount=decimal_field(p, "amount", required=True), dated=date_field(p, "dated"), received=received,
        notes=text_field(p, "notes"), acting_user=request.user)
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
        raise BadInput("sample_erus: a list of up to 12 whole numbers ≥ 1")
    for key in ("budget", "other_revenue", "reserve_use"):
        if (decimal_field(p, key) or 0) < 0:
            raise BadInput(f"{key}: must not be negative")
    fy = int_field(p, "fiscal_year")
    if not 2000 <= fy <= 2100:
        raise BadInput("fiscal_year: expected a year between 2000 and 2100")
    return RateModelInputs(
        fiscal_year=fy, base_as_of=date_field(p, "base_as_of", date.today()),
        budget=decimal_field(p, "budget"), other_revenue=decimal_field(p, "other_revenue"),
        reserve_use=decimal_field(p, "reserve_use"),
        collection_rate_percent=decimal_field(p, "collection_rate_percent", Decimal(100)),
        credit_allowance_percent=decimal_field(p, "credit_allowance_percent", Decimal(0)),
        flat_ratio=decimal_field(p, "flat_ratio", Decimal(1)), sample_erus=tuple(erus))


def run_json(run) -> dict:
    return {"fiscal_year": run.inputs.fiscal_year, "base_as_of": str(run.inputs.base_as_of),
            "eru_sqft": str(run.terms.eru_sqft), "terms_source": run.terms_source,
            "blocks": [{"first_eru": b.first_eru, "last_eru": b.last_eru, "coefficient": str(b.coefficient)}
                       for b in run.terms.blocks],
            **run.solution.as_json(), "sample_bills": [s.as_json() for s in run.samples]}


@require_POST
@require_perm(Perm.FUND_VIEW, api=True)
@_errors
def api_fund_rate_model(request):
    """POST /api/fund/rate-model {fiscal_year, …} → the solved rate, revenue by class and block, sample bills."""
    p = json_object(request)
    only_fields(p, MODEL_FIELDS)
    run = rate_model_run(inputs=_model_inputs(p))
    return JsonResponse(run_json(run))


@require_POST
@require_perm(Perm.RATES_ADOPT, api=True)
@_errors
def api_fund_rate_adopt(request):
    """POST /api/fund/rate-model/adopt {model: {...}, adoption: {label, adopted_on, effective_from, …}} → 201."""
    p = json_object(request)
    only_fields(p, {"model", "adoption"})
    m, a = p.get("model"), p.get("adoption")
    if not isinstance(m, dict) or not isinstance(a, dict):
        raise BadInput("model and adoption: two JSON objects are required")
    only_fields(m, MODEL_FIELDS)
    only_fields(a, ADOPT_FIELDS)
    adoption = services.Adoption(
        label=text_field(a, "label", required=True), adopted_on=date_field(a, "adopted_on", date.today()),
        effective_from=date_field(a, "effective_from"), installments=int_field(a, "installments", 1),
        interest_rate_percent=decimal_field(a, "interest_rate_percent", Decimal(12)),
        demand_charge=decimal_field(a, "demand_charge", Decimal(25)), rate_per_eru=decimal_field(a, "rate_per_eru"),
        notes=text_field(a, "notes"))
    res = services.rate_model_adopt(model_inputs=_model_inputs(m), adoption=adoption, acting_user=request.user)
    return JsonResponse({"resolution_id": res.pk, "label": res.label, "effective_from": str(res.effective_from),
                         "rate_per_eru": fmt(res.rate_per_eru), "small_residential_rate": fmt(res.small_residential_rate),
                         "eru_sqft": str(res.eru_sqft)}, status=201)


@require_GET
@require_perm(Perm.FUND_VIEW, api=True)
@_errors
def api_fund_receipts(request):
    """GET /api/fund/reports/receipts?start=&end=&grouping=month|quarter|fiscal_year|day"""
    q = request.GET
    today = date.today()
    start = date_field(q, "start", date(fiscal_year_of(today) - 1, 7, 1))
    end = date_field(q, "end", today)
    grouping = q.get("grouping", "month")
    if grouping not in GROUPINGS:
        raise BadInput(f"grouping: expected one of {', '.join(GROUPINGS)}")
    periods = receipts_by_period(start, end, grouping)
    return JsonResponse({"start": str(start), "end": str(end), "grouping": grouping,
                         "total": fmt(receipts_total(start, end)),
                         "periods": [{"label": p.label, "start": str(p.start), "end": str(p.end),
                                      "receipts": fmt(p.receipts), "payment_entries": p.payments,
                                      "reversal_entries": p.reversals} for p in periods]})


@require_GET
@require_perm(Perm.FUND_VIEW, api=True)
@_errors
def api_fund_revenue_vs_budget(request):
    """GET /api/fund/reports/revenue-vs-budget?fy=2027&as_of=2027-03-31"""
    q = request.GET
    today = date.today()
    fy = int_field(q, "fy", fiscal_year_of(today))
    if not 2000 <= fy <= 2100:
        raise BadInput("fy: expected a year between 2000 and 2100")
    as_of = date_field(q, "as_of", today)
    rvb = revenue_vs_budget(fy, as_of=as_of)
    return JsonResponse({"fiscal_year": fy, "as_of": str(as_of), "budget": fmt(rvb.summary.total),
                         "billed": fmt(rvb.billed), "budgeted_total": fmt(rvb.budgeted_total),
                         "actual_total": fmt(rvb.actual_total),
                         "rows": [{"source": r.source, "budgeted": fmt(r.budgeted),
                                   "actual": None if r.actual is None else fmt(r.actual),
                                   "percent": None if r.percent is None else str(r.percent), "note": r.note}
                                  for r in rvb.rows]})
