"""The inspector's pages on a phone (issue 18): the day and the week (list, map, route), the report form by type,
the outbox endpoint a report written offline is sent to, the report page with its photos, and what makes the
field pages work offline (a web app manifest and a service worker, both static files served under /field/ so the
worker's scope is /field/). Thin: parse, call one service or selector, render."""
from __future__ import annotations

from datetime import timedelta

from django.contrib import messages
from django.contrib.staticfiles import finders
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError
from django.http import FileResponse, Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from stormwater.accounts.access import public, require_perm
from stormwater.accounts.roles import Perm
from stormwater.cases.services import TransitionError
from stormwater.townconfig import town_config
from stormwater.web.postdata import record_id, refilled

from . import field, reportform, reporting, selectors
from . import workflow as wf
from .models import ControlKind, InspectionKind

FIELD_PERMISSIONS = "geolocation=(self), camera=(self), microphone=()"  # the phone's position and camera
ERR_FROM = "The starting position must be “latitude,longitude” in degrees."


def _field_headers(resp):
    resp["Permissions-Policy"] = FIELD_PERMISSIONS
    return resp


def _start(request):
    """Where the day's route starts: ?from=lat,lon (the inspector's position), else the town's DPW yard
    (town.toml field_start_*), else None."""
    raw = request.GET.get("from", "")
    if raw:
        try:
            lat, lon = (float(x) for x in raw.split(","))
        except ValueError:
            messages.error(request, ERR_FROM)
        else:
            if -90 <= lat <= 90 and -180 <= lon <= 180:
                return (lat, lon), "your position"
            messages.error(request, ERR_FROM)
    cfg = town_config()
    return cfg.field_start, cfg.field_start_name or None


def _points(stops, start, start_name) -> list[dict]:
    pts = [{"lat": s.position[0], "lon": s.position[1], "order": s.order, "name": s.project.permit.site_address,
            "cat": "overdue" if s.overdue else "due today", "href": f"#stop-{s.project.case.number}"}
           for s in stops if s.position is not None]
    if start is not None:
        pts.insert(0, {"lat": start[0], "lon": start[1], "order": 0, "name": start_name or "start", "cat": "start"})
    return pts


@require_perm(Perm.INSPECTION_FILE)
def field_home(request):
    return redirect("field_today")


@require_perm(Perm.INSPECTION_FILE)
def field_today(request):
    """Today's inspections on every construction file the person may see, in the order to drive them."""
    now = timezone.now()
    visits = field.day_visits(user=request.user, now=now)
    start, start_name = _start(request)
    stops = field.day_route(visits, start=start)
    forms = sorted({reverse("field_report", args=[v.project.case.number]) + v.form_query for v in visits})
    base = _base_url()
    return _field_headers(render(request, "construction/field/today.html", {"base_url": base,
        "stops": stops, "visits": visits, "now": timezone.localtime(now), "start": start, "start_name": start_name,
        "control_kinds": ControlKind.choices, "points": _points(stops, start, start_name), "offline_urls": forms + ([base] if base else []), "mode": "today"}))


@require_perm(Perm.INSPECTION_FILE)
def field_week(request):
    """The next seven days, by day; what is not dated (before the start) at the end."""
    now = timezone.now()
    visits = field.week_visits(user=request.user, now=now)
    days: dict = {}
    for v in visits:
        key = None if v.due_at is None else max(v.due_on, timezone.localdate(now))  # overdue: listed today
        days.setdefault(key, []).append(v)
    stops = field.day_route(visits, start=None)
    forms = sorted({reverse("field_report", args=[v.project.case.number]) + v.form_query for v in visits})
    base = _base_url()
    return _field_headers(render(request, "construction/field/week.html", {"base_url": base,
        "days": list(days.items()), "now": timezone.localtime(now), "mode": "week",
        "points": [{"lat": s.position[0], "lon": s.position[1], "name": s.project.permit.site_address,
                    "cat": "overdue" if s.overdue else "due this week"} for s in stops if s.position is not None],
        "positions": {s.project.pk: s.position for s in stops if s.position is not None},
        "offline_urls": forms + ([base] if base else []), "end": timezone.localdate(now) + timedelta(days=6)}))


@require_perm(Perm.INSPECTION_FILE)
def field_base(request):
    """The base of the field maps when the town sets no tile server (issue 30): the town's own parcel outlines and roads
    around the person's sites, GeoJSON (WGS 84) from this origin, under /field/ so the service worker keeps it."""
    from stormwater.gis.selectors import base_geojson

    resp = JsonResponse(base_geojson(around=field.field_positions(request.user)))
    resp["Cache-Control"] = "private, no-cache"
    return resp


def _base_url() -> str:
    """The base map's URL when the field maps draw the town's own layers ("" when a tile server is set)."""
    from stormwater.townconfig import map_tiles

    return "" if map_tiles()[0] else reverse("field_base")


@require_perm(Perm.INSPECTION_FILE)
def field_outbox(request):
    """The reports waiting on this phone (drawn by field.js from the browser's storage; works offline)."""
    return _field_headers(render(request, "construction/field/outbox.html", {"mode": "outbox"}))


def report_form(request, number: str, *, field_url: bool):
    """The written inspection report form (§ 380-16 C(4)(f)[1]) — only the sections of its type, the inspector,
    date and time prefilled, the site's controls and BMPs as checklist rows, photos and a signature. Posted here
    without script; with script, field.js keeps it in the outbox and sends it to ``field_report_submit``."""
    p = selectors.project_get_for_user(user=request.user, number=number)
    kind = request.POST.get("kind") or request.GET.get("kind") or InspectionKind.EROSION_ROUTINE.value
    storm_id = reportform._int(request.POST.get("storm_id") or request.GET.get("storm"))
    conflicts, error = [], None
    if request.method == "POST" and not request.POST.get("_refresh"):
        f = request.POST
        try:
            rep = reportform.report_from_post(f, request.FILES)
            if not f.get("force"):
                conflicts = reporting.report_conflicts(p, seen_status=f.get("seen_status"),
                                                       seen_last=reportform._int(f.get("seen_last")), kind=rep.kind,
                                                       storm_id=rep.storm_id, inspected_at=rep.inspected_at)
            if not conflicts:
                insp = reporting.inspection_report_file(project=p, report=rep, acting_user=request.user,
                                                        signature_required=True)
        except reporting.AlreadyFiled as e:
            messages.info(request, "This report was already filed.")
            return redirect("construction_inspection", number=number, inspection_id=e.inspection.pk)
        except (ValueError, TransitionError) as e:
            error = e
            if request.FILES:
                messages.info(request, "Choose the photos again: a browser cannot keep them after a refusal.")
        else:
            if not conflicts:
                messages.success(request, "Inspection report filed; the PDF went to the applicant and the Director.")
                return redirect("construction_inspection", number=number, inspection_id=insp.pk)
    ctx = reportform.form_context(project=p, user=request.user, kind=kind, post=request.POST, storm_id=storm_id)
    ctx.update({"conflicts": conflicts, "field_url": field_url})
    resp = render(request, "construction/report.html", ctx)
    if error is not None:  # the form as it was sent, the refusal at its input (issue 16 "Forms"), 400
        resp = refilled(request, resp, error)
        if resp is None:
            messages.error(request, str(error))
            resp = render(request, "construction/report.html", ctx)
    return _field_headers(resp) if field_url else resp


@require_perm(Perm.INSPECTION_FILE)
def field_report(request, number: str):
    return report_form(request, number, field_url=True)


def _filed(insp, status: str, code: int) -> JsonResponse:
    n = insp.project.case.number
    return JsonResponse({
        "status": status, "report": insp.pk, "case": n, "kind": insp.kind,
        "url": reverse("construction_inspection", args=[n, insp.pk]),
        "pdf": reverse("construction_document", args=[n, insp.document_id]) if insp.document_id else None,
        "message": ("Filed" if status == "filed" else "Already filed") + f": {insp.get_kind_display()}, "
                   f"{timezone.localtime(insp.inspected_at):%Y-%m-%d %H:%M}, {n}."}, status=code)


@require_POST
@never_cache
@require_perm(Perm.INSPECTION_FILE, api=True)
def field_report_submit(request):
    """Where the outbox sends a report (multipart, the report form's fields and files plus ``number`` and
    ``client_key``). 201 filed · 200 already filed (the same key: never twice) · 409 the file changed since the form
    was opened (``conflicts``; send again with ``force=1`` to file it anyway) · 400 refused (``errors``) ·
    401/403/404 as JSON."""
    f = request.POST
    key = (f.get("client_key") or "").strip()
    if not key or len(key) > 64:
        return JsonResponse({"status": "refused", "errors": ["client_key: a key of 1 to 64 characters is required."]},
                            status=400)
    p = selectors.project_get_for_user(user=request.user, number=f.get("number", ""))
    existing = p.inspections.filter(client_key=key).first()
    if existing is not None:
        return _filed(existing, "already_filed", 200)
    try:
        rep = reportform.report_from_post(f, request.FILES)
    except ValueError as e:
        return JsonResponse({"status": "refused", "errors": [str(e)]}, status=400)
    if not f.get("force"):
        conflicts = reporting.report_conflicts(p, seen_status=f.get("seen_status"),
                                               seen_last=reportform._int(f.get("seen_last")), kind=rep.kind,
                                               storm_id=rep.storm_id, inspected_at=rep.inspected_at)
        if conflicts:
            return JsonResponse({"status": "conflict", "conflicts": conflicts}, status=409)
    try:
        insp = reporting.inspection_report_file(project=p, report=rep, acting_user=request.user,
                                                signature_required=True)
    except reporting.AlreadyFiled as e:
        return _filed(e.inspection, "already_filed", 200)
    except IntegrityError:
        # two first sends of one key at the same moment: the other one is in (Inspection.client_key is unique)
        existing = p.inspections.filter(client_key=key).first()
        if existing is None:
            raise
        return _filed(existing, "already_filed", 200)
    except (ValueError, TransitionError) as e:
        return JsonResponse({"status": "refused", "errors": [str(e)]}, status=400)
    return _filed(insp, "filed", 201)


# --- the report page and its photos --------------------------------------------------------------------------

@require_perm()
def construction_inspection(request, number: str, inspection_id: int):
    p = selectors.project_get_for_user(user=request.user, number=number)
    insp = get_object_or_404(p.inspections.select_related("document", "storm", "notice", "signature_document"),
                             pk=inspection_id)
    photos = list(insp.photos.select_related("row"))
    rows = [(r, [ph for ph in photos if ph.row_id == r.pk]) for r in insp.rows.prefetch_related("violations")]
    now = timezone.localtime()
    return render(request, "construction/inspection.html", {
        "p": p, "case": p.case, "i": insp, "rows": rows, "general_photos": [ph for ph in photos if ph.row_id is None],
        "punch": insp.punch_items.all(), "may_notice": request.user.can(Perm.INSPECT),
        # § 380-16 C(4)(e)[5]: a stop-work order on a violation, by those who issue them, on a file under way
        "may_stop": request.user.can(Perm.CONSTRUCTION_MANAGE) and p.case.status in (wf.Status.ACTIVE,
                                                                                     wf.Status.ENFORCEMENT),
        "nov_defaults": {"correct_by": (now + timedelta(days=7)).date().isoformat(),
                         "reinspect_at": (now + timedelta(days=7)).replace(hour=9, minute=0).strftime("%Y-%m-%dT%H:%M")}})


@require_POST
@require_perm(Perm.INSPECT)
def construction_row_violation(request, number: str, inspection_id: int, row_id: int):
    """A notice of violation from a failed row of a report (issue 30; § 380-16 C(4)(e)[5]): the row's finding and
    photos carried over, the re-inspection scheduled (the week list), and — for those who issue stop-work orders,
    on a file under way — the stop-work order on it. Refused: the report page again, the error at its field."""
    from stormwater.web.postdata import act, date_value

    from . import services

    p = selectors.project_get_for_user(user=request.user, number=number)
    insp = get_object_or_404(p.inspections, pk=inspection_id)
    row = get_object_or_404(insp.rows, pk=row_id)
    f = request.POST
    stop = f.get("stop_work_reason", "") if f.get("stop_work") else ""
    if stop and not request.user.can(Perm.CONSTRUCTION_MANAGE):
        raise PermissionDenied("Stop-work orders are the Director's (construction.manage).")

    def when():
        return reportform._when(f.get("reinspect_at"), "reinspect_at")

    def go():
        if f.get("stop_work") and not stop.strip():
            raise reporting.ConstructionError(services.ERR_SWO_REASON, field="stop_work_reason")
        return services.violation_from_row(
            row=row, corrective_actions=f.get("corrective_actions", ""),
            correct_by=date_value(f.get("correct_by"), field="correct_by"), reinspect_at=when(),
            stop_work_reason=stop, acting_user=request.user)
    ok = "Notice of violation issued" + (" and the re-inspection scheduled" if f.get("reinspect_at") else "") + (
        "; stop-work order issued." if stop else ".")
    return act(request, go, ok, reverse("construction_inspection", args=[number, insp.pk]))


@require_POST
@require_perm(Perm.INSPECT)
def construction_row_corrective(request, number: str, inspection_id: int, row_id: int):
    """A corrective action from a row of a report that needs maintenance (issue 30; EPA CGP 2022 Part 5): the row's
    finding and photos carried over, the due date the inspector sets; on the week list until its completion is
    recorded on the file page. Refused: the report page again, the error at its field."""
    from stormwater.web.postdata import act, date_value

    from . import services

    p = selectors.project_get_for_user(user=request.user, number=number)
    insp = get_object_or_404(p.inspections, pk=inspection_id)
    row = get_object_or_404(insp.rows, pk=row_id)
    f = request.POST
    return act(request, lambda: services.corrective_action_from_row(
        row=row, corrective_actions=f.get("corrective_actions", ""),
        correct_by=date_value(f.get("correct_by"), field="correct_by"), acting_user=request.user),
        "Corrective action opened; it is on the week list until it is done.",
        reverse("construction_inspection", args=[number, insp.pk]))


@require_perm()
def construction_signature(request, number: str, inspection_id: int):
    """The signature drawn on the screen for a report (§ 380-16 C(4)(f)[1]), shown as an image on the report's page
    (issue 30): to those who may see the report (the project's access function), nobody else (404)."""
    p = selectors.project_get_for_user(user=request.user, number=number)
    insp = get_object_or_404(p.inspections.select_related("signature_document"), pk=inspection_id)
    doc = insp.signature_document
    if doc is None or doc.content_type != "image/png":
        raise Http404("No signature drawn for this report.")
    resp = FileResponse(doc.file.open("rb"), content_type="image/png")
    resp["Content-Disposition"] = "inline"
    resp["Cache-Control"] = "private, max-age=86400"
    return resp


@require_perm()
def construction_photo(request, number: str, photo_id: int, size: str = "full"):
    """A photo of a report: the original as taken, or its thumbnail (shown as an image, never as a page)."""
    from .models import InspectionPhoto

    p = selectors.project_get_for_user(user=request.user, number=number)
    photo = get_object_or_404(InspectionPhoto.objects.select_related("document"), pk=photo_id, inspection__project=p)
    f, ctype = (photo.thumbnail, "image/jpeg") if size == "thumb" else (photo.document.file, photo.document.content_type)
    if ctype not in ("image/jpeg", "image/png"):
        raise Http404("No such photo.")
    resp = FileResponse(f.open("rb"), content_type=ctype)
    resp["Content-Disposition"] = "inline"
    resp["Cache-Control"] = "private, max-age=86400"
    return resp


# --- controls of the site and its position (from the file page or the phone) -------------------------------------

@require_POST
@require_perm(Perm.INSPECT)
def construction_controls(request, number: str):
    from stormwater.web.postdata import act

    p = selectors.project_get_for_user(user=request.user, number=number)
    f = request.POST
    to = reverse("construction_detail", args=[number]) + "#controls"
    if f.get("action") == "remove":
        return act(request, lambda: reporting.site_control_remove(
            control=get_object_or_404(p.controls, pk=record_id(f.get("control"), "control")), acting_user=request.user),
                   "Control removed from the checklist.", to)
    return act(request, lambda: reporting.site_control_add(
        project=p, kind=f.get("kind", ""), name=f.get("name", ""), location=f.get("location", ""),
        acting_user=request.user), "Control added to the checklist.", to)


@require_POST
@require_perm(Perm.INSPECT)
def field_site_add(request, number: str):
    """A control (CGP 2022 Part 2) or a BMP found on the site, added from the inspector's day (issue 30); back to
    the field page it was added from."""
    from stormwater.web.postdata import act

    from .fieldsite import site_bmp_add

    p = selectors.project_get_for_user(user=request.user, number=number)
    f = request.POST
    to = f.get("next") if f.get("next", "").startswith("/field/") else reverse("field_today")
    if f.get("what") == "bmp":
        return act(request, lambda: site_bmp_add(
            project=p, name=f.get("name", ""), source_type=f.get("source_type", ""), latitude=f.get("latitude"),
            longitude=f.get("longitude"), acting_user=request.user),
            "BMP added to the site's stewardship file: a row of the engineer's inspections from now on.", to)
    return act(request, lambda: reporting.site_control_add(
        project=p, kind=f.get("kind", ""), name=f.get("name", ""), location=f.get("location", ""),
        acting_user=request.user), "Control added: a row of every erosion-control report from now on.", to)


@require_POST
@require_perm(Perm.INSPECT)
def construction_position(request, number: str):
    from stormwater.web.postdata import act

    p = selectors.project_get_for_user(user=request.user, number=number)

    def set_it():
        values = []
        for name in ("latitude", "longitude"):
            try:
                values.append(float(request.POST.get(name, "")))
            except ValueError:
                raise reporting.ConstructionError(reporting.ERR_POSITION, field=name) from None
        lat, lon = values
        return reporting.project_position_set(project=p, latitude=lat, longitude=lon, acting_user=request.user)
    to = request.POST.get("next") if request.POST.get("next", "").startswith("/field/") else (
        reverse("construction_detail", args=[number]) + "#schedule")
    return act(request, set_it, "Site position saved.", to)


# --- offline: the service worker and the manifest ----------------------------------------------------------------

def _static_text(path: str) -> bytes:
    found = finders.find(path)
    if not found:
        raise Http404(path)
    with open(found, "rb") as fh:
        return fh.read()


@public
@require_GET
def field_service_worker(request):
    """The service worker (static/construction/field-sw.js) served at /field/sw.js so that its scope is /field/;
    never cached by HTTP (a new version must reach the phones), allowed only the /field/ scope."""
    resp = HttpResponse(_static_text("construction/field-sw.js"), content_type="text/javascript; charset=utf-8")
    resp["Cache-Control"] = "no-cache"
    resp["Service-Worker-Allowed"] = "/field/"
    return resp


@public
@require_GET
def field_manifest(request):
    """The web app manifest: "Add to home screen" opens today's inspections."""
    resp = HttpResponse(_static_text("construction/field.webmanifest"),
                        content_type="application/manifest+json; charset=utf-8")
    resp["Cache-Control"] = "no-cache"
    return resp
