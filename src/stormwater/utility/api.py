"""JSON API of the utility. The calculators are public (they compute from what is sent, read no
records); everything else checks the role through ``require_perm`` and the access selectors."""
from __future__ import annotations

from datetime import date

from django.http import JsonResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from stormwater.accounts.access import public, require_perm
from stormwater.accounts.roles import Perm
from stormwater.rules.money import fmt
from stormwater.rules.town import demo_terms

from stormwater.web.jsonapi import BadInput, date_field, int_field, json_body, json_object, text_field

from .calc import CalcInputError, calc_fee, calc_split
from .billrun.common import ERR_MAY_NOT_ISSUE
from .models import BillRun, RunState
from .selectors import bill_get_for_user, resolution_in_force
from .services import (BillingError, BillRunResult, bill_run_approve, bill_run_discard, bill_run_issue,
                       bill_run_prepare, bill_run_prepare_later, bill_run_start, bill_run_void, fiscal_year)


def _calc(fn, request):
    """One calculator on the posted body (read by web.jsonapi: size, nesting, non-finite numbers checked)."""
    from stormwater.engineering.calc import CalcInputError as EngineeringInputError

    try:
        return JsonResponse(fn(json_body(request)))
    except BadInput as e:
        return JsonResponse({"error": str(e), **e.json_detail()}, status=400)
    except (CalcInputError, EngineeringInputError) as e:
        return JsonResponse({"error": str(e)}, status=400)


FISCAL_YEARS = (2000, 2100)  # a bill run's fiscal year: any other is a typo (the fund's API uses the same range)


def terms_today():
    res = resolution_in_force(date.today())
    return res.fee_terms() if res else demo_terms()


@public
@csrf_exempt
@require_POST
def api_calc_fee(request):
    return _calc(lambda p: calc_fee(p, terms=terms_today()), request)


@public
@csrf_exempt
@require_POST
def api_calc_interest(request):
    from decimal import Decimal

    from .calc import calc_interest

    res = resolution_in_force(date.today())
    rate = res.interest_rate_percent if res else Decimal(12)
    return _calc(lambda p: calc_interest(p, rate_percent=rate), request)


@public
@csrf_exempt
@require_POST
def api_calc_split(request):
    return _calc(calc_split, request)


ENGINEERING_CALCULATORS = {"runoff": "calc_runoff", "retention": "calc_retention", "noaa-plus": "calc_noaa_plus",
                           "peak": "calc_peak", "bmp": "calc_bmp"}


@public
@csrf_exempt
@require_POST
def api_calc_engineering(request, name: str):
    """POST /api/calc/runoff|retention|noaa-plus|peak|bmp: the engineering calculators (issue 7)."""
    from stormwater.engineering import calc as eng

    if name == "bmp":  # official BMP tables loaded by DPW first, RBEROST fits (provisional) last
        from stormwater.review.selectors import performance_tables_in_force

        return _calc(lambda p: eng.calc_bmp(p, tables=performance_tables_in_force()[1]), request)
    return _calc(getattr(eng, ENGINEERING_CALCULATORS[name]), request)


def bill_json(bill) -> dict:
    return {"number": bill.number, "account": bill.account.number, "parcel_id": bill.parcel.parcel_id,
            "period_start": str(bill.period_start), "period_end": str(bill.period_end),
            "issue_date": str(bill.issue_date), "owner_name": bill.owner_name,
            "mailing_address": bill.mailing_address, "property_class": bill.property_class,
            "impervious_sqft": str(bill.impervious_sqft), "erus": bill.erus, "gross_fee": fmt(bill.gross_fee),
            "share_percent": str(bill.share_percent) if bill.share_percent is not None else None,
            "amount": fmt(bill.amount), "blocks": bill.blocks, "explanation": bill.explanation,
            "installments": [{"seq": i.seq, "amount": fmt(i.amount), "issue_date": str(i.issue_date),
                              "due_date": str(i.due_date)} for i in bill.installments.all()]}


@require_perm(api=True)
def api_bill_detail(request, number: str):
    return JsonResponse(bill_json(bill_get_for_user(user=request.user, number=number)))


@require_POST
@require_perm(Perm.BILLING_RUN, api=True)
def api_bill_run_issue(request):
    """POST {"fiscal_year": 2027, "issue_date": "2026-09-15"} → the run's summary: issued in one step (a
    Collector or the Director). With "proof": true, the proof only (anyone who prepares runs): 201 with
    "state": "proof", approved later with POST /api/bill-runs/<id>/approve/ (issue 16). With "background": true
    as well, 202 at once with the run ("preparing") and the job preparing it (issue 15)."""
    try:
        p = json_object(request)
        proof = p.get("proof", False)
        if not isinstance(proof, bool):
            raise BadInput("proof: true or false")
        if not proof and not request.user.can(Perm.BILLING_APPROVE):
            return JsonResponse({"error": ERR_MAY_NOT_ISSUE + ' Send "proof": true to prepare one.'}, status=403)
        if p.get("fiscal_year") in (None, ""):
            raise BadInput("fiscal_year: required, e.g. 2027")
        fy = int_field(p, "fiscal_year", lo=FISCAL_YEARS[0], hi=FISCAL_YEARS[1])
        issue = date_field(p, "issue_date", date.today())
        background = p.get("background", False)
        if not isinstance(background, bool):
            raise BadInput("background: true or false")
        if background and not proof:
            raise BadInput('background: only a proof is prepared in the background (send "proof": true)')
        label, start, end = fiscal_year(fy)
        if background:
            return _proof_later(label, start, end, issue, request.user)
        if proof:
            result = _proof(label, start, end, issue, request.user)
        else:
            result = bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=issue,
                                    acting_user=request.user)
    except (BadInput, BillingError) as e:
        return JsonResponse({"error": str(e)}, status=400)
    return JsonResponse(result.as_json(), status=201 if result.run else 200)


def _proof(label, start, end, issue, user) -> BillRunResult:
    run, created = bill_run_start(period_label=label, period_start=start, period_end=end, issue_date=issue,
                                  acting_user=user)
    if not created and run.state == RunState.PROOF:
        return BillRunResult(run=None, message=f"A proof of {run.period_label} is already waiting for approval "
                                               f"(run {run.pk}).")
    return bill_run_prepare(run=run, acting_user=user)


def _proof_later(label, start, end, issue, user) -> JsonResponse:
    """The proof handed to the background worker: 202 with the run and its job (poll the job's url)."""
    from stormwater.jobs.selectors import job_json

    run, _ = bill_run_start(period_label=label, period_start=start, period_end=end, issue_date=issue,
                            acting_user=user)
    if run.state != RunState.PREPARING:
        return JsonResponse(BillRunResult(run=None, message=(
            f"A proof of {run.period_label} is already waiting for approval (run {run.pk}).")).as_json())
    job, _ = bill_run_prepare_later(run=run, acting_user=user)
    return JsonResponse({"run_id": run.pk, "state": run.state, "job": job_json(job, log_lines=0),
                         "message": f"The proof of {run.period_label} is being prepared in the background."},
                        status=202)


def run_json(run: BillRun) -> dict:
    who = lambda u: u.username if u else None  # noqa: E731
    return {"id": run.pk, "period_label": run.period_label, "period_start": str(run.period_start),
            "period_end": str(run.period_end), "issue_date": str(run.issue_date),
            "resolution": str(run.resolution), "bills": run.bill_count, "total": fmt(run.total_billed),
            "state": run.state, "prepared_by": who(run.created_by), "approved_by": who(run.approved_by),
            "approved_at": run.approved_at.isoformat() if run.approved_at else None,
            "mailed_on": str(run.mailed_on) if run.mailed_on else None,
            "voided_by": who(run.voided_by), "void_reason": run.void_reason or None, "proof": run.summary or None,
            "problems": [{"parcel_id": e.parcel.parcel_id, "message": e.message}
                         for e in run.exceptions.select_related("parcel").order_by("parcel__parcel_id")]}


@require_perm(Perm.BILLING_VIEW_ALL, api=True)
def api_bill_run_detail(request, run_id: int):
    return JsonResponse(run_json(get_object_or_404(BillRun, pk=run_id)))


def _run_act(request, run_id: int, act, *, reason: bool = False):
    """POST one act on a run → the run as JSON (200), or 400 with why it was refused."""
    run = get_object_or_404(BillRun, pk=run_id)
    try:
        p = json_object(request) if request.body and request.content_type == "application/json" else {}
        act(run, text_field(p, "reason"))
    except (BadInput, BillingError) as e:
        return JsonResponse({"error": str(e)}, status=400)
    return JsonResponse(run_json(BillRun.objects.get(pk=run.pk)))


@require_POST
@require_perm(Perm.BILLING_APPROVE, api=True)
def api_bill_run_approve(request, run_id: int):
    """POST /api/bill-runs/<id>/approve/ → the proof issued (a second call: already issued, nothing again)."""
    return _run_act(request, run_id, lambda run, _: bill_run_approve(run=run, acting_user=request.user))


@require_POST
@require_perm(Perm.BILLING_APPROVE, api=True)
def api_bill_run_void(request, run_id: int):
    """POST /api/bill-runs/<id>/void/ {"reason": "…"} → the run voided by reversing entries (before mailing)."""
    return _run_act(request, run_id, lambda run, why: bill_run_void(run=run, reason=why, acting_user=request.user))


@require_POST
@require_perm(Perm.BILLING_RUN, api=True)
def api_bill_run_discard(request, run_id: int):
    """POST /api/bill-runs/<id>/discard/ {"reason": "…"} → the proof set aside (its bills removed)."""
    return _run_act(request, run_id,
                    lambda run, why: bill_run_discard(run=run, reason=why, acting_user=request.user))
