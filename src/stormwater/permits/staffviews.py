"""Web pages of the permit file: the staff's acts on it (the checklist, completeness, information requests,
extensions, the outside consultant and the special account, the decision, closing, project changes, waivers). Thin
like ``views``, whose file page a refused form re-renders: parse, call one service, render. Every view is guarded by
``require_perm``; every file is reached through ``permit_get_for_user`` (404 for anyone else's)."""
from __future__ import annotations

from django.contrib import messages
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from stormwater.accounts.access import require_perm
from stormwater.accounts.models import User
from stormwater.accounts.roles import Perm
from stormwater.web.files import download
from stormwater.web.forms import FieldRefusal, add_refusal
from stormwater.web.once import submit_once
from stormwater.cases.preview import preview_documents
from stormwater.web.postdata import REFUSALS, date_value, money_value, refused, whole_value

from . import documents, services
from .checklist import BY_KEY
from .forms import MAX_EXTENSION_DAYS, ConsultantForm, DecisionForm, StandardConditionForm
from .models import AccountEntryKind, ProjectChange, StandardCondition, Waiver
from .standard_conditions import conditions_with_standard, standard_condition_save
from .selectors import account_entries, account_of, permit_get_for_user
from .views import _detail_page, _do, _refuse, _to


@require_POST
@require_perm(Perm.PERMIT_REVIEW)
def permit_checklist_confirm(request, number: str, key: str):
    app = permit_get_for_user(user=request.user, number=number)
    if key not in BY_KEY:
        raise Http404("No such checklist item.")
    return _do(request, app, lambda: services.checklist_confirm(application=app, key=key, acting_user=request.user,
                                                                note=request.POST.get("note", "")),
               f"{BY_KEY[key].label}: received.")


@require_POST
@require_perm(Perm.PERMIT_REVIEW)
def permit_fees_paid_view(request, number: str):
    app = permit_get_for_user(user=request.user, number=number)
    return _do(request, app, lambda: services.permit_fees_paid(
        application=app, paid_on=date_value(request.POST.get("paid_on"), timezone.localdate(), field="paid_on"),
        receipt=request.POST.get("receipt", ""), acting_user=request.user), "Fees recorded as paid.")


@require_POST
@require_perm(Perm.PERMIT_REVIEW)
def permit_complete(request, number: str):
    app = permit_get_for_user(user=request.user, number=number)
    return _do(request, app, lambda: services.permit_determine_complete(application=app, acting_user=request.user),
               "Determined complete: review begins.")


@require_POST
@require_perm(Perm.PERMIT_REVIEW)
def permit_incomplete(request, number: str):
    app = permit_get_for_user(user=request.user, number=number)
    return _do(request, app, lambda: services.permit_determine_incomplete(
        application=app, cure_by=date_value(request.POST.get("cure_by"), field="cure_by"), note=request.POST.get("note", ""),
        acting_user=request.user), "Determined incomplete: notice generated, the 42-day clock is stopped.")


@require_POST
@require_perm(Perm.PERMIT_REVIEW)
def permit_info_request(request, number: str):
    app = permit_get_for_user(user=request.user, number=number)
    return _do(request, app, lambda: services.permit_request_information(
        application=app, items=request.POST.get("items", ""), acting_user=request.user),
        "Information requested: letter generated, the 42-day clock is stopped.")


def _extension_days(request) -> int:
    """The days of an extension (the review clock's or the project start's), either way up to the form's limit."""
    return whole_value(request.POST.get("days"), "days", lo=-MAX_EXTENSION_DAYS, hi=MAX_EXTENSION_DAYS, default=0)


@require_POST
@require_perm(Perm.PERMIT_REVIEW)
def permit_extend_view(request, number: str):
    app = permit_get_for_user(user=request.user, number=number)
    return _do(request, app, lambda: services.permit_extend(
        application=app, days=_extension_days(request), reason=request.POST.get("reason", ""),
        acting_user=request.user), "Extension recorded.")


@require_POST
@require_perm(Perm.PERMIT_DECIDE)
def permit_deny_incomplete_view(request, number: str):
    app = permit_get_for_user(user=request.user, number=number)
    return _do(request, app, lambda: services.permit_deny_incomplete(application=app, acting_user=request.user),
               "Denied as administratively incomplete.")


@require_POST
@require_perm(Perm.PERMIT_DECIDE)
def permit_consultant_select(request, number: str):
    app = permit_get_for_user(user=request.user, number=number)
    form = ConsultantForm(request.POST)
    if form.is_valid():
        d = dict(form.cleaned_data)
        username = d.pop("username")
        d["user"] = User.objects.filter(username=username).first() if username else None
        try:
            services.consultant_select(application=app, acting_user=request.user, **d)
        except REFUSALS as e:
            add_refusal(form, e)
        else:
            messages.success(request, "Consultant selected; the notice and payment request were generated.")
            return redirect("permit_detail", number=number)
    # Refused: the file again with what was typed and the error at its field (issue 16 "Forms").
    return _detail_page(request, app, consultant_form=form, status=400)


@require_POST
@require_perm(Perm.PERMIT_APPEAL_RECORD)
def permit_consultant_appeal_decide(request, number: str):
    app = permit_get_for_user(user=request.user, number=number)
    return _do(request, app, lambda: services.consultant_appeal_decide(
        application=app, decided_on=date_value(request.POST.get("decided_on"), field="decided_on"), outcome=request.POST.get("outcome", ""),
        note=request.POST.get("note", ""), acting_user=request.user), "The Select Board's decision is recorded.")


@require_POST
@require_perm(Perm.PERMIT_DECIDE)
def permit_consultant_additional_fee(request, number: str):
    app = permit_get_for_user(user=request.user, number=number)
    return _do(request, app, lambda: services.consultant_additional_fee(
        application=app, amount=money_value(request.POST.get("amount"), "amount"), reason=request.POST.get("reason", ""),
        on=date_value(request.POST.get("on"), timezone.localdate(), field="on"), acting_user=request.user),
        "Additional fee requested; the letter is in the file.")


@require_POST
@require_perm(Perm.PERMIT_DECIDE)
def permit_deny_nonpayment_view(request, number: str):
    app = permit_get_for_user(user=request.user, number=number)
    return _do(request, app, lambda: services.permit_deny_nonpayment(application=app, acting_user=request.user),
               "Denied: consultant fee not paid.")


@require_POST
@require_perm(Perm.PERMIT_ACCOUNT)
def permit_account_entry(request, number: str):
    app = permit_get_for_user(user=request.user, number=number)
    kind = request.POST.get("kind")
    try:
        on = date_value(request.POST.get("on"), timezone.localdate(), field="on")
    except ValueError as e:
        return refused(request, e, _to(app))
    ref = request.POST.get("reference", "")
    if kind == AccountEntryKind.DEPOSIT:
        fn = lambda: services.consultant_fee_deposit(  # noqa: E731
            application=app, amount=money_value(request.POST.get("amount"), "amount"), on=on, reference=ref,
            acting_user=request.user)
    elif kind == AccountEntryKind.INTEREST:
        fn = lambda: services.account_interest(  # noqa: E731
            application=app, amount=money_value(request.POST.get("amount"), "amount"), on=on, reference=ref,
            acting_user=request.user)
    elif kind == AccountEntryKind.REFUND:
        fn = lambda: services.account_refund(application=app, on=on, payee=request.POST.get("payee", ""),  # noqa
                                             successor=bool(request.POST.get("successor")), reference=ref,
                                             acting_user=request.user)
    else:
        return _refuse(request, app, "Unknown account entry.", "kind")
    return _do(request, app, fn, "Account entry recorded.")


@require_POST
@require_perm(Perm.PERMIT_DECIDE)
def permit_account_expenditure(request, number: str):
    app = permit_get_for_user(user=request.user, number=number)
    return _do(request, app, lambda: services.account_expenditure(
        application=app, amount=money_value(request.POST.get("amount"), "amount"),
        on=date_value(request.POST.get("on"), timezone.localdate(), field="on"), payee=request.POST.get("payee", ""),
        memo=request.POST.get("memo", "") or "Consultant services", reference=request.POST.get("reference", ""),
        acting_user=request.user), "Expenditure recorded.")


@require_perm()
def permit_account_report(request, number: str):
    app = permit_get_for_user(user=request.user, number=number)
    pdf = documents.account_report_pdf(app, entries=account_entries(app), summary=account_of(app),
                                       on=timezone.localdate())
    return download(pdf, name=f"{number}-53g-account", ext="pdf")


@require_POST
@require_perm(Perm.PERMIT_DECIDE)
@submit_once
def permit_decide_view(request, number: str):
    app = permit_get_for_user(user=request.user, number=number)
    form = DecisionForm(request.POST)
    if form.is_valid():
        d = form.cleaned_data
        try:
            services.permit_decide(application=app, kind=d["kind"], findings=d["findings"], standards=d["standards"],
                                   conditions=d["conditions"].splitlines(), order_of_conditions=d["order_of_conditions"],
                                   sheets=d["sheets"].splitlines(), acting_user=request.user)
        except REFUSALS as e:
            add_refusal(form, e)
        else:
            messages.success(request, "Decision recorded; the decision document is in the file.")
            return redirect("permit_detail", number=number)
    # Refused: the file again with what was typed and the error at its field (issue 16 "Forms").
    return _detail_page(request, app, decision_form=form, status=400)


@require_POST
@require_perm(Perm.PERMIT_DECIDE)
def permit_decide_standard(request, number: str):
    """Issue 30: the ticked standard conditions copied into the decision form's conditions, everything else as it was
    typed; nothing is decided — the form comes back to be read, edited and recorded."""
    app = permit_get_for_user(user=request.user, number=number)
    p = request.POST
    initial = {"kind": p.get("kind", ""), "findings": p.get("findings", ""), "standards": p.getlist("standards"),
               "conditions": conditions_with_standard(p.get("conditions", ""), p.getlist("standard")),
               "order_of_conditions": p.get("order_of_conditions", ""), "sheets": p.get("sheets", "")}
    return _detail_page(request, app, decision_form=DecisionForm(initial=initial))


@require_POST
@require_perm(Perm.PERMIT_DECIDE)
def permit_decide_preview(request, number: str):
    """The decision (and the permit it issues) as the PDF it would be, marked as a preview; nothing is issued
    (cases/preview.py). Refused: the file again with the errors at the fields, as the act itself answers."""
    app = permit_get_for_user(user=request.user, number=number)
    form = DecisionForm(request.POST)
    if form.is_valid():
        d = form.cleaned_data
        try:
            docs = preview_documents(lambda: services.permit_decide(
                application=app, kind=d["kind"], findings=d["findings"], standards=d["standards"],
                conditions=d["conditions"].splitlines(), order_of_conditions=d["order_of_conditions"],
                sheets=d["sheets"].splitlines(), acting_user=request.user), case=app.case)
        except REFUSALS as e:
            add_refusal(form, e)
        else:
            if docs:
                name, pdf = docs[0]
                return download(pdf, name=f"PREVIEW-{name.removesuffix('.pdf')}", ext="pdf")
            form.add_error(None, "This decision issues no document to preview.")
    return _detail_page(request, app, decision_form=form, status=400)


@require_POST
@require_perm(Perm.PERMIT_DECIDE)
def permit_close_view(request, number: str):
    app = permit_get_for_user(user=request.user, number=number)
    return _do(request, app, lambda: services.permit_close(application=app, acting_user=request.user,
                                                           why=request.POST.get("why", "")), "File closed.")


@require_POST
@require_perm(Perm.PERMIT_DECIDE)
def permit_change_determine(request, number: str, change_id: int):
    app = permit_get_for_user(user=request.user, number=number)
    ch = get_object_or_404(ProjectChange, application=app, pk=change_id)
    return _do(request, app, lambda: services.project_change_determine(
        change=ch, significant=request.POST.get("significant") == "yes",
        interim_measures=request.POST.get("interim_measures", ""), note=request.POST.get("note", ""),
        acting_user=request.user), "Determination recorded.")


@require_POST
@require_perm(Perm.PERMIT_DECIDE)
def permit_start_extend(request, number: str):
    app = permit_get_for_user(user=request.user, number=number)
    return _do(request, app, lambda: services.project_start_extend(
        application=app, days=_extension_days(request), reason=request.POST.get("reason", ""),
        acting_user=request.user), "Start date extended.")


@require_POST
@require_perm(Perm.PERMIT_DECIDE)
def permit_segmentation(request, number: str):
    app = permit_get_for_user(user=request.user, number=number)

    def fn():
        finding = request.POST.get("finding")
        if finding not in ("one_project", "separate"):
            raise FieldRefusal("Choose one project or separate projects.", "finding")
        from stormwater.cases.services import event_record
        app.segmentation_finding, app.segmentation_reason = finding, request.POST.get("reason", "")
        app.save(update_fields=["segmentation_finding", "segmentation_reason"])
        event_record(case=app.case, kind="segmentation", acting_user=request.user,
                     why=f"Director's finding (§ 380-4 A): {app.get_segmentation_finding_display()}. "
                         f"{app.segmentation_reason}")
    return _do(request, app, fn, "Finding recorded.")


@require_POST
@require_perm(Perm.PERMIT_DECIDE)
def permit_waiver_act(request, number: str, waiver_number: str):
    app = permit_get_for_user(user=request.user, number=number)
    w = get_object_or_404(Waiver, application=app, case__number=waiver_number)
    action = request.POST.get("action")
    u = request.user
    if action == "comment":
        fn = lambda: services.waiver_public_comment(waiver=w, from_on=date_value(request.POST.get("on"),  # noqa: E731
                                                                            timezone.localdate(), field="on"),
                                                    note=request.POST.get("note", ""), acting_user=u)
    elif action == "info":
        fn = lambda: services.waiver_request_info(waiver=w, info=request.POST.get("note", ""), acting_user=u)  # noqa
    elif action in ("grant", "deny"):
        findings = tuple(bool(request.POST.get(f"a{i}")) for i in (1, 2, 3))
        fn = lambda: services.waiver_decide(waiver=w, grant=action == "grant", note=request.POST.get("note", ""),  # noqa
                                            findings=findings, acting_user=u)
    else:
        return _refuse(request, app, "Unknown waiver action.", "action")
    return _do(request, app, fn, "Waiver updated.")


@require_perm(Perm.PERMIT_DECIDE)
def standard_conditions(request, pk: int | None = None):
    """The Director's library of standard permit conditions (issue 30): the list, a new one, or one changed."""
    condition = get_object_or_404(StandardCondition, pk=pk) if pk is not None else None
    form = StandardConditionForm(request.POST or None, instance=condition)
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        try:
            standard_condition_save(acting_user=request.user, condition=condition, title=d["title"], text=d["text"],
                                    citation=d["citation"], active=d["active"], seq=d["seq"])
        except REFUSALS as e:
            add_refusal(form, e)
        else:
            messages.success(request, "Standard condition saved.")
            return redirect("permit_standard_conditions")
    return render(request, "permits/standard_conditions.html", {
        "form": form, "condition": condition, "conditions": StandardCondition.objects.all()},
        status=400 if form.errors else 200)
