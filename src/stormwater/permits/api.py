"""JSON API of permits. The applicability calculator is public (it computes from what is sent and reads no
records); the files are reached through ``permit_get_for_user`` like the web pages.

The write endpoints are thin wrappers over ``services``: each takes the same permission and reaches the file
through the same selector as its web view (``permit_get_for_user``, or ``permit_get_for_applicant`` for the
applicant's acts), parses a JSON body (multipart for uploads) and calls one service. Bad input and a refusal
by a service answer 400 ``{"error": ...}``; someone else's file 404; a role or person who may not act 403.
Session-authenticated: clients send the CSRF token like the web forms."""
from __future__ import annotations

import json
from datetime import date
from decimal import Decimal

from django.core.exceptions import PermissionDenied
from django.http import Http404, JsonResponse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from stormwater.accounts.access import public, require_perm
from stormwater.accounts.roles import Perm
from stormwater.cases.services import DocumentError, TransitionError
from stormwater.receivables.online_fees import fees_paid_online
from stormwater.rules.applicability import OtherWork, determine, to_sqft
from stormwater.rules.money import fmt
from stormwater.web.jsonapi import (BadInput, amount, api_errors, date_field, int_field, json_object, only_fields,
                                    text_field)

from . import services
from .checklist import BY_KEY, OTHER_TAGS
from .models import PermitApplication
from .forms import MAX_EXTENSION_DAYS, ApplicationForm, DecisionForm
from .selectors import (account_of, approved_sheets_proposed, may_act_for_applicant, may_upload, party_json, permit_clocks,
                        permit_get_for_applicant, permit_get_for_user, permit_owner_for, permit_people,
                        permit_site_parcels, permits_for_user)


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
            "fees_paid_on": str(app.fees_paid_on) if app.fees_paid_on else None, "fees_receipt": app.fees_receipt,
            # issue 30: the fee paid online (receivables/online_fees.py), pending settlement or receipted
            "fees_paid_online": fees_paid_online(app),
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


MAX_SQFT = Decimal("1e10")  # about 230,000 acres, the size of a county: any larger disturbance is a typo


def _dec(v, field):
    return amount(v, field, limit=MAX_SQFT)


def _flag(v, field) -> bool | None:
    if v is not None and not isinstance(v, bool):
        raise BadInput(f"{field}: true, false or null")
    return v


def _other_work(rows) -> list[OtherWork]:
    """``other_work`` as a list of {description, disturbance_sqft, on, same_owner, adjacent_parcel, ...}."""
    if not isinstance(rows, list) or not all(isinstance(w, dict) for w in rows):
        raise BadInput("other_work: a list of objects")
    out = []
    for i, w in enumerate(rows):
        name = f"other_work[{i}]"
        if w.get("disturbance_sqft") is None:
            raise BadInput(f"{name}.disturbance_sqft: required")
        description = w.get("description") or ""
        if not isinstance(description, str):
            raise BadInput(f"{name}.description: must be text")
        out.append(OtherWork(description, _dec(w["disturbance_sqft"], f"{name}.disturbance_sqft"),
                             date_field(w, "on") if w.get("on") is not None else _required(f"{name}.on"),
                             same_owner=bool(_flag(w.get("same_owner"), f"{name}.same_owner")),
                             adjacent_parcel=bool(_flag(w.get("adjacent_parcel"), f"{name}.adjacent_parcel")),
                             common_plan=_flag(w.get("common_plan"), f"{name}.common_plan"),
                             impacts_cumulative=_flag(w.get("impacts_cumulative"), f"{name}.impacts_cumulative")))
    return out


def _required(name):
    raise BadInput(f"{name}: required (YYYY-MM-DD)")


@public
@csrf_exempt
@require_POST
def api_permit_applicability(request):
    """POST {"disturbance_sqft" | "disturbance_acres", "on", "common_plan", "common_plan_total_sqft",
    "discharges_to_ms4", "exemption", "exemption_answers", "other_work": [...]}."""
    try:
        p = json_object(request)
        acres, sqft = p.get("disturbance_acres"), p.get("disturbance_sqft")
        sqft = to_sqft(acres=_dec(acres, "disturbance_acres") if acres is not None else None,
                       sqft=_dec(sqft, "disturbance_sqft") if sqft is not None else None)
        if sqft >= MAX_SQFT:
            raise BadInput("disturbance_acres: must be less than 229,568 acres")
        on = date_field(p, "on", date.today())
        other = _other_work(p.get("other_work") or [])
        total = p.get("common_plan_total_sqft")
        exemption = p.get("exemption")
        if exemption is not None and not isinstance(exemption, str):
            raise BadInput("exemption: a letter A–H (§ 380-5)")
        answers = p.get("exemption_answers") or {}
        if not isinstance(answers, dict):
            raise BadInput("exemption_answers: an object of condition → true/false")
        det = determine(disturbance_sqft=sqft, on=on, common_plan=bool(_flag(p.get("common_plan"), "common_plan")),
                        common_plan_total_sqft=_dec(total, "common_plan_total_sqft") if total is not None else None,
                        discharges_to_ms4=_flag(p.get("discharges_to_ms4"), "discharges_to_ms4") is not False,
                        exemption=exemption or None, exemption_answers=answers, other_work=other)
    except BadInput as e:
        return JsonResponse({"error": str(e), **e.json_detail()}, status=400)
    except (ValueError, KeyError, TypeError) as e:
        return JsonResponse({"error": f"input: {e}"}, status=400)
    return JsonResponse(det.as_json())


# --- writes: thin wrappers over the services, the web views' access rules ---------------------------

_errors = api_errors(TransitionError, DocumentError)


def _lines(body, name: str) -> str:
    """Text, or a list of lines (conditions, requested items), as the web form's one-per-line text."""
    raw = body.get(name)
    if isinstance(raw, list):
        if not all(isinstance(x, str) for x in raw):
            raise BadInput(f"{name}: a list of text lines")
        return "\n".join(raw)
    return text_field(body, name)


def _form_error(form) -> BadInput:
    field, errs = next(iter(form.errors.items()))
    return BadInput(f"{'input' if field == '__all__' else field}: {' '.join(errs)}")


def _file(request, number: str, status: int = 200) -> JsonResponse:
    """The file as it stands after the act (re-read: the services lock and change their own copy)."""
    return JsonResponse(permit_json(permit_get_for_user(user=request.user, number=number), detail=True),
                        status=status)


@require_POST
@require_perm(Perm.PERMIT_APPLY, api=True)
@_errors
def api_permit_start(request):
    """POST {owner_name, owner_address, agent_name?, site_address, parcel_ids: [...], description, project_type,
    disturbance_sqft, common_plan?, other_work?: [...], wetlands_jurisdiction?, other_board_hearing?,
    planning_board?, autocad_plans?} → 201, the draft (as ``views.permit_new``)."""
    b = json_object(request)
    ids = b.get("parcel_ids") or []
    if isinstance(ids, str):
        ids = ids.split(",")
    if not isinstance(ids, list):
        raise BadInput("parcel_ids: a list of parcel ids")
    ids = [str(x).strip() for x in ids if str(x).strip()]
    form = ApplicationForm({**{k: v for k, v in b.items() if k not in ("parcel_ids", "other_work")},
                            "parcel_ids": ",".join(ids), "other_work": ""})
    if not form.is_valid():
        raise _form_error(form)
    d = form.cleaned_data
    parcels, unknown, foreign = permit_site_parcels(user=request.user, parcel_ids=ids)
    if unknown:
        raise BadInput(f"parcel_ids: unknown parcel ids: {', '.join(sorted(unknown))}")
    if foreign:
        raise BadInput(f"parcel_ids: no such parcel of yours: {', '.join(foreign)}")
    other = _other_work(b.get("other_work") or [])
    det = determine(disturbance_sqft=d["disturbance_sqft"], on=timezone.localdate(), common_plan=d["common_plan"],
                    other_work=other)
    app = services.permit_application_start(
        acting_user=request.user, owner=permit_owner_for(user=request.user, parcels=parcels),
        owner_name=d["owner_name"], owner_address=d["owner_address"], agent_name=d["agent_name"],
        site_address=d["site_address"], parcels=parcels, description=d["description"],
        project_type=d["project_type"], disturbance_sqft=d["disturbance_sqft"], determination=det,
        wetlands_jurisdiction=d["wetlands_jurisdiction"], other_board_hearing=d["other_board_hearing"],
        planning_board=d["planning_board"], autocad_plans=d["autocad_plans"])
    return _file(request, app.case.number, status=201)


@require_POST
@require_perm(api=True)
@_errors
def api_permit_upload(request, number: str):
    """POST multipart {file, tag (a checklist key or another document tag), title?} → 201 (as
    ``views.permit_upload``: the applicant or staff; a consultant only their report). The content type is
    sniffed by ``permit_document_upload``, not taken from the name."""
    app = permit_get_for_user(user=request.user, number=number)
    tag = request.POST.get("tag") or ""
    if not may_upload(request.user, app, tag):
        raise PermissionDenied("You may not add documents to this file.")
    if tag not in BY_KEY and tag not in OTHER_TAGS:
        raise BadInput(f"tag: {tag!r} is not a checklist item or document tag "
                       f"({', '.join(list(BY_KEY) + list(OTHER_TAGS))})")
    upload = request.FILES.get("file")
    if upload is None:
        raise BadInput("file: required (multipart/form-data)")
    doc = services.permit_document_upload(application=app, upload=upload, tag=tag,
                                          title=request.POST.get("title", ""), acting_user=request.user)
    resp = _file(request, number, status=201)
    body = json.loads(resp.content)
    body["document"] = {"id": doc.pk, "tag": doc.tag, "title": doc.title, "content_type": doc.content_type,
                        "size": doc.size, "sha256": doc.sha256}
    return JsonResponse(body, status=201)


@require_POST
@require_perm(Perm.PERMIT_APPLY, api=True)
@_errors
def api_permit_file(request, number: str):
    """POST {} → the filed application (fees, the 42-day clock, the notices)."""
    app = permit_get_for_applicant(user=request.user, number=number)
    services.permit_file(application=app, acting_user=request.user)
    return _file(request, number)


@require_POST
@require_perm(Perm.PERMIT_REVIEW, api=True)
@_errors
def api_permit_checklist_confirm(request, number: str, key: str):
    """POST {note?}: staff confirm a checklist item that is not an upload (paper copies) or accept one on paper."""
    app = permit_get_for_user(user=request.user, number=number)
    if key not in BY_KEY:
        raise Http404("No such checklist item.")
    services.checklist_confirm(application=app, key=key, acting_user=request.user,
                               note=text_field(json_object(request), "note"))
    return _file(request, number)


@require_POST
@require_perm(Perm.PERMIT_REVIEW, api=True)
@_errors
def api_permit_fees_paid(request, number: str):
    """POST {paid_on?, receipt}: the application and review fees received."""
    app = permit_get_for_user(user=request.user, number=number)
    b = json_object(request)
    paid_on = date_field(b, "paid_on") if b.get("paid_on") else timezone.localdate()
    services.permit_fees_paid(application=app, paid_on=paid_on, receipt=text_field(b, "receipt", max_length=PermitApplication._meta.get_field("fees_receipt").max_length),
                              acting_user=request.user)
    return _file(request, number)


@require_POST
@require_perm(Perm.PERMIT_REVIEW, api=True)
@_errors
def api_permit_complete(request, number: str):
    """POST {} → determined complete: review begins (refused while checklist items are missing)."""
    app = permit_get_for_user(user=request.user, number=number)
    services.permit_determine_complete(application=app, acting_user=request.user)
    return _file(request, number)


@require_POST
@require_perm(Perm.PERMIT_REVIEW, api=True)
@_errors
def api_permit_incomplete(request, number: str):
    """POST {cure_by, note?} → determined incomplete: the notice, the action clock stopped."""
    app = permit_get_for_user(user=request.user, number=number)
    b = json_object(request)
    services.permit_determine_incomplete(application=app, cure_by=date_field(b, "cure_by"), note=text_field(b, "note"),
                                         acting_user=request.user)
    return _file(request, number)


@require_POST
@require_perm(Perm.PERMIT_REVIEW, api=True)
@_errors
def api_permit_info_request(request, number: str):
    """POST {items: text or [lines]} → information requested: the letter, the action clock stopped."""
    app = permit_get_for_user(user=request.user, number=number)
    services.permit_request_information(application=app, items=_lines(json_object(request), "items"),
                                        acting_user=request.user)
    return _file(request, number)


@require_POST
@require_perm(Perm.PERMIT_APPLY, api=True)
@_errors
def api_permit_info_response(request, number: str):
    """POST {response} (the applicant) → review and its clock resume."""
    app = permit_get_for_applicant(user=request.user, number=number)
    services.permit_information_received(application=app, response=text_field(json_object(request), "response"),
                                         acting_user=request.user)
    return _file(request, number)


@require_POST
@require_perm(Perm.PERMIT_REVIEW, api=True)
@_errors
def api_permit_extend(request, number: str):
    """POST {days, reason} → the action clock extended, with its reason."""
    app = permit_get_for_user(user=request.user, number=number)
    b = json_object(request)
    services.permit_extend(application=app, days=int_field(b, "days", lo=-MAX_EXTENSION_DAYS, hi=MAX_EXTENSION_DAYS),
                           reason=text_field(b, "reason"),
                           acting_user=request.user)
    return _file(request, number)


@require_POST
@require_perm(Perm.PERMIT_DECIDE, api=True)
@_errors
def api_permit_decide(request, number: str):
    """POST {kind: approve|approve_conditions|disapprove, findings, standards: [...], conditions?: [lines],
    order_of_conditions?, sheets?: ["number; title; revision; YYYY-MM-DD", …]} → the Director's decision and its PDF
    (validated by the web page's form)."""
    app = permit_get_for_user(user=request.user, number=number)
    b = json_object(request)
    standards = b.get("standards") or []
    if isinstance(standards, str):
        standards = [standards]
    form = DecisionForm({"kind": text_field(b, "kind"), "findings": text_field(b, "findings"), "standards": standards,
                         "conditions": _lines(b, "conditions"),
                         "order_of_conditions": text_field(b, "order_of_conditions"),
                         "sheets": _lines(b, "sheets")})
    if not form.is_valid():
        raise _form_error(form)
    d = form.cleaned_data
    services.permit_decide(application=app, kind=d["kind"], findings=d["findings"], standards=d["standards"],
                           conditions=d["conditions"].splitlines(), order_of_conditions=d["order_of_conditions"],
                           sheets=d["sheets"].splitlines(), acting_user=request.user)
    return _file(request, number)


@require_POST
@require_perm(Perm.PERMIT_DECIDE, api=True)
@_errors
def api_permit_close(request, number: str):
    """POST {why?} → the file closed (the refund clock starts if the 53G account holds a balance)."""
    app = permit_get_for_user(user=request.user, number=number)
    services.permit_close(application=app, acting_user=request.user, why=text_field(json_object(request), "why"))
    return _file(request, number)


# --- the permit's people (issue 18): the same rules as the permit page's "People on this permit" ----------

def _people(app) -> list[dict]:
    return [party_json(p) for p in permit_people(app)]


@require_perm(api=True)
@_errors
def api_permit_parties(request, number: str):
    """GET → {"permit", "parties": [...]}: anyone who reaches the permit. POST {who, role} → 201 {"party", "parties"}:
    the applicant or staff (``may_act_for_applicant``, as ``views.permit_party_link_view``) link a signed-up person
    (username or e-mail) as ``design_engineer``, ``contractor`` or ``agent``; 400 names the field."""
    app = permit_get_for_user(user=request.user, number=number)
    if request.method == "GET":
        return JsonResponse({"permit": app.case.number, "parties": _people(app)})
    if request.method != "POST":
        return JsonResponse({"error": "method not allowed (GET or POST)"}, status=405)
    if not may_act_for_applicant(request.user, app):
        raise PermissionDenied(services.ERR_PARTIES_WHO)
    b = json_object(request)
    only_fields(b, {"who", "role"})
    who = text_field(b, "who", required=True, max_length=254)
    role = text_field(b, "role", required=True)
    if role not in services.LINKABLE_ROLES:
        raise BadInput(f"role: one of {', '.join(services.LINKABLE_ROLES)} ({services.ERR_PARTY_ROLE})")
    try:
        party = services.permit_party_link(application=app, who=who, role=role, acting_user=request.user)
    except ValueError as e:  # no such account, or already linked in that role: both about the person named
        raise BadInput(f"who: {e}") from None
    return JsonResponse({"permit": app.case.number, "party": party_json(party), "parties": _people(app)}, status=201)


@require_perm(api=True)
@_errors
def api_permit_party(request, number: str, party_id: int):
    """GET → one linked person; DELETE → unlinked (the applicant or staff), answering the people left. A person who
    is not linked to this permit (or is its owner, applicant or consultant: not unlinked here) is 404."""
    app = permit_get_for_user(user=request.user, number=number)
    party = permit_people(app).filter(pk=party_id).first()
    if party is None:
        raise Http404("No such linked person on this permit.")
    if request.method == "GET":
        return JsonResponse(party_json(party))
    if request.method != "DELETE":
        return JsonResponse({"error": "method not allowed (GET or DELETE)"}, status=405)
    if not may_act_for_applicant(request.user, app):
        raise PermissionDenied("Only the applicant or staff change who is linked to this permit.")
    services.permit_party_unlink(application=app, party_id=party.pk, acting_user=request.user)
    return JsonResponse({"permit": app.case.number, "parties": _people(app)})


@require_perm(Perm.PERMIT_REVIEW, api=True)
@_errors
def api_permit_sheets_proposed(request, number: str):
    """GET → {"permit", "sheets": ["number; title; revision; YYYY-MM-DD", …], "source", "note"}: the approved plan
    sheets proposed from the plans under review (``selectors.approved_sheets_proposed``), to check and send as the
    decision's ``sheets``; ``sheets`` is empty and ``source`` null when neither a plan file nor a plan set has any."""
    app = permit_get_for_user(user=request.user, number=number)
    p = approved_sheets_proposed(app)
    return JsonResponse({"permit": app.case.number, "sheets": p.lines if p else [], "source": p.source if p else None,
                         "note": p.note if p else ""})
