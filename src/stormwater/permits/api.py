"""JSON API of permits. The applicability calculator is public (it computes from what is sent and reads no
records); the files are reached through ``permit_get_for_user`` like the web pages."""
from __future__ import annotations

import json
from datetime import date
from decimal import Decimal, InvalidOperation

from django.http import JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from stormwater.accounts.access import public, require_perm
from stormwater.rules.applicability import OtherWork, determine, to_sqft
from stormwater.rules.money import fmt

from .selectors import account_of, permit_clocks, permit_get_for_user, permits_for_user


def clock_json(cv) -> dict:
    c, st = cv.clock, cv.state
    return {"kind": c.kind, "label": c.label, "citation": c.citation, "start": str(c.start), "length": c.length,
            "unit": c.unit, "extended_by": st.extended_by, "tolled_days": st.tolled_days,
            "tolls": [{"first": str(t.first), "last": str(t.last) if t.last else None, "reason": t.reason}
                      for t in st.tolls],
            "extensions": [{"days": e.days, "reason": e.reason} for e in st.extensions],
            "due": str(st.due) if st.due else None, "stopped_since": str(st.stopped_since) if st.stopped_since else None,
            "remaining_when_stopped": st.remaining_when_stopped, "standing": cv.standing.value,
            "met_on": str(c.met_on) if c.met_on else None}


def permit_json(app, *, detail: bool = False) -> dict:
    case = app.case
    out = {"number": case.number, "status": case.status, "status_label": case.status_label,
           "site_address": app.site_address, "permittee": app.owner_name, "agent": app.agent_name,
           "disturbance_sqft": str(app.disturbance_sqft), "filed_on": str(case.filed_on) if case.filed_on else None,
           "clocks": [clock_json(cv) for cv in permit_clocks(app)]}
    if detail:
        out.update({
            "description": app.description, "determination": app.determination,
            "checklist": [{"key": i.key, "done": i.done, "satisfied_on": str(i.satisfied_on) if i.satisfied_on else None,
                           "not_applicable": i.not_applicable_reason} for i in app.checklist.all()],
            "fees": app.fees, "fees_total": fmt(app.fees_total) if app.fees_total is not None else None,
            "decision": app.decision or None, "decided_on": str(app.decided_on) if app.decided_on else None,
            "conditions": [c.text for c in app.conditions.all()],
            "account": ({k: fmt(v) for k, v in account_of(app).items()} if app.account_entries.exists() else None),
            "events": [{"on": str(e.on), "kind": e.kind, "from": e.from_status, "to": e.to_status, "why": e.why}
                       for e in case.events.all()],
        })
    return out


@require_perm(api=True)
def api_permit_list(request):
    return JsonResponse({"permits": [permit_json(a) for a in permits_for_user(request.user)[:500]]})


@require_perm(api=True)
def api_permit_detail(request, number: str):
    return JsonResponse(permit_json(permit_get_for_user(user=request.user, number=number), detail=True))


def _dec(v, field):
    try:
        return Decimal(str(v))
    except (InvalidOperation, ValueError):
        raise ValueError(f"{field}: not a number") from None


@public
@csrf_exempt
@require_POST
def api_permit_applicability(request):
    """POST {"disturbance_sqft" | "disturbance_acres", "on", "common_plan", "common_plan_total_sqft",
    "discharges_to_ms4", "exemption", "exemption_answers", "other_work": [...]}."""
    try:
        p = json.loads(request.body or b"{}")
        if not isinstance(p, dict):
            raise ValueError("input: a JSON object is required")
        sqft = to_sqft(acres=_dec(p["disturbance_acres"], "disturbance_acres") if "disturbance_acres" in p else None,
                       sqft=_dec(p["disturbance_sqft"], "disturbance_sqft") if "disturbance_sqft" in p else None)
        on = date.fromisoformat(p.get("on") or date.today().isoformat())
        other = [OtherWork(w.get("description", ""), _dec(w["disturbance_sqft"], "other_work.disturbance_sqft"),
                           date.fromisoformat(w["on"]), same_owner=bool(w.get("same_owner")),
                           adjacent_parcel=bool(w.get("adjacent_parcel")), common_plan=w.get("common_plan"),
                           impacts_cumulative=w.get("impacts_cumulative")) for w in p.get("other_work", [])]
        total = p.get("common_plan_total_sqft")
        det = determine(disturbance_sqft=sqft, on=on, common_plan=bool(p.get("common_plan")),
                        common_plan_total_sqft=_dec(total, "common_plan_total_sqft") if total is not None else None,
                        discharges_to_ms4=bool(p.get("discharges_to_ms4", True)), exemption=p.get("exemption"),
                        exemption_answers=p.get("exemption_answers") or {}, other_work=other)
    except (ValueError, KeyError, TypeError, json.JSONDecodeError) as e:
        return JsonResponse({"error": f"input: {e}"}, status=400)
    return JsonResponse(det.as_json())
