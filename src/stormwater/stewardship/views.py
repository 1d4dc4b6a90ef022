"""Web pages of stewardship. Thin: parse, call one service, render. Sites are reached only through
``site_get_for_user``; owners act on their own sites (plans, logs, certifications, ownership notices)."""
from __future__ import annotations

import tempfile
from decimal import Decimal, InvalidOperation
from pathlib import Path

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.db.models import Q
from django.http import HttpResponseBadRequest, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.text import get_valid_filename
from django.views.decorators.http import require_POST

from stormwater.accounts.access import require_perm
from stormwater.accounts.roles import Perm
from stormwater.cases.models import CaseDocument
from stormwater.web.context import shown_at
from stormwater.web.files import document_response, download
from stormwater.web.forms import FieldRefusal
from stormwater.web.postdata import REFUSALS, act, date_value, record_id, record_ids, refused, whole_value

from . import selectors, services
from .contents import OM_ITEMS
from .inventory import REGION1_CATEGORIES
from .lists import BmpList, SiteList
from .models import EasementPurpose, MaintenanceKind, PartyRole
from .reports import ms4_counts, ms4_csv

MAP_POINTS = 2000  # markers drawn on a site's map; the BMP list below the map has every BMP


def _dec(v, field: str):
    """A posted number (blank: None); the error names ``field``, the posted input, so the refused form marks it."""
    if not v:
        return None
    try:
        d = Decimal(v.replace(",", "").replace("$", ""))
    except InvalidOperation:
        raise FieldRefusal(f"{v!r} is not a number.", field) from None
    if not d.is_finite():
        raise FieldRefusal(f"{v!r} is not a number.", field)
    return d


def _do(request, site, fn, ok, anchor=""):
    return act(request, fn, ok, f"/stewardship/{site.case.number}/" + (f"#{anchor}" if anchor else ""))


def _site(request, number):
    return selectors.site_get_for_user(user=request.user, number=number)


def may_act_for_owner(user, site) -> bool:
    """Owner-side acts (plan, logs, certifications, ownership notice): a current party or the owner's
    sign-in on their own site, or stewardship staff recording a paper submission."""
    if user.can(Perm.STEWARDSHIP):
        return True
    return site.owner_user_id == user.pk or site.parties.filter(user=user, until__isnull=True).exists()


def _owner_site(request, number):
    site = _site(request, number)
    if not may_act_for_owner(request.user, site):
        raise PermissionDenied("Only the owner, a responsible party or stewardship staff may do this.")
    return site


@require_perm()
def site_list(request):
    """Every site the user may see (``sites_for_user``) on the one list mechanism (``stewardship.lists``)."""
    return _list_page(request)


def _list_page(request, *, site_form=None, status: int = 200):
    """The list of sites; ``site_form`` is a refused new-site form (what was typed, the error at its field)."""
    from .forms import SiteNewForm

    lst = SiteList(request, selectors.sites_for_user(request.user))
    shown_at(request, reverse("site_list"))  # also for a refused new site (posted to /stewardship/new/)
    return lst.export_response() or render(request, "stewardship/list.html", {
        "lst": lst, "can_manage": request.user.can(Perm.STEWARDSHIP), "site_form": site_form or SiteNewForm()},
        status=status)


@require_perm()
def site_detail(request, number):
    return _detail_page(request, _site(request, number))


def _detail_page(request, site, *, notice_form=None, easement_none_form=None, verified_form=None,
                 status: int = 200):
    """The site's page; ``notice_form`` is a refused notice to correct, ``easement_none_form`` a refused "no
    easement necessary", ``verified_form`` a refused verified correction (what was typed, the error at its field)."""
    from .forms import EasementNoneForm, MaintenanceNoticeForm, VerifiedForm

    notices = list(site.maintenance_notices.select_related("case"))
    for n in notices:  # each open notice's "corrected" row form, ids of its own
        refused = verified_form is not None and verified_form.notice_id == n.pk
        n.verified_form = verified_form if refused else VerifiedForm(notice_id=n.pk)

    bmp_list = BmpList(request, site)
    if (resp := bmp_list.export_response()) is not None:
        return resp
    plan = selectors.final_plan_recorded(site)
    bmps = site.bmps.all()
    ctx = {
        "site": site, "case": site.case, "plan": plan, "plans": site.plans.all(),
        "next_cert": selectors.next_certification(plan) if plan else None,
        "certs": plan.certifications.all() if plan else [], "parties": site.parties.all(),
        "easements": site.easements.all(), "bmp_count": bmps.count(), "bmps": bmps, "bmp_list": bmp_list,
        "structures": site.structures.count(), "imports": site.imports.all(),
        "notices": notices, "changes": site.ownership_changes.all(),
        "documents": site.case.documents.all(), "events": site.case.events.select_related("actor"),
        "om_items": OM_ITEMS, "purposes": EasementPurpose.choices, "roles": PartyRole.choices,
        "categories": REGION1_CATEGORIES, "today": timezone.localdate(),
        "can_manage": request.user.can(Perm.STEWARDSHIP), "owner_acts": may_act_for_owner(request.user, site),
        "construction": getattr(site.permit, "construction", None) if site.permit_id else None,
        "map_points": [{"name": b.name, "cat": b.region1_category or "(none)", "lat": b.latitude, "lon": b.longitude}
                       for b in bmps.filter(latitude__isnull=False)[:MAP_POINTS]], "map_limit": MAP_POINTS,
        "notice_form": notice_form or MaintenanceNoticeForm(site=site),
        "easement_none_form": easement_none_form or EasementNoneForm(),
    }
    shown_at(request, reverse("site_detail", args=[site.case.number]))  # also for a refused row form
    return render(request, "stewardship/detail.html", ctx, status=status)


@require_perm()
def site_document(request, number, doc_id):
    site = _site(request, number)
    # the site's own documents and those of its failure-to-maintain cases (children of the site case)
    doc = get_object_or_404(CaseDocument.objects.filter(Q(case=site.case) | Q(case__parent=site.case)), pk=doc_id)
    return document_response(doc)


@require_POST
@require_perm(Perm.STEWARDSHIP)
def site_new(request):
    from stormwater.web.forms import add_refusal

    from .forms import SiteNewForm

    form = SiteNewForm(request.POST)
    if not form.is_valid():
        return _list_page(request, site_form=form, status=400)
    try:
        s = services.site_open(name=form.cleaned_data["name"], address=form.cleaned_data["address"],
                               acting_user=request.user)
    except ValueError as e:
        add_refusal(form, e)
        return _list_page(request, site_form=form, status=400)
    return redirect("site_detail", number=s.case.number)


@require_POST
@require_perm(Perm.STEWARDSHIP)
def site_party(request, number):
    site = _site(request, number)
    f = request.POST
    return _do(request, site, lambda: services.party_add(site=site, role=f.get("role", ""), name=f.get("name", ""),
                                                          address=f.get("address", ""), email=f.get("email", ""),
                                                          since=date_value(f.get("since"), timezone.localdate(), field="since"),
                                                          acting_user=request.user), "Party added.", "parties")


@require_POST
@require_perm()
def site_plan(request, number):
    site = _owner_site(request, number)
    f = request.POST
    items = {i.key: f.get(f"item_{i.key}", "") for i in OM_ITEMS}
    return _do(request, site, lambda: services.om_plan_submit(
        site=site, items=items, final=bool(f.get("final")), upload=request.FILES.get("file"),
        annual_budget=_dec(f.get("annual_budget"), "annual_budget"), acting_user=request.user),
        "O&M plan submitted.", "plan")


@require_POST
@require_perm(Perm.STEWARDSHIP)
def site_plan_record(request, number, plan_id):
    site = _site(request, number)
    plan = get_object_or_404(site.plans, pk=plan_id)
    f = request.POST
    return _do(request, site, lambda: services.om_plan_record(
        plan=plan, recorded_on=date_value(f["recorded_on"], field="recorded_on") if f.get("recorded_on") else None, book=f.get("book", ""),
        page=f.get("page", ""), document_number=f.get("document_number", ""),
        proof_upload=request.FILES.get("file"), acting_user=request.user), "Recording entered.", "plan")


@require_POST
@require_perm(Perm.STEWARDSHIP)
def site_easement(request, number):
    site = _site(request, number)
    f = request.POST
    if f.get("action") == "none":
        from stormwater.web.forms import add_refusal

        from .forms import EasementNoneForm

        form = EasementNoneForm(f)
        if form.is_valid():
            try:
                services.easements_not_required(site=site, reason=form.cleaned_data["reason"],
                                                acting_user=request.user)
            except services.StewardshipError as e:
                add_refusal(form, e)
            else:
                messages.success(request, "Recorded: no easement necessary.")
                return redirect(f"/stewardship/{site.case.number}/#easements")
        return _detail_page(request, site, easement_none_form=form, status=400)
    if f.get("action") == "record":
        return _do(request, site, lambda: services.easement_record(
            easement=get_object_or_404(site.easements, pk=record_id(f.get("easement"), "easement")), recorded_on=date_value(f["recorded_on"], field="recorded_on") if f.get("recorded_on") else None,
            book=f.get("book", ""),
            page=f.get("page", ""), document_number=f.get("document_number", ""),
            proof_upload=request.FILES.get("file"), acting_user=request.user), "Easement recording entered.",
            "easements")
    return _do(request, site, lambda: services.easement_add(site=site, purpose=f.get("purpose", ""),
                                                             location=f.get("location", ""),
                                                             grantor=f.get("grantor", ""), acting_user=request.user),
               "Easement added.", "easements")


@require_POST
@require_perm(Perm.STEWARDSHIP)
def site_bmp(request, number):
    site = _site(request, number)
    f = request.POST
    return _do(request, site, lambda: services.bmp_add(
        site=site, name=f.get("name", ""), source_type=f.get("source_type", ""),
        region1_category=f.get("region1_category", ""), treats=f.get("treats", ""),
        drainage_area_acres=_dec(f.get("drainage_area_acres"), "drainage_area_acres"), acting_user=request.user),
        "BMP added.", "inventory")


@require_POST
@require_perm(Perm.STEWARDSHIP)
def site_import(request, number):
    """Upload the inventory layers (GeoJSON / GeoPackage named STM_*); they are read from a temporary folder."""
    site = _site(request, number)
    files = request.FILES.getlist("files")
    to = f"/stewardship/{site.case.number}/#inventory"
    if not files:
        return refused(request, FieldRefusal("Choose the inventory files (STM_Structure_pt, STM_Structure_py, "
                                             "STM_Line_ln, STM_Subwatersheds_py).", "files"), to)
    with tempfile.TemporaryDirectory() as tmp:
        for up in files:
            name = get_valid_filename(Path(up.name).name)
            if Path(name).suffix.lower() not in {".geojson", ".gpkg", ".json"}:
                return refused(request, FieldRefusal(f"{name}: upload GeoJSON or GeoPackage files.", "files"), to)
            with open(Path(tmp) / name, "wb") as out:
                for chunk in up.chunks():
                    out.write(chunk)
        return _do(request, site, lambda: services.inventory_import(site=site, folder=tmp, acting_user=request.user),
                   "Inventory imported.", "inventory")


@require_perm()
def bmp_detail(request, number, bmp_id):
    site = _site(request, number)
    bmp = get_object_or_404(site.bmps, pk=bmp_id)
    if request.method == "POST":
        if not may_act_for_owner(request.user, site):
            raise PermissionDenied("Only the owner, a responsible party or stewardship staff keep the log.")
        f = request.POST
        return act(request, lambda: services.maintenance_log_add(
            bmp=bmp, on=date_value(f.get("on"), field="on") if f.get("on") else None, kind=f.get("kind", ""),
            description=f.get("description", ""), performed_by=f.get("performed_by", ""),
            disposal_material=f.get("disposal_material", ""), disposal_location=f.get("disposal_location", ""),
            acting_user=request.user), "Log entry recorded.", f"/stewardship/{number}/bmps/{bmp_id}/")
    return render(request, "stewardship/bmp.html", {"site": site, "bmp": bmp, "logs": bmp.logs.all(),
                                                    "kinds": MaintenanceKind.choices, "today": timezone.localdate(),
                                                    "owner_acts": may_act_for_owner(request.user, site)})


@require_POST
@require_perm()
def site_certification(request, number):
    site = _owner_site(request, number)
    f = request.POST
    return _do(request, site, lambda: services.certification_file(
        site=site, received_on=date_value(f["received_on"], field="received_on") if f.get("received_on") else None,
        work_summary=f.get("work_summary", ""), signed_by=f.get("signed_by", ""), upload=request.FILES.get("file"),
        acting_user=request.user), "Annual certification received.", "certifications")


@require_POST
@require_perm(Perm.STEWARDSHIP)
def site_notice(request, number):
    """Serve the notice to correct; refused, the page again with what was typed and the error at its field."""
    from stormwater.web.forms import add_refusal

    from .forms import MaintenanceNoticeForm

    site = _site(request, number)
    form = MaintenanceNoticeForm(request.POST, site=site)
    if form.is_valid():
        cd = form.cleaned_data
        try:
            services.maintenance_notice_issue(site=site, bmp=form.bmp_obj(), violation=cd["violation"],
                                              corrective_work=cd["corrective_work"], acting_user=request.user)
        except services.StewardshipError as e:
            add_refusal(form, e)
        else:
            messages.success(request, "Notice to correct served: 30 days.")
            return redirect(f"/stewardship/{site.case.number}/#notices")
    return _detail_page(request, site, notice_form=form, status=400)


@require_POST
@require_perm(Perm.STEWARDSHIP)
def site_notice_preview(request, number):
    """The notice to correct as the PDF it would be, marked as a preview; nothing is served, no clock starts and
    nothing is e-mailed (cases/preview.py, issue 16: a legal notice shows its PDF before it issues). Refused (the
    violation or the work left blank): the site again with what was typed and the error at its field."""
    from stormwater.cases.preview import preview_documents

    from stormwater.web.forms import add_refusal

    from .forms import MaintenanceNoticeForm

    site = _site(request, number)
    form = MaintenanceNoticeForm(request.POST, site=site)
    if form.is_valid():
        cd = form.cleaned_data
        try:
            docs = preview_documents(lambda: services.maintenance_notice_issue(
                site=site, bmp=form.bmp_obj(), violation=cd["violation"], corrective_work=cd["corrective_work"],
                acting_user=request.user), case=site.case)
        except services.StewardshipError as e:
            add_refusal(form, e)
        else:
            name, pdf = docs[0]
            return download(pdf, name=f"PREVIEW-{name.removesuffix('.pdf')}", ext="pdf")
    return _detail_page(request, site, notice_form=form, status=400)


@require_POST
@require_perm(Perm.STEWARDSHIP)
def site_notice_act(request, number, notice_number):
    site = _site(request, number)
    n = get_object_or_404(site.maintenance_notices, case__number=notice_number)
    if request.POST.get("action") == "enforce":
        return _do(request, site, lambda: services.maintenance_enforce(notice=n, acting_user=request.user),
                   "Referred for a court order or other relief.", "notices")
    from stormwater.web.forms import add_refusal

    from .forms import VerifiedForm

    form = VerifiedForm(request.POST, notice_id=n.pk)
    if form.is_valid():
        try:
            services.maintenance_corrected(notice=n, on=timezone.localdate(), note=form.cleaned_data["note"],
                                           acting_user=request.user)
        except REFUSALS as e:
            add_refusal(form, e)
        else:
            messages.success(request, "Correction verified.")
            return redirect(f"/stewardship/{site.case.number}/#notices")
    return _detail_page(request, site, verified_form=form, status=400)


@require_POST
@require_perm()
def site_ownership(request, number):
    site = _owner_site(request, number)
    f = request.POST
    return _do(request, site, lambda: services.ownership_change_record(
        site=site, role=f.get("role", "owner"), to_name=f.get("to_name", ""), to_address=f.get("to_address", ""),
        to_email=f.get("to_email", ""), notified_on=date_value(f["notified_on"], field="notified_on") if f.get("notified_on") else None,
        effective_on=date_value(f.get("effective_on"), field="effective_on"), deed_reference=f.get("deed_reference", ""),
        acting_user=request.user), "Change recorded.", "parties")


@require_POST
@require_perm(Perm.STEWARDSHIP)
def site_amend(request, number, plan_id):
    site = _site(request, number)
    plan = get_object_or_404(site.plans, pk=plan_id)
    f = request.POST
    return _do(request, site, lambda: services.plan_amend(
        plan=plan, description=f.get("description", ""),
        signed_by=list(site.parties.filter(pk__in=record_ids(f.getlist("signed_by"), "signed_by"))),
        director_agreed_on=date_value(f["director_agreed_on"], field="director_agreed_on") if f.get("director_agreed_on") else None,
        effective_on=date_value(f.get("effective_on"), timezone.localdate(), field="effective_on"), upload=request.FILES.get("file"),
        acting_user=request.user), "Amendment recorded.", "plan")


@require_perm(Perm.STEWARDSHIP)
def certifications_overdue(request):
    today = timezone.localdate()
    return render(request, "stewardship/overdue.html", {
        "overdue": selectors.certifications_overdue(today=today),
        "upcoming": [d for d in selectors.certifications_due(today=today, within_days=selectors.REMIND_DAYS)
                     if d.due_on >= today], "today": today})


MS4_YEARS = (2000, 2100)  # rules.inspections.permit_year's range


def _year(request) -> int:
    """``?year=`` (the permit year ending June 30 of it); blank → the last complete permit year. A year out
    of range or not a number raises ValueError naming ``year`` (issue 15: ``?year=0`` was a 500)."""
    return whole_value(request.GET.get("year"), "year", lo=MS4_YEARS[0], hi=MS4_YEARS[1], default=_year_default())


@require_perm(Perm.STEWARDSHIP)
def ms4_report(request):
    from stormwater.rules.inspections import permit_year

    try:
        year, status = _year(request), 200
    except ValueError as e:
        messages.error(request, str(e))
        year, status = _year_default(), 400
    start, end = permit_year(year)
    return render(request, "stewardship/ms4.html", {"year": year, "start": start, "end": end,
                                                    "rows": ms4_counts(year)}, status=status)


def _year_default() -> int:
    today = timezone.localdate()
    return today.year if today.month >= 7 else today.year - 1


@require_perm(Perm.STEWARDSHIP)
def ms4_report_csv(request):
    try:
        year = _year(request)
    except ValueError as e:
        return HttpResponseBadRequest(str(e), content_type="text/plain; charset=utf-8")
    return download(ms4_csv(year), name=f"ms4-construction-post-construction-{year - 1}-{year}", ext="csv")


@require_perm(Perm.STEWARDSHIP, api=True)
def api_ms4_report(request):
    try:
        year = _year(request)
    except ValueError as e:
        return JsonResponse({"error": str(e)}, status=400)
    return JsonResponse({"permit_year": f"{year - 1}-{year}", "rows": [
        {"program": r.program, "measure": r.measure, "count": r.count, "source": r.source} for r in ms4_counts(year)]})


@require_perm(api=True)
def api_site_detail(request, number):
    site = _site(request, number)
    plan = selectors.final_plan_recorded(site)
    nxt = selectors.next_certification(plan) if plan else None
    return JsonResponse({
        "number": site.case.number, "name": site.name, "status": site.case.status,
        "om_plan": None if plan is None else {"version": plan.version, "recording": plan.recording},
        "next_certification": None if nxt is None else {"year": nxt.seq, "due_on": str(nxt.due_on),
                                                        "period": [str(nxt.period_start), str(nxt.period_end)]},
        "easements": [{"purpose": e.purpose, "location": e.location, "grantor": e.grantor, "recorded": e.recorded}
                      for e in site.easements.all()],
        "bmps": site.bmps.count()})
