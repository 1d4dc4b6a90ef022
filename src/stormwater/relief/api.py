"""JSON API of relief. Money as strings with two decimals; errors as {"error": ...}. Cases are reached
through ``relief_case_get_for_user`` like the pages; the deadline calculator is public (it computes from
what is sent and reads no records)."""
from __future__ import annotations

from django.http import JsonResponse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from stormwater.accounts.access import public, require_perm
from stormwater.accounts.roles import Perm
from stormwater.cases.selectors import case_clocks
from stormwater.cases.services import TransitionError
from stormwater.parcels.selectors import parcel_get_for_user
from stormwater.rules.money import fmt
from stormwater.utility.selectors import bill_get_for_user
from stormwater.web.jsonapi import BadInput, api_errors, form_fields, json_object, text_field

from . import actions
from . import services as sv
from . import workflow as wf
from .models import CreditType
from .selectors import detail_of, late_met, policy_in_force, relief_case_get_for_user, relief_cases_for_user, work_queue


_errors = api_errors(TransitionError)


def clock_json(cv) -> dict:
    c, st = cv.clock, cv.state
    return {"kind": c.kind, "label": c.label, "citation": c.citation, "who_acts": wf.clock_party(c.kind),
            "start": str(c.start), "due": str(st.due) if st.due else None, "days_left": cv.days_left,
            "standing": cv.standing.value, "met_on": str(c.met_on) if c.met_on else None, "met_late": late_met(cv)}


def case_json(case, *, detail: bool = False) -> dict:
    d = detail_of(case)
    out = {"number": case.number, "kind": case.kind, "status": case.status, "status_label": case.status_label,
           "title": case.title, "filed_on": str(case.filed_on) if case.filed_on else None,
           "parent": case.parent.number if case.parent_id else None,
           "clocks": [clock_json(cv) for cv in case_clocks(case)]}
    if case.kind == wf.CREDIT:
        out.update({"parcel": d.parcel.parcel_id, "credit": d.credit_type.code, "requested_percent": str(d.requested_percent),
                    "decision": d.decision or None, "granted_percent": str(d.granted_percent) if d.granted_percent is not None
                    else None, "grants": [{"percent": str(g.percent), "effective_from": str(g.effective_from),
                                           "expires_on": str(g.expires_on) if g.expires_on else None,
                                           "recertify_by": str(g.recertify_by) if g.recertify_by else None,
                                           # the owner's last day: recertify_by rolled forward (MGL c.4 §9)
                                           "recertify_due": str(g.recertify_due) if g.recertify_by else None,
                                           "revoked_on": str(g.revoked_on) if g.revoked_on else None,
                                           "granted_by": g.granted_by} for g in d.grants.all()]})
    elif case.kind == wf.ABATEMENT:
        out.update({"bill": d.bill.number, "grounds": d.grounds, "amount_requested": fmt(d.amount_requested),
                    "disposition": d.disposition, "decision": d.decision or None,
                    "amount_granted": fmt(d.amount_granted) if d.amount_granted is not None else None})
    else:
        out.update({"subject": d.subject, "grounds": d.grounds, "bill": d.bill.number if d.bill_id else None,
                    "hearing_at": d.hearing_at.isoformat() if d.hearing_at else None, "place": d.hearing_place,
                    "notice_sent_on": str(d.notice_sent_on) if d.notice_sent_on else None,
                    "outcome": d.outcome or None,
                    "amount_abated": fmt(d.amount_abated) if d.amount_abated is not None else None,
                    "credit_percent": str(d.credit_percent) if d.credit_percent is not None else None})
    if detail:
        out["documents"] = [{"id": x.pk, "tag": x.tag, "title": x.title, "generated": x.generated,
                             "content_type": x.content_type} for x in case.documents.all()]
        out["events"] = [{"on": str(e.on), "kind": e.kind, "from": e.from_status, "to": e.to_status, "why": e.why}
                         for e in case.events.all()]
    return out


@require_perm(api=True)
@require_GET
def api_relief_list(request):
    return JsonResponse({"cases": [case_json(c) for c in relief_cases_for_user(request.user)[:500]]})


@require_perm(api=True)
@require_GET
def api_relief_detail(request, number: str):
    return JsonResponse(case_json(relief_case_get_for_user(user=request.user, number=number), detail=True))


@require_perm(Perm.RELIEF_VIEW_ALL, api=True)
@require_GET
def api_relief_queue(request):
    """Every running clock of an open relief case, due first; Town deadlines missed are flagged."""
    return JsonResponse({"today": str(timezone.localdate()), "queue": [
        {"case": r.case.number, "kind": r.case.kind, "status": r.case.status, **clock_json(r.view),
         "missed": r.missed, "lapsed": r.lapsed} for r in work_queue()]})


@require_perm(Perm.RELIEF_APPLY, api=True)
@require_POST
@_errors
def api_abatement_apply(request):
    """POST {bill, grounds: [...], statement, amount, disposition: refund|credit}."""
    p = json_object(request)
    bill = bill_get_for_user(user=request.user, number=str(p.get("bill", "")))
    ab = sv.abatement_apply(bill=bill, grounds=list(p.get("grounds") or []), statement=text_field(p, "statement"),
                            amount_requested=actions.parse_money(p.get("amount"), "amount") or 0,
                            disposition=p.get("disposition", "refund"), acting_user=request.user)
    return JsonResponse(case_json(ab.case, detail=True), status=201)


@require_perm(Perm.RELIEF_APPLY, api=True)
@require_POST
@_errors
def api_credit_apply(request):
    """POST {parcel_id, credit (code of the policy in force), statement}; documents are uploaded on the page."""
    p = json_object(request)
    parcel = parcel_get_for_user(user=request.user, parcel_id=str(p.get("parcel_id", "")))
    policy = policy_in_force(timezone.localdate())
    ctype = CreditType.objects.filter(policy=policy, code=p.get("credit")).first() if policy else None
    if ctype is None:
        raise BadInput(f"credit: no credit {p.get('credit')!r} in the policy in force")
    app = sv.credit_apply(parcel=parcel, credit_type=ctype, statement=text_field(p, "statement"),
                          acting_user=request.user)
    return JsonResponse(case_json(app.case, detail=True), status=201)


@require_perm(api=True)
@require_POST
@_errors
def api_relief_act(request, number: str, action: str):
    """POST one act on a case (``actions.ACTIONS``) with its fields; the act's own permission applies."""
    case = relief_case_get_for_user(user=request.user, number=number)
    out = actions.act(case=case, name=action, params=form_fields(json_object(request)), user=request.user)
    case = out.case if action == "appeal" else case
    case.refresh_from_db()
    return JsonResponse(case_json(case, detail=True), status=201 if action == "appeal" else 200)


@public
@csrf_exempt
@require_POST
def api_calc_deadline(request):
    """POST {clock, start} (+ hearing_date for hearing_notice_latest) → {due, rule, …} (rules.deadlines)."""
    from stormwater.utility.api import _calc

    from .calc import calc_deadline

    return _calc(calc_deadline, request)
