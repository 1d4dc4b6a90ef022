"""Web pages of construction oversight. Thin: parse, call one service, render. Every view is guarded by
``require_perm``; every file is reached through ``project_get_for_user`` (404 for anyone else's)."""
from __future__ import annotations

from datetime import datetime

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from stormwater.accounts.access import require_perm
from stormwater.accounts.models import User
from stormwater.accounts.roles import Perm
from stormwater.cases.services import TransitionError
from stormwater.permits import workflow as permit_wf
from stormwater.permits.models import PermitApplication
from stormwater.rules.inspections import Frequency, Frozen
from stormwater.web.context import shown_at
from stormwater.web.files import document_response, download
from stormwater.web.forms import FieldRefusal, add_refusal
from stormwater.web.postdata import REFUSALS
from stormwater.cases.preview import preview_documents
from stormwater.web.postdata import act, choice_value, date_value, money_value, record_id, record_ids, refused

from . import selectors, services
from .lists import ConstructionList
from .models import EROSION_KINDS, ControlKind, Evaluation, FollowUp, InspectionKind, SuretyForm


def _dt(v, field: str | None = None) -> datetime:
    """A posted date and time; the error names ``field`` (the posted input) so that the refused form marks it."""
    try:
        d = datetime.fromisoformat(v)
    except (TypeError, ValueError):
        raise FieldRefusal(f"{v!r} is not a date and time (YYYY-MM-DDTHH:MM).", field) from None
    return timezone.make_aware(d) if timezone.is_naive(d) else d


def _do(request, project, fn, ok: str, anchor: str = ""):
    """Run one service; a refusal becomes a message naming what is missing, never a 500."""
    return act(request, fn, ok, f"/construction/{project.case.number}/" + (f"#{anchor}" if anchor else ""))


def _get(request, number):
    return selectors.project_get_for_user(user=request.user, number=number)


def _one(records, value, field: str):
    """The posted choice ``field`` (``value``) among ``records``: an id that is no whole number is refused at the
    field (issue 27: "abc" as a key was a 500), one that is not among them is a 404. Call it inside the act."""
    return get_object_or_404(records, pk=record_id(value, field))


@require_perm()
def construction_list(request):
    lst = ConstructionList(request, selectors.projects_for_user(request.user))
    if (resp := lst.export_response()) is not None:
        return resp
    openable = []
    if request.user.can(Perm.CONSTRUCTION_MANAGE):
        openable = PermitApplication.objects.filter(
            case__status__in=[permit_wf.Status.APPROVED, permit_wf.Status.APPROVED_WITH_CONDITIONS],
            construction__isnull=True).select_related("case")
    return render(request, "construction/list.html", {
        "lst": lst, "openable": openable, "now": timezone.now(),
        "engineers": User.objects.filter(role__in=["consultant", "owner", "inspector", "staff"]).order_by("username"),
        "overdue": selectors.inspections_overdue() if request.user.can(Perm.INSPECT) else []})


def _person(request, name: str):
    """An optional person from the list offered (``name``); an id that is no whole number is refused at its field
    (issue 27), one that is no user is none, as it always was."""
    pk = record_id(request.POST.get(name), name, required=False)
    return User.objects.filter(pk=pk).first() if pk else None


@require_POST
@require_perm(Perm.CONSTRUCTION_MANAGE)
def construction_open(request):
    permit = PermitApplication.objects.filter(case__number=request.POST.get("permit") or "").first()
    if permit is None:  # nothing chosen (or a number that is no permit): said at the field, not a 404
        return refused(request, FieldRefusal("Choose the approved permit the file is opened for.", "permit"),
                       reverse("construction_list"))
    try:
        eng, esc = _person(request, "design_engineer"), _person(request, "esc_inspector")
        p = services.project_open(
            permit=permit, acting_user=request.user, design_engineer=eng,
            design_engineer_name=request.POST.get("design_engineer_name", ""),
            design_engineer_pe=request.POST.get("design_engineer_pe", ""), esc_inspector=esc,
            esc_inspector_name=request.POST.get("esc_inspector_name", ""),
            esc_inspector_credentials=request.POST.get("esc_inspector_credentials", ""),
            preconstruction_required=bool(request.POST.get("preconstruction_required")),
            surety_required=not request.POST.get("no_surety_reason"),
            surety_not_required_reason=request.POST.get("no_surety_reason", ""),
            frequency=choice_value(request.POST.get("frequency"), Frequency, "frequency",
                                   default=Frequency.EVERY_7_DAYS.value),
            sensitive_waters=bool(request.POST.get("sensitive_waters")))
    except (TransitionError, ValueError) as e:  # the list again, as it was sent, the error at its field
        return refused(request, e, reverse("construction_list"))
    messages.success(request, f"Construction file {p.case.number} opened.")
    return redirect("construction_detail", number=p.case.number)


@require_perm()
def construction_detail(request, number: str):
    return _detail_page(request, _get(request, number))


def _detail_page(request, p, *, area_form=None, corrected_form=None, status: int = 200):
    """The file's page; ``area_form`` / ``corrected_form`` are a refused row form (issue 16 "Forms": what was
    typed kept, the error at its field) shown in place of the blank one, answered with ``status`` (400)."""
    from .forms import AreaForm, CorrectedForm

    u = request.user
    followups = list(p.violations.select_related("row").prefetch_related("row__photos"))
    for v in followups:  # each open violation's "report corrected" row form, ids of its own
        refused = corrected_form is not None and corrected_form.violation_id == v.pk
        v.corrected_form = corrected_form if refused else CorrectedForm(
            violation_id=v.pk, initial={"on": timezone.localdate()})
    surety = selectors.surety_of(p)
    site = p.permit.stewardship_sites.order_by("id").first()
    can_manage = u.can(Perm.CONSTRUCTION_MANAGE)
    ctx = {
        "p": p, "case": p.case, "app": p.permit, "site": site, "due": selectors.next_due(p), "dues": selectors.dues(p),
        "areas": selectors.areas(p), "inspections": p.inspections.select_related("document", "notice", "storm"),
        "notices": p.notices.all(), "rain": p.rain_events.all(),
        # notices of violation (§ 380-16 C(4)(e)[5]) and corrective actions (CGP 2022 Part 5; issue 30), apart
        "violations": [v for v in followups if v.kind == FollowUp.NOTICE],
        "corrective": [v for v in followups if v.kind == FollowUp.CORRECTIVE],
        "orders": p.stop_work_orders.prefetch_related("violations"), "open_order": services.stop_work_open(p),
        "referrals": p.referrals.all(), "punch": p.punch_items.all(), "meetings": p.meetings.all(),
        "surety": surety, "held": services.surety_held(surety) if surety else None,
        "entries": surety.entries.all() if surety else [], "as_builts": p.as_builts.all(),
        "missing": services.final_submissions_missing(p) if p.certificate_on is None else [],
        "documents": p.case.documents.all(), "events": p.case.events.select_related("actor"),
        "kinds": InspectionKind.choices, "evaluations": Evaluation.choices, "frequencies": list(Frequency),
        "frozen_choices": list(Frozen), "surety_forms": SuretyForm.choices, "now": timezone.localtime(),
        "today": timezone.localdate(), "can_manage": can_manage, "can_inspect": u.can(Perm.INSPECT),
        "can_surety": u.can(Perm.SURETY), "can_file": u.can(Perm.INSPECTION_FILE) and any(
            services.may_file(u, p, k) for k, _ in InspectionKind.choices),
        "is_engineer": p.design_engineer_id == u.pk or u.can(Perm.INSPECT),
        "erosion_kinds": [k.value for k in EROSION_KINDS],
        "controls": p.controls.filter(removed_on__isnull=True), "control_kinds": ControlKind.choices,
        "area_form": area_form or AreaForm(),
    }
    shown_at(request, reverse("construction_detail", args=[p.case.number]))  # also for a refused row form
    return render(request, "construction/detail.html", ctx, status=status)


@require_perm()
def construction_document(request, number: str, doc_id: int):
    p = _get(request, number)
    doc = get_object_or_404(p.case.documents, pk=doc_id)
    return document_response(doc)


@require_perm(Perm.INSPECTION_FILE)
def construction_report(request, number: str):
    """The written inspection report form (§ 380-16 C(4)(f)[1]); a missing item is refused by name. The same form
    as /field/<n>/report/ (construction.fieldviews.report_form)."""
    from .fieldviews import report_form

    return report_form(request, number, field_url=False)


def _post_action(perm):
    """Decorator stack for POST actions on one project."""
    def deco(fn):
        return require_POST(require_perm(perm)(fn))
    return deco


@_post_action(Perm.CONSTRUCTION_MANAGE)
def construction_meeting(request, number):
    p = _get(request, number)
    return _do(request, p, lambda: services.preconstruction_meeting_record(
        project=p, held_on=date_value(request.POST.get("held_on"), field="held_on"), attendees=request.POST.get("attendees", ""),
        notes=request.POST.get("notes", ""), acting_user=request.user), "Pre-construction meeting recorded.")


@_post_action(Perm.INSPECT)
def construction_plan_on_site(request, number):
    p = _get(request, number)
    return _do(request, p, lambda: services.plan_on_site_confirm(project=p, on=date_value(request.POST.get("on"), field="on"),
                                                                  acting_user=request.user), "Plan on site confirmed.")


@_post_action(Perm.CONSTRUCTION_MANAGE)
def construction_conditions(request, number):
    p = _get(request, number)
    f = request.POST
    return _do(request, p, lambda: services.project_conditions_set(
        project=p, acting_user=request.user, frequency=choice_value(f.get("frequency"), Frequency, "frequency"),
        sensitive_waters=bool(f.get("sensitive_waters")), frozen=choice_value(f.get("frozen"), Frozen, "frozen"),
        stabilized_on=date_value(f["stabilized_on"], field="stabilized_on") if f.get("stabilized_on") else None,
        clear_stabilized=not f.get("stabilized_on")), "Inspection frequency conditions updated.", "schedule")


@_post_action(Perm.CONSTRUCTION_MANAGE)
def construction_start(request, number):
    p = _get(request, number)
    return _do(request, p, lambda: services.construction_start(project=p, on=date_value(request.POST.get("on"), field="on"),
                                                                acting_user=request.user), "Construction started.")


@_post_action(Perm.INSPECT)
def construction_rain(request, number):
    p = _get(request, number)
    f = request.POST
    return _do(request, p, lambda: services.rain_event_record(
        project=p, ended_at=_dt(f.get("ended_at"), "ended_at"), rain_in=money_value(f.get("rain_in") or "0", "rain_in"),
        snow_in=money_value(f.get("snow_in") or "0", "snow_in"), source=f.get("source", ""), acting_user=request.user),
        "Rainfall recorded.", "schedule")


@_post_action(Perm.INSPECTION_FILE)
def construction_notice(request, number):
    p = _get(request, number)
    if not (p.design_engineer_id == request.user.pk or request.user.can(Perm.INSPECT)):
        raise PermissionDenied("Only the project's design engineer gives the 24-hour notice.")
    return _do(request, p, lambda: services.inspection_notice_give(
        project=p, kind=request.POST.get("kind", ""),
        scheduled_at=_dt(request.POST.get("scheduled_at"), "scheduled_at"),
        acting_user=request.user, note=request.POST.get("note", "")), "Notice given to the Director.", "inspections")


@_post_action(Perm.INSPECTION_FILE)
def construction_punch_done(request, number, item_id):
    p = _get(request, number)
    if not (p.design_engineer_id == request.user.pk or request.user.can(Perm.INSPECT)):
        raise PermissionDenied("Only the design engineer or the Director's inspectors close punch-list items.")
    item = get_object_or_404(p.punch_items, pk=item_id)
    return _do(request, p, lambda: services.punch_item_done(item=item, on=date_value(request.POST.get("on"), field="on"),
                                                             note=request.POST.get("note", ""), acting_user=request.user),
               "Punch-list item done.", "inspections")


@_post_action(Perm.INSPECT)
def construction_area(request, number):
    p = _get(request, number)
    f = request.POST
    action = f.get("action", "add")
    if action == "add":
        from .forms import AreaForm

        form = AreaForm(f)
        if form.is_valid():
            try:
                services.area_add(project=p, name=form.cleaned_data["name"], acting_user=request.user)
            except REFUSALS as e:
                add_refusal(form, e)
            else:
                messages.success(request, "Area added.")
                return redirect(f"/construction/{p.case.number}/#areas")
        return _detail_page(request, p, area_form=form, status=400)
    def area():
        return _one(p.areas, f.get("area"), "area")

    if action == "ceased":
        return _do(request, p, lambda: services.area_ceased(area=area(), on=date_value(f.get("on"), field="on"),
                                                            acting_user=request.user),
                   "Work ceased recorded: stabilize within 7 days.", "areas")
    return _do(request, p, lambda: services.area_stabilized(area=area(), on=date_value(f.get("on"), field="on"),
                                                            acting_user=request.user),
               "Area stabilized.", "areas")


@_post_action(Perm.CONSTRUCTION_MANAGE)
def construction_violation(request, number):
    p = _get(request, number)
    f = request.POST

    def inspection():  # optional; an id no longer on the file is none (as it always was), "abc" is refused
        pk = record_id(f.get("inspection"), "inspection", required=False)
        return p.inspections.filter(pk=pk).first() if pk else None

    return _do(request, p, lambda: services.violation_notice_issue(
        project=p, description=f.get("description", ""), corrective_actions=f.get("corrective_actions", ""),
        correct_by=date_value(f.get("correct_by"), field="correct_by"), found_on=date_value(f.get("found_on"), timezone.localdate(), field="found_on"),
        inspection=inspection(), acting_user=request.user), "Notice of violation issued.", "violations")


@_post_action(Perm.INSPECTION_FILE)
def construction_violation_corrected(request, number, violation_id):
    p = _get(request, number)
    v = get_object_or_404(p.violations, pk=violation_id)
    from .forms import CorrectedForm

    form = CorrectedForm(request.POST, violation_id=v.pk)
    if form.is_valid():
        try:
            services.violation_corrected(violation=v, on=form.cleaned_data["on"], note=form.cleaned_data["note"],
                                         acting_user=request.user)
        except REFUSALS as e:
            add_refusal(form, e)
        else:
            if v.kind == FollowUp.CORRECTIVE:  # done when completed (CGP 2022 Part 5; issue 30)
                messages.success(request, f"Corrective action {v.ref} closed as done.")
                return redirect(f"/construction/{p.case.number}/#corrective")
            messages.success(request, "Correction reported; the Director approves it.")
            return redirect(f"/construction/{p.case.number}/#violations")
    return _detail_page(request, p, corrected_form=form, status=400)


@_post_action(Perm.CONSTRUCTION_MANAGE)
def construction_violation_approve(request, number, violation_id):
    p = _get(request, number)
    v = get_object_or_404(p.violations, pk=violation_id)
    return _do(request, p, lambda: services.violation_approve(violation=v, on=date_value(request.POST.get("on"), field="on"),
                                                               acting_user=request.user),
               "Corrected work approved.", "violations")


@_post_action(Perm.CONSTRUCTION_MANAGE)
def construction_stop_work(request, number):
    p = _get(request, number)
    return _do(request, p, lambda: services.stop_work_issue(
        project=p, violations=list(p.violations.filter(
            kind=FollowUp.NOTICE, pk__in=record_ids(request.POST.getlist("violations"), "violations"))),
        reason=request.POST.get("reason", ""), acting_user=request.user), "Stop-work order issued.", "violations")


@_post_action(Perm.CONSTRUCTION_MANAGE)
def construction_stop_work_lift(request, number):
    p = _get(request, number)
    return _do(request, p, lambda: services.stop_work_lift(project=p, work_approved_note=request.POST.get("note", ""),
                                                            acting_user=request.user),
               "Stop-work order lifted.", "violations")


@_post_action(Perm.CONSTRUCTION_MANAGE)
def construction_enforcement(request, number):
    p = _get(request, number)
    if request.POST.get("action") == "resolve":
        return _do(request, p, lambda: services.enforcement_resolve(project=p, resolution=request.POST.get("reason", ""),
                                                                     acting_user=request.user),
                   "Enforcement resolved.", "violations")
    return _do(request, p, lambda: services.enforcement_refer(project=p, reason=request.POST.get("reason", ""),
                                                               acting_user=request.user),
               "Referred for enforcement.", "violations")


@_post_action(Perm.SURETY)
def construction_surety(request, number):
    p = _get(request, number)
    f = request.POST
    action = f.get("action", "post")
    if action == "post":
        return _do(request, p, lambda: services.surety_post(
            project=p, form=f.get("form", "bond"), amount=money_value(f.get("amount"), "amount"),
            estimated_cost=money_value(f.get("estimated_cost"), "estimated_cost"),
            prevailing_wage_included=bool(f.get("prevailing_wage")),
            counsel_approved_on=date_value(f["counsel_approved_on"], field="counsel_approved_on") if f.get("counsel_approved_on") else None,
            finance_approved_on=date_value(f["finance_approved_on"], field="finance_approved_on") if f.get("finance_approved_on") else None,
            posted_on=date_value(f.get("posted_on"), timezone.localdate(), field="posted_on"), issuer=f.get("issuer", ""),
            reference=f.get("reference", ""), upload=request.FILES.get("file"), acting_user=request.user),
            "Surety posted.", "surety")
    if action == "release":
        return _do(request, p, lambda: services.surety_release(
            project=p, amount=money_value(f.get("amount"), "amount"), on=date_value(f.get("on"), timezone.localdate(), field="on"),
            phase=f.get("phase", ""), reason=f.get("reason", ""), acting_user=request.user), "Surety released.", "surety")
    return _do(request, p, lambda: services.surety_forfeit(
        project=p, violation=_one(p.violations.filter(kind=FollowUp.NOTICE), f.get("violation"), "violation"), amount=money_value(f.get("amount"), "amount"), on=date_value(f.get("on"), timezone.localdate(), field="on"),
        reason=f.get("reason", ""), acting_user=request.user), "Surety drawn to correct the work.", "surety")


@_post_action(Perm.INSPECTION_FILE)
def construction_as_built(request, number):
    p = _get(request, number)
    if not (p.design_engineer_id == request.user.pk or request.user.can(Perm.CONSTRUCTION_MANAGE)):
        raise PermissionDenied("The project design engineer submits the as-built drawings (§ 380-15).")
    f = request.POST
    return _do(request, p, lambda: services.as_built_submit(
        project=p, upload=request.FILES.get("file"), pe_name=f.get("pe_name", ""), pe_license=f.get("pe_license", ""),
        certified_on=date_value(f["certified_on"], field="certified_on") if f.get("certified_on") else None,
        paper_copy_received_on=date_value(f["paper_on"], field="paper_on") if f.get("paper_on") else None,
        full_size=bool(f.get("full_size")),
        final_grades=bool(f.get("final_grades")), deviations=f.get("deviations", ""), acting_user=request.user),
        "As-built drawings submitted.", "completion")


@_post_action(Perm.CONSTRUCTION_MANAGE)
def construction_as_built_accept(request, number, as_built_id):
    p = _get(request, number)
    ab = get_object_or_404(p.as_builts, pk=as_built_id)
    return _do(request, p, lambda: services.as_built_accept(as_built=ab, on=timezone.localdate(),
                                                             acting_user=request.user),
               "As-built drawings accepted.", "completion")


@_post_action(Perm.CONSTRUCTION_MANAGE)
def construction_certificate(request, number):
    p = _get(request, number)
    return _do(request, p, lambda: services.certificate_issue(project=p, acting_user=request.user),
               "Certificate of completion issued; the permit file is closed and the 53G refund is due.", "completion")


@_post_action(Perm.CONSTRUCTION_MANAGE)
def construction_certificate_preview(request, number):
    """The certificate as the PDF it would be, marked as a preview; nothing is issued (cases/preview.py, issue 16).
    Refused (a final submission missing): the file again, saying what is missing."""
    p = _get(request, number)
    try:
        docs = preview_documents(lambda: services.certificate_issue(project=p, acting_user=request.user), case=p.case)
    except REFUSALS as e:
        messages.error(request, str(e))
        return redirect(f"/construction/{p.case.number}/#completion")
    name, pdf = next(((n, c) for n, c in docs if "-certificate-" in n), docs[0])
    return download(pdf, name=f"PREVIEW-{name.removesuffix('.pdf')}", ext="pdf")

