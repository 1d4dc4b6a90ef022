"""Web pages of the permit file. Thin: parse, call one service, render. Every view is guarded by
``require_perm``; every file is reached through ``permit_get_for_user`` (404 for anyone else's).

Here: the public applicability question, the list, the file page and its documents, the applicant's acts, the rule
hearings and the permit's people; the staff's acts on a file are in ``staffviews``."""
from __future__ import annotations


from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from stormwater.accounts.access import public, require_perm
from stormwater.accounts.roles import Perm
from stormwater.receivables.online_fees import fee_online_offer
from stormwater.rules.applicability import EXEMPTIONS, OtherWork, determine, to_sqft
from stormwater.web.files import document_response, download
from stormwater.cases.services import DocumentError
from stormwater.web.forms import FieldRefusal, add_refusal
from stormwater.web.postdata import REFUSALS, act, date_value, money_value, refused

from . import documents, services
from . import workflow as wf
from .approval import approval_problem
from .checklist import BY_KEY, ITEMS, OTHER_TAGS
from .forms import AppealForm, ApplicabilityForm, ApplicationForm, ConsultantForm, DecisionForm, RuleHearingForm
from .lists import PermitList
from .models import RuleHearing, Waiver
from .selectors import (account_entries, account_of, approved_sheets_proposed, current_engagement, fee_schedule_in_force, filing_readiness, is_applicant,
                        is_design_engineer, may_act_for_applicant, may_upload, permit_clocks, permit_get_for_applicant, permit_get_for_user,
                        permit_owner_for, permit_people, permit_site_parcels, permits_for_user)


def _for_applicant(request, number):
    return permit_get_for_applicant(user=request.user, number=number)


def _to(app) -> str:
    return reverse("permit_detail", kwargs={"number": app.case.number})


def _do(request, app, fn, ok: str):
    """Run one service; its refusal (table, precondition, bad input) is the file again with the form as it was
    sent and the error at its input (``web.postdata.act``; issue 16 "Forms"), never a 500."""
    return act(request, fn, ok, _to(app))


def _refuse(request, app, message: str, field: str):
    """A refusal the view itself makes about the posted input ``field``: the file again, the form as sent."""
    return refused(request, FieldRefusal(message, field), _to(app))


# --- public: the applicant's first question -------------------------------------------------------

def parse_other_work(text: str) -> list[OtherWork]:
    out = []
    for n, line in enumerate([x for x in (text or "").splitlines() if x.strip()], 1):
        parts = [p.strip() for p in line.split(";")]
        if len(parts) < 3:
            raise ValueError(f"other work, line {n}: description; ft²; date; same owner; adjacent")
        yes = lambda i: len(parts) > i and parts[i].lower() in {"yes", "y", "true", "1"}  # noqa: E731
        out.append(OtherWork(parts[0], money_value(parts[1]), date_value(parts[2]), same_owner=yes(3),
                             adjacent_parcel=yes(4)))
    return out


@public
def permit_applicability(request):
    """Does my project need a permit? Computes from what is entered and reads no records (public, like the
    fee calculator)."""
    form = ApplicabilityForm(request.POST or None, initial={"on": timezone.localdate(), "discharges_to_ms4": True})
    result = None
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        try:
            sqft = to_sqft(acres=d["disturbance"]) if d["unit"] == "acres" else to_sqft(sqft=d["disturbance"])
            result = determine(disturbance_sqft=sqft, on=d["on"], common_plan=d["common_plan"],
                               common_plan_total_sqft=d["common_plan_total_sqft"],
                               discharges_to_ms4=d["discharges_to_ms4"], exemption=d["exemption"] or None,
                               exemption_answers={c.key: d[f"c_{d['exemption']}_{c.key}"]
                                                  for c in EXEMPTIONS[d["exemption"]].conditions}
                               if d["exemption"] else {},
                               other_work=parse_other_work(d["other_work"]))
        except ValueError as e:
            form.add_error(None, str(e))
    exemptions = [(k, e, [(c, form[f"c_{k}_{c.key}"]) for c in e.conditions]) for k, e in EXEMPTIONS.items()]
    return render(request, "permits/applicability.html", {"form": form, "result": result, "exemptions": exemptions})


# --- lists and the file ---------------------------------------------------------------------------

@require_perm()
def permit_list(request):
    """Every file the user may see (``permits_for_user``) on the one list mechanism (``permits.lists``)."""
    lst = PermitList(request, permits_for_user(request.user))
    return lst.export_response() or render(request, "permits/list.html", {
        "lst": lst, "can_apply": request.user.can(Perm.PERMIT_APPLY)})


@require_perm(Perm.PERMIT_APPLY)
def permit_new(request):
    form = ApplicationForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        ids = [x.strip() for x in d["parcel_ids"].split(",") if x.strip()]
        parcels, unknown, foreign = permit_site_parcels(user=request.user, parcel_ids=ids)
        if unknown:
            form.add_error("parcel_ids", f"Unknown parcel ids: {', '.join(unknown)}")
        elif foreign:
            form.add_error("parcel_ids", services.ERR_NOT_YOUR_PARCEL.format(pids=", ".join(foreign)))
        else:
            owner = permit_owner_for(user=request.user, parcels=parcels)
            try:
                other = parse_other_work(d["other_work"])
            except ValueError as e:
                form.add_error("other_work", str(e))
                return render(request, "permits/new.html", {"form": form})
            det = determine(disturbance_sqft=d["disturbance_sqft"], on=timezone.localdate(),
                            common_plan=d["common_plan"], other_work=other)
            app = services.permit_application_start(
                acting_user=request.user, owner=owner, owner_name=d["owner_name"], owner_address=d["owner_address"],
                agent_name=d["agent_name"], site_address=d["site_address"], parcels=parcels,
                description=d["description"], project_type=d["project_type"], disturbance_sqft=d["disturbance_sqft"],
                determination=det, wetlands_jurisdiction=d["wetlands_jurisdiction"],
                other_board_hearing=d["other_board_hearing"], planning_board=d["planning_board"],
                autocad_plans=d["autocad_plans"])
            messages.success(request, f"Draft {app.case.number} opened. Upload the package, then file it.")
            return redirect("permit_detail", number=app.case.number)
    return render(request, "permits/new.html", {"form": form})


@require_perm()
def permit_detail(request, number: str):
    app = permit_get_for_user(user=request.user, number=number)
    return _detail_page(request, app)


def _detail_page(request, app, *, decision_form: DecisionForm | None = None, consultant_form: ConsultantForm | None = None,
                 appeal_form: AppealForm | None = None, status: int = 200):
    """The permit file; ``decision_form`` (``consultant_form``, ``appeal_form``) a refused decision (selection,
    appeal), bound (what was typed, errors at the fields)."""
    u = request.user
    case = app.case
    proposal = None
    if decision_form is None and u.can(Perm.PERMIT_DECIDE) and request.GET.get("sheets") == "proposed":
        # "Fill from the plan set" (issue 18): the sheet index of the plans under review into the decision form
        proposal = approved_sheets_proposed(app) or False
        if proposal:
            decision_form = DecisionForm(initial={"sheets": "\n".join(proposal.lines)})
    checklist = [(BY_KEY[i.key], i) for i in app.checklist.select_related("document")]
    eng = current_engagement(app)
    ctx = {
        "app": app, "case": case, "clocks": permit_clocks(app), "checklist": checklist,
        "documents": case.documents.select_related("uploaded_by"), "events": case.events.select_related("actor"),
        "abutters": app.abutters.all(), "engagement": eng, "engagements": app.consultants.prefetch_related("appeals"),
        "account": account_of(app) if app.account_entries.exists() else None, "entries": account_entries(app),
        "info_requests": app.info_requests.all(), "waivers": app.waivers.select_related("case"),
        "changes": app.changes.select_related("amended_case"), "conditions": app.conditions.all(),
        "notices": app.filing_notices.select_related("document"), "children": case.children.all(),
        "is_applicant": is_applicant(u, app), "act_applicant": may_act_for_applicant(u, app),
        "can_review": u.can(Perm.PERMIT_REVIEW), "can_decide": u.can(Perm.PERMIT_DECIDE),
        "can_account": u.can(Perm.PERMIT_ACCOUNT), "can_appeal_record": u.can(Perm.PERMIT_APPEAL_RECORD),
        "is_consultant": u.can(Perm.PERMIT_CONSULT), "is_design_engineer": is_design_engineer(u, app),
        "people": permit_people(app),
        "linkable_roles": list(services.LINKABLE_ROLES.items()),
        "upload_tags": [(i.key, i.label) for i in ITEMS if i.by_upload] + list(OTHER_TAGS.items()),
        "decision_form": decision_form or DecisionForm(), "consultant_form": consultant_form or ConsultantForm(),
        "sheets_proposal": proposal,
        "appeal_form": appeal_form or AppealForm(paper=u.can(Perm.PERMIT_APPEAL_RECORD)),
        "S": wf.Status, "today": timezone.localdate(), "schedule": fee_schedule_in_force(timezone.localdate()),
        "allowed": case.machine.transitions.get(case.status, frozenset()),
        # issue 30: before filing, what is missing and the fee due (the same reading the filing refusal gives)
        "filing": filing_readiness(app, timezone.localdate()) if case.status == wf.Status.DRAFT else None,
        # issue 30: the fee paid online (the pay-online hand-off of receivables/online_fees.py): offered, or pending
        "fee_online": fee_online_offer(app) if case.status == wf.Status.DRAFT else None,
        # issue 30: the one approval gate, said beside the decision form before the Director tries
        "approval_problem": (approval_problem(app) if case.status == wf.Status.UNDER_REVIEW and u.can(Perm.PERMIT_DECIDE)
                             else None),
    }
    return render(request, "permits/detail.html", ctx, status=status)


@require_perm()
def permit_document(request, number: str, doc_id: int):
    app = permit_get_for_user(user=request.user, number=number)
    doc = get_object_or_404(app.case.documents, pk=doc_id)
    return document_response(doc)


@require_POST
@require_perm()
def permit_upload(request, number: str):
    app = permit_get_for_user(user=request.user, number=number)
    tag = request.POST.get("tag", "other")
    if not may_upload(request.user, app, tag):
        raise PermissionDenied("You may not add documents to this file.")
    if tag not in BY_KEY and tag not in OTHER_TAGS:
        tag = "other"
    upload = request.FILES.get("file")
    if upload is None:
        return _refuse(request, app, "Choose a file to upload.", "file")

    def add():
        try:
            services.permit_document_upload(application=app, upload=upload, tag=tag,
                                            title=request.POST.get("title", ""), acting_user=request.user)
        except DocumentError as e:  # about the file: said at its input (a file is never sent back: choose it again)
            raise FieldRefusal(f"{e} Choose the file again.", "file") from e
    return _do(request, app, add, f"{upload.name} added to the file.")


# --- applicant acts -------------------------------------------------------------------------------

@require_POST
@require_perm(Perm.PERMIT_APPLY)
def permit_file_view(request, number: str):
    app = _for_applicant(request, number)
    return _do(request, app, lambda: services.permit_file(application=app, acting_user=request.user),
               "Application filed. The 42-day clock has started; notices went to the Town Clerk and the boards.")


@require_POST
@require_perm(Perm.PERMIT_APPLY)
def permit_withdraw_view(request, number: str):
    app = _for_applicant(request, number)
    return _do(request, app, lambda: services.permit_withdraw(application=app, acting_user=request.user,
                                                              why=request.POST.get("why", "")), "Application withdrawn.")


@require_POST
@require_perm(Perm.PERMIT_APPLY)
def permit_abutters(request, number: str):
    app = _for_applicant(request, number)
    return _do(request, app, lambda: services.abutters_set(
        application=app, text=request.POST.get("abutters", ""), acting_user=request.user,
        certified_on=date_value(request.POST.get("certified_on"), field="certified_on")), "Abutter list saved.")


@require_POST
@require_perm(Perm.PERMIT_APPLY)
def permit_abutters_mailed(request, number: str):
    app = _for_applicant(request, number)
    return _do(request, app, lambda: services.abutters_mailed(
        application=app, mailed_on=date_value(request.POST.get("mailed_on"), field="mailed_on"), acting_user=request.user),
        "Mailing recorded. Upload the certified-mail receipts as the proof of notice.")


@require_perm()
def permit_abutter_letters(request, number: str):
    app = permit_get_for_user(user=request.user, number=number)
    pdf = documents.abutter_letters_pdf(app, on=app.abutters_mailed_on or timezone.localdate())
    return download(pdf, name=f"{number}-abutter-letters", ext="pdf")


@require_perm()
def permit_abutter_labels(request, number: str):
    app = permit_get_for_user(user=request.user, number=number)
    return download(documents.abutter_labels_pdf(app), name=f"{number}-abutter-labels", ext="pdf")


@require_POST
@require_perm(Perm.PERMIT_APPLY)
def permit_items_received_view(request, number: str):
    app = _for_applicant(request, number)
    return _do(request, app, lambda: services.permit_items_received(application=app, acting_user=request.user,
                                                                    note=request.POST.get("note", "")),
               "Missing items submitted: the Director will determine completeness again.")


@require_POST
@require_perm(Perm.PERMIT_APPLY)
def permit_info_response(request, number: str):
    app = _for_applicant(request, number)
    return _do(request, app, lambda: services.permit_information_received(
        application=app, response=request.POST.get("response", ""), acting_user=request.user),
        "Response recorded; the review and its clock resume.")


@require_POST
@require_perm()
def permit_consultant_appeal(request, number: str):
    """The applicant's written appeal, or its receipt recorded by the Select Board's clerk (§ 380-10 G(2)(e))."""
    app = permit_get_for_user(user=request.user, number=number)
    if not (may_act_for_applicant(request.user, app) or request.user.can(Perm.PERMIT_APPEAL_RECORD)):
        raise PermissionDenied("Only the applicant or the Select Board's clerk may record an appeal.")
    form = AppealForm(request.POST, paper=request.user.can(Perm.PERMIT_APPEAL_RECORD))
    if form.is_valid():
        try:
            services.consultant_appeal_file(application=app, acting_user=request.user, **form.cleaned_data)
        except REFUSALS as e:
            add_refusal(form, e)
        else:
            messages.success(request, "Appeal recorded: the payment countdown and the action clock are stopped.")
            return redirect("permit_detail", number=number)
    # Refused: the file again with what was typed and the error at its field (issue 16 "Forms").
    return _detail_page(request, app, appeal_form=form, status=400)


@require_POST
@require_perm(Perm.PERMIT_APPLY)
def permit_change_notify(request, number: str):
    app = _for_applicant(request, number)
    return _do(request, app, lambda: services.project_change_notify(
        application=app,
        notified_on=date_value(request.POST["notified_on"], field="notified_on") if request.POST.get("notified_on") else None,
        description=request.POST.get("description", ""), acting_user=request.user), "Notice of change recorded.")


@require_POST
@require_perm(Perm.PERMIT_APPLY)
def permit_start_record(request, number: str):
    """The applicant's "Record start": the construction file's start, with its checks (§ 380-16 A–C, § 380-17 A;
    issue 18), recording the § 380-10 K start on the permit when they pass."""
    app = _for_applicant(request, number)

    def start():
        from stormwater.construction.services import construction_start

        on = date_value(request.POST.get("started_on"), field="started_on")
        project = getattr(app, "construction", None)
        if project is None:
            return services.project_start_record(application=app, started_on=on, acting_user=request.user)  # refused
        return construction_start(project=project, on=on, acting_user=request.user)
    return _do(request, app, start, "Start of construction recorded.")


@require_POST
@require_perm(Perm.PERMIT_APPLY)
def permit_waiver_request(request, number: str):
    app = _for_applicant(request, number)
    return _do(request, app, lambda: services.waiver_request(
        application=app, requirement=request.POST.get("requirement", ""),
        justification=request.POST.get("justification", ""), acting_user=request.user), "Waiver request recorded.")


@require_POST
@require_perm(Perm.PERMIT_APPLY)
def permit_waiver_respond(request, number: str, waiver_number: str):
    app = _for_applicant(request, number)
    w = get_object_or_404(Waiver, application=app, case__number=waiver_number)
    if request.POST.get("answer") == "decline":
        fn = lambda: services.waiver_applicant_declines(waiver=w, acting_user=request.user,  # noqa: E731
                                                        reason=request.POST.get("reason") or "applicant objects to "
                                                                                             "a continuance")
    else:
        fn = lambda: services.waiver_info_provided(waiver=w, acting_user=request.user)  # noqa: E731
    return _do(request, app, fn, "Waiver response recorded.")


# --- rule-making ----------------------------------------------------------------------------------

@require_perm(Perm.PERMIT_DECIDE)
def rule_hearings(request):
    form = RuleHearingForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            h = services.rule_hearing_create(acting_user=request.user, **form.cleaned_data)
        except ValueError as e:
            add_refusal(form, e)  # at its field (the notice date): issue 16 "Forms"
        else:
            messages.success(request, "Hearing recorded; the legal notice is ready.")
            return redirect("rule_hearing_notice", hearing_id=h.pk)
    return render(request, "permits/rule_hearings.html", {"form": form, "hearings": RuleHearing.objects.all()},
                  status=400 if form.errors else 200)


@require_perm(Perm.PERMIT_DECIDE)
def rule_hearing_notice(request, hearing_id: int):
    h = get_object_or_404(RuleHearing, pk=hearing_id)
    return download(documents.hearing_notice_pdf(h), name=f"rule-hearing-{h.pk}", ext="pdf")


# --- the permit's people (issue 18) ------------------------------------------------------------------

@require_POST
@require_perm()
def permit_party_link_view(request, number: str):
    """The applicant (or staff) links a signed-up design engineer, contractor or agent to the permit."""
    app = permit_get_for_user(user=request.user, number=number)
    if not may_act_for_applicant(request.user, app):
        raise PermissionDenied("Only the applicant or staff link people to this permit.")
    return _do(request, app, lambda: services.permit_party_link(
        application=app, who=request.POST.get("who", ""), role=request.POST.get("role", ""),
        acting_user=request.user), "Linked to the permit.")


@require_POST
@require_perm()
def permit_party_unlink_view(request, number: str, party_id: int):
    app = permit_get_for_user(user=request.user, number=number)
    if not may_act_for_applicant(request.user, app):
        raise PermissionDenied("Only the applicant or staff change who is linked to this permit.")
    return _do(request, app, lambda: services.permit_party_unlink(application=app, party_id=party_id,
                                                                  acting_user=request.user), "No longer linked.")
