"""Web pages of relief: the staff work queue, an owner's cases and applications, the case file.
Thin: parse, call one service (or one act of ``actions``), render. Every case is reached through
``relief_case_get_for_user`` (404 for anyone else's); every parcel and bill through its owner selector."""
from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from stormwater.accounts.access import require_perm
from stormwater.accounts.roles import Perm
from stormwater.cases.selectors import case_clocks
from stormwater.cases.services import DocumentError, TransitionError
from stormwater.parcels.selectors import parcel_get_for_user, parcels_for_user
from stormwater.receivables.models import CommitmentLine
from stormwater.utility.selectors import bill_get_for_user, bills_for_user
from stormwater.web.files import document_response, download
from stormwater.web.forms import FieldRefusal, add_refusal
from stormwater.web.once import submit_once
from stormwater.web.postdata import refused
from stormwater.cases.preview import preview_documents

from . import actions
from . import services as sv
from . import workflow as wf
from .forms import DECISION_FORMS, AbatementForm, CreditApplicationForm, LienAbatementForm, decision_form
from .lists import ReliefList
from .models import AbatementGround, AppealOutcome, CreditType, Decision
from .selectors import (abatement_windows, bill_abatable, bill_owed, detail_of, late_met, parcel_of, policy_in_force,
                        relief_case_get_for_user, relief_cases_for_user, work_queue)

FAIL = (sv.ReliefError, TransitionError, DocumentError, ValueError)


@require_perm()
def relief_home(request):
    """Staff: the work queue (every running clock, due first; missed Town deadlines flagged), then every case on
    the one list mechanism (``relief.lists``). Owners: their cases on the same list, and where to apply."""
    u = request.user
    staff = u.can(Perm.RELIEF_VIEW_ALL)
    lst = ReliefList(request, relief_cases_for_user(u))
    if (resp := lst.export_response()) is not None:
        return resp
    queue = work_queue() if staff else []
    return render(request, "relief/home.html", {
        "staff": staff, "queue": queue, "lst": lst, "can_apply": u.can(Perm.RELIEF_APPLY),
        "missed": sum(1 for r in queue if r.missed), "today": timezone.localdate()})


@require_perm()
def relief_policy(request):
    today = timezone.localdate()
    return render(request, "relief/policy.html", {"policy": policy_in_force(today), "today": today,
                                                  "can_policy": request.user.can(Perm.RELIEF_POLICY)})


@require_POST
@require_perm(Perm.RELIEF_POLICY)
def relief_policy_demo(request):
    try:
        p = sv.credit_policy_load_demo(effective_from=actions.parse_date(request.POST.get("effective_from"),
                                                                         "effective_from") or timezone.localdate(),
                                       acting_user=request.user)
    except FAIL as e:  # the policy page again, the date as typed and the error at it (issue 16 "Forms")
        return refused(request, e, reverse("relief_policy"))
    messages.success(request, f"{p.label} entered, in force from {p.effective_from}.")
    return redirect("relief_policy")


def _uploads(request, prefix: str = "doc_"):
    return [(k[len(prefix):], f) for k, f in request.FILES.items() if k.startswith(prefix)]


@require_perm(Perm.RELIEF_APPLY)
def credit_new(request):
    u = request.user
    today = timezone.localdate()
    policy = policy_in_force(today)
    types = list(policy.types.all()) if policy else []
    parcels = [] if u.can(Perm.RELIEF_REVIEW) else list(parcels_for_user(user=u)[:200])
    form = CreditApplicationForm(request.POST or None, types=types, parcels=parcels)
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        try:
            parcel = parcel_get_for_user(user=u, parcel_id=d["parcel_id"])
            ctype = CreditType.objects.get(policy=policy, code=d["credit_code"])
            app = sv.credit_apply(parcel=parcel, credit_type=ctype, statement=d["statement"], acting_user=u,
                                  uploads=_uploads(request))
        except Http404:
            form.add_error("parcel_id", "No such parcel of yours.")
        except FAIL as e:
            form.add_error(None, str(e))
        else:
            messages.success(request, f"Credit application {app.case.number} filed.")
            return redirect("relief_detail", number=app.case.number)
    return render(request, "relief/credit_new.html", {"form": form, "policy": policy, "types": types})


@require_perm(Perm.RELIEF_APPLY)
def abatement_new(request):
    u = request.user
    bills = [] if u.can(Perm.RELIEF_REVIEW) else list(bills_for_user(user=u).order_by("-issue_date")[:100])
    form = AbatementForm(request.POST or None, request.FILES or None, bills=bills,
                         initial={"bill": request.GET.get("bill", "")})
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        try:
            bill = bill_get_for_user(user=u, number=d["bill"])
            ev = [("evidence", d["evidence"])] if d.get("evidence") else []
            ab = sv.abatement_apply(bill=bill, grounds=d["grounds"], statement=d["statement"],
                                    amount_requested=d["amount"], disposition=d["disposition"], acting_user=u,
                                    uploads=ev)
        except Http404:
            form.add_error("bill", "No such bill of yours.")
        except FAIL as e:
            form.add_error(None, str(e))
        else:
            messages.success(request, f"Abatement application {ab.case.number} filed.")
            return redirect("relief_detail", number=ab.case.number)
    windows = [(b, abatement_windows(b), bill_owed(b, as_of=timezone.localdate()), bill_abatable(b)) for b in bills]
    return render(request, "relief/abatement_new.html", {"form": form, "windows": windows})


@require_perm(Perm.RELIEF_APPLY)
def lien_new(request):
    u = request.user
    form = LienAbatementForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        try:
            bill = bill_get_for_user(user=u, number=d["bill"])
            line = get_object_or_404(CommitmentLine.objects.select_related("commitment"), pk=d["commitment_line"],
                                     account=bill.account)
            ev = [("evidence", d["evidence"])] if d.get("evidence") else []
            ap = sv.lien_abatement_apply(bill=bill, commitment_line=line, grounds=d["grounds"],
                                         amount_requested=d["amount"], assessors_copy_on=d["assessors_copy_on"],
                                         acting_user=u, uploads=ev)
        except Http404:
            form.add_error(None, "No such bill or commitment line of yours.")
        except FAIL as e:
            form.add_error(None, str(e))
        else:
            messages.success(request, f"§16E abatement application {ap.case.number} filed.")
            return redirect("relief_detail", number=ap.case.number)
    lines = []
    if not u.can(Perm.RELIEF_REVIEW):
        accts = bills_for_user(user=u).values_list("account_id", flat=True)
        lines = CommitmentLine.objects.filter(account_id__in=accts).select_related("commitment", "account")
    return render(request, "relief/lien_new.html", {"form": form, "lines": lines})


@require_perm()
def relief_detail(request, number: str):
    case = relief_case_get_for_user(user=request.user, number=number)
    return _detail_page(request, case)


def _detail_page(request, case, *, refused: dict | None = None, status: int = 200):
    """The case file; ``refused`` holds a refused act's bound form (what was typed, errors at the fields)."""
    u = request.user
    detail = detail_of(case)
    clocks = case_clocks(case)
    today = timezone.localdate()
    ctx = {
        "case": case, "d": detail, "parcel": parcel_of(case), "clocks": [(cv, wf.clock_party(cv.clock.kind),
                                                                          late_met(cv)) for cv in clocks],
        "documents": case.documents.select_related("uploaded_by"), "events": case.events.select_related("actor"),
        "children": relief_cases_for_user(u).filter(parent=case), "today": today,
        "can": {name: actions.may(u, case, name) for name in actions.ACTIONS},
        "allowed": case.machine.transitions.get(case.status, frozenset()), "decisions": Decision.choices,
        "grounds": dict(AbatementGround.choices), "appeal_outcomes": AppealOutcome.choices,
        "may_upload": actions.is_party(u, case) or u.can(Perm.RELIEF_REVIEW),
        "forms": {name: decision_form(name) for name in DECISION_FORMS} | (refused or {}),
    }
    if case.kind == wf.CREDIT:
        ctx["missing"] = sv.credit_missing_documents(detail)
        ctx["grants"] = detail.grants.all()
        ctx["own_abatements"] = relief_cases_for_user(u).filter(kind=wf.ABATEMENT, abatement__bill__parcel=detail.parcel)
    if case.kind == wf.ABATEMENT:
        ctx["abatable"] = bill_abatable(detail.bill)
    ctx["appeal_window"] = next((cv for cv, _, _ in ctx["clocks"] if cv.clock.kind == wf.APPEAL_FILING), None)
    return render(request, "relief/detail.html", ctx, status=status)


@require_perm()
def relief_document(request, number: str, doc_id: int):
    case = relief_case_get_for_user(user=request.user, number=number)
    doc = get_object_or_404(case.documents, pk=doc_id)
    return document_response(doc)


@require_POST
@require_perm()
def relief_upload(request, number: str):
    u = request.user
    case = relief_case_get_for_user(user=u, number=number)
    if not (actions.is_party(u, case) or u.can(Perm.RELIEF_REVIEW)):
        raise PermissionDenied("Only the owner (or staff) may add documents to this case.")
    upload = request.FILES.get("file")
    to = reverse("relief_detail", kwargs={"number": number})
    if upload is None:
        return refused(request, FieldRefusal("Choose a file to upload.", "file"), to)
    tag = (request.POST.get("tag") or "evidence")[:60]
    keep = request.POST.get("keep_location") == "on"  # a photo keeps its GPS position only when asked (issue 27)
    try:
        if case.kind == wf.CREDIT:
            sv.credit_upload(application=detail_of(case), upload=upload, tag=tag, acting_user=u, keep_location=keep)
        else:
            from stormwater.cases.services import case_document_add

            case_document_add(case=case, upload=upload, tag=tag, title=request.POST.get("title") or "Evidence",
                              acting_user=u, keep_location=keep)
    except FAIL as e:  # about the file: said at its input (a file is never sent back: choose it again)
        return refused(request, FieldRefusal(f"{e} Choose the file again.", getattr(e, "field", None) or "file"), to)
    messages.success(request, f"{upload.name} added to the case file.")
    return redirect("relief_detail", number=number)


@require_POST
@require_perm()
@submit_once
def relief_act(request, number: str, action: str):
    """One act on the case (the table in ``actions``): its own permission is checked there."""
    case = relief_case_get_for_user(user=request.user, number=number)
    # A written decision refused comes back as the page again, with what was typed and the error at its field.
    form = decision_form(action, request.POST) if action in DECISION_FORMS else None
    if form is not None and not form.is_valid() and actions.may(request.user, case, action):
        return _detail_page(request, case, refused={action: form}, status=400)
    try:
        out = actions.act(case=case, name=action, params=request.POST, user=request.user)
    except FAIL as e:
        if form is not None:
            add_refusal(form, e)
            return _detail_page(request, case, refused={action: form}, status=400)
        # A row form: the case page again with the form as it was sent, the error at its input (issue 16 "Forms").
        return refused(request, e, reverse("relief_detail", kwargs={"number": number}))
    else:
        messages.success(request, f"{actions.ACTIONS[action].label}: done.")
        if action == "appeal":
            return redirect("relief_detail", number=out.case.number)
    return redirect("relief_detail", number=number)


@require_POST
@require_perm()
def relief_preview(request, number: str, action: str):
    """The written decision as the PDF it would be, marked as a preview; nothing is issued (cases/preview.py).
    Refused: the page again with the errors at the fields, as the act itself answers."""
    case = relief_case_get_for_user(user=request.user, number=number)
    if action not in DECISION_FORMS:
        raise Http404("Only a written decision has a preview.")
    form = decision_form(action, request.POST)
    if form.is_valid():
        try:
            docs = preview_documents(lambda: actions.act(case=case, name=action, params=request.POST,
                                                         user=request.user), case=case)
        except FAIL as e:
            add_refusal(form, e)
        else:
            name, pdf = next(((n, c) for n, c in docs if "-decision-" in n), docs[0])
            return download(pdf, name=f"PREVIEW-{name.removesuffix('.pdf')}", ext="pdf")
    return _detail_page(request, case, refused={action: form}, status=400)
