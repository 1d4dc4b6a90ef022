"""JSON API of the workbench: the state of every item of a permit file, and findings posted in bulk."""
from __future__ import annotations

from django.http import JsonResponse
from django.views.decorators.http import require_http_methods

from stormwater.accounts.access import require_perm
from stormwater.accounts.roles import Perm
from stormwater.cases.services import TransitionError
from stormwater.permits.selectors import permit_get_for_user
from stormwater.web.jsonapi import BadInput, json_object

from . import selectors, services


def _state_json(s) -> dict:
    f = s.finding
    return {"paragraph": "§ " + s.entry.para, "key": s.entry.key, "checklist": s.entry.checklist, "text": s.entry.text,
            "state": s.state, "label": s.label,
            "finding": None if f is None else {
                "finding": f.finding, "reason": f.reason, "mitigation": f.mitigation, "comment": f.comment,
                "document": f.document_id, "page": f.page, "condition": f.condition,
                "reviewer": f.reviewer.username if f.reviewer else None, "at": f.at.isoformat()},
            "request": None if s.raised is None else {"id": s.raised.request_id,
                                                      "requested_on": s.raised.request.requested_on.isoformat(),
                                                      "responded_on": (s.raised.request.responded_on.isoformat()
                                                                       if s.raised.request.responded_on else None)},
            "waivers": [w.case.number for w in s.waivers],
            "review_rows": [{"key": r["key"], "status": r["status"], "provision": r["provision"]}
                            for r in s.review_rows]}


@require_perm(api=True)
def api_workbench(request, number: str):
    app = permit_get_for_user(user=request.user, number=number)
    wb = selectors.workbench_for(app)
    g = wb["glance"]
    return JsonResponse({
        "number": app.case.number, "status": app.case.status,
        "glance": {"items": g.items, "not_reviewed": g.not_reviewed, "open_deficiencies": g.open_deficiencies,
                   "requested": g.requested, "requests_outstanding": g.requests_outstanding,
                   "days_left": g.days_left, "due": g.clock.due.isoformat() if g.clock and g.clock.due else None},
        "items": [_state_json(s) for s in wb["states"].values()],
        "engineering_review": wb["review"].pk if wb["review"] else None})


# Not csrf_exempt: it acts with the signed-in session, so a foreign page must not drive it.
@require_http_methods(["POST"])
@require_perm(Perm.PERMIT_REVIEW, api=True)
def api_workbench_findings(request, number: str):
    """Body: {"findings": [{"para": "380-12 A(3)(c)[6]", "finding": "deficient", "comment": "…", "page": "C-2"}]}."""
    app = permit_get_for_user(user=request.user, number=number)
    try:
        body = json_object(request)
        rows = body.get("findings")
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            raise BadInput("findings: a list of {para, finding, reason?, mitigation?, comment?, document?, page?, "
                           "condition?}")
        docs = {d.pk: d for d in app.case.documents.all()}
        for i, r in enumerate(rows):
            for key in ("para", "finding"):
                if not isinstance(r.get(key), str):
                    raise BadInput(f"findings[{i}].{key}: required, text")
            for key in ("reason", "mitigation", "comment", "page", "condition"):
                if r.get(key) is not None and not isinstance(r[key], str):
                    raise BadInput(f"findings[{i}].{key}: must be text")
            doc = r.get("document")
            if doc is not None and (isinstance(doc, bool) or not isinstance(doc, int)):
                raise BadInput(f"findings[{i}].document: a document id")
            r["document"] = docs.get(doc) if doc else None
        made = services.item_findings_record(application=app, findings=rows, acting_user=request.user)
    except (ValueError, KeyError, TypeError, TransitionError) as e:
        return JsonResponse({"error": str(e)}, status=400)
    return JsonResponse({"recorded": [{"paragraph": "§ " + f.para, "finding": f.finding, "id": f.pk} for f in made]},
                        status=201)
