"""Web pages of the reviewer's workbench. Thin: parse, call one service, render. Every view is guarded
by ``require_perm``; the permit file is reached through ``permits.selectors.permit_get_for_user`` (404
for anyone else's), a pre-application meeting through ``meeting_get_for_user``."""
from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from stormwater.accounts.access import require_perm
from stormwater.accounts.models import User
from stormwater.accounts.roles import Perm
from stormwater.permits.models import Waiver
from stormwater.permits.selectors import may_act_for_applicant, permit_get_for_user
from stormwater.web.context import shown_at
from stormwater.web.files import download
from stormwater.web.forms import FieldRefusal, add_refusal
from stormwater.web.postdata import REFUSALS, act, attempt

from . import catalog, documents, selectors, services
from .forms import FINDING_CHOICES, DecideForm, MeetingForm, parse_findings
from .lists import MeetingList
from .models import LidAnswer, PreApplicationMeeting

def _ctx(request, app, **extra):
    u = request.user
    return {"app": app, "case": app.case, "can_review": u.can(Perm.PERMIT_REVIEW),
            "can_decide": u.can(Perm.PERMIT_DECIDE), "act_applicant": may_act_for_applicant(u, app),
            "finding_choices": FINDING_CHOICES, **extra}


@require_perm()
def workbench_home(request, number: str):
    """At a glance, the checklists with their counts, requests, waivers by item, the engineering review."""
    app = permit_get_for_user(user=request.user, number=number)
    return _home_page(request, app)


def _home_page(request, app, *, decide_form: DecideForm | None = None, status: int = 200):
    """The workbench; ``decide_form`` a refused decision, bound (what was typed, the errors at the fields)."""
    wb = selectors.workbench_for(app)
    per_list = []
    for cl, rows in wb["checklists"]:
        sts = [s for _, s in rows if s is not None]
        per_list.append((cl, len(sts), sum(1 for s in sts if not s.reviewed), sum(1 for s in sts if s.open_deficiency)))
    decide_form = decide_form or DecideForm(initial={
        "kind": "approve_conditions", "standards": ["380-11B", "380-11C", "380-12", "380-13"],
        "conditions": "\n".join(c for _, c in wb["proposed_conditions"])})
    return render(request, "workbench/home.html", _ctx(request, app, **wb, per_list=per_list,
                                                        decide_form=decide_form), status=status)


@require_perm()
def workbench_checklist(request, number: str, checklist: str):
    app = permit_get_for_user(user=request.user, number=number)
    cl = catalog.CHECKLIST_BY_KEY.get(checklist)
    if cl is None:
        raise Http404("No such checklist.")
    return _checklist_page(request, app, cl)


def _checklist_page(request, app, cl, *, form=None, status: int = 200):
    """The checklist by section; ``form`` is a refused section (issue 16 "Forms": every value typed kept, the
    error at its row's field, the error summary at the top)."""
    from .forms import ChecklistForm

    wb = selectors.workbench_for(app)
    rows = dict(wb["checklists"])[cl]
    documents = list(app.case.documents.all())
    form = form or ChecklistForm(entries=[e for e, s in rows if s], documents=documents)
    sections = [(head, form.rows(items)) for head, items in _sections(rows)]
    shown_at(request, reverse("workbench_checklist", args=[app.case.number, cl.key]))  # also after a refused save
    return render(request, "workbench/checklist.html", _ctx(request, app, checklist=cl, sections=sections,
                                                             glance=wb["glance"], review=wb["review"],
                                                             documents=documents, form=form), status=status)


def _sections(rows):
    """The checklist's rows by section — each group heading with the items below it — so that each section is
    a form of its own (issue 16: one 9,435 px form of 301 inputs was too much to fill and to lose)."""
    out: list[tuple[object, list]] = []
    for e, s in rows:
        if not s:
            out.append((e, []))
        else:
            if not out:
                out.append((None, []))
            out[-1][1].append((e, s))
    return [(head, items) for head, items in out if items]


@require_POST
@require_perm(Perm.PERMIT_REVIEW)
def workbench_checklist_record(request, number: str, checklist: str):
    app = permit_get_for_user(user=request.user, number=number)
    cl = catalog.CHECKLIST_BY_KEY.get(checklist)
    if cl is None:
        raise Http404("No such checklist.")
    from stormwater.web.forms import add_refusal

    from .forms import ChecklistForm

    documents = list(app.case.documents.all())
    entries = [e for e in catalog.entries_of(cl.key) if e.is_item]
    form = ChecklistForm(request.POST, entries=entries, documents=documents)
    if form.is_valid():
        try:
            found = parse_findings(form.cleaned_data, [e.para for e in entries], {d.pk: d for d in documents})
            services.item_findings_record(application=app, findings=found, acting_user=request.user)
        except REFUSALS as e:
            add_refusal(form, e)
        else:
            messages.success(request, "Findings recorded.")
            return redirect("workbench_checklist", number=number, checklist=checklist)
    return _checklist_page(request, app, cl, form=form, status=400)


def _entry(key: str):
    e = catalog.BY_KEY.get(key)
    if e is None or not e.is_item:
        raise Http404("No such checklist item.")
    return e


@require_perm()
def workbench_item(request, number: str, key: str):
    app = permit_get_for_user(user=request.user, number=number)
    e = _entry(key)
    review = selectors._latest_review(app.case)
    state = selectors.item_states(app, review=review)[e.para]
    return render(request, "workbench/item.html", _ctx(request, app, entry=e, state=state,
                                                        history=selectors.item_history(app, e.para),
                                                        documents=app.case.documents.all(),
                                                        waivers=Waiver.objects.filter(application=app)
                                                        .select_related("case")))


@require_POST
@require_perm(Perm.PERMIT_REVIEW)
def workbench_item_record(request, number: str, key: str):
    app = permit_get_for_user(user=request.user, number=number)
    e = _entry(key)
    docs = {d.pk: d for d in app.case.documents.all()}
    # Refused: the item's page again with the finding as typed and the error at its input (issue 16 "Forms").
    return act(request, lambda: services.item_findings_record(
        application=app, acting_user=request.user, findings=parse_findings(request.POST, [e.para], docs)
        or [{"para": e.para, "finding": ""}]), f"§ {e.para}: finding recorded.",
        reverse("workbench_item", kwargs={"number": number, "key": key}))


@require_POST
@require_perm(Perm.PERMIT_REVIEW)
def workbench_raise(request, number: str):
    """The chosen deficient or missing items become one information request (§ 380-10 E)."""
    app = permit_get_for_user(user=request.user, number=number)
    paras = request.POST.getlist("item")
    return act(request, lambda: services.items_raise_information_request(application=app, paras=paras,
                                                                          acting_user=request.user),
               f"Information request sent: {len(paras)} item(s); the 42 days stand still until the response.",
               reverse("workbench_home", kwargs={"number": number}))


@require_POST
@require_perm()
def workbench_waiver(request, number: str):
    """A waiver request from one item's requirement (§ 380-8 B), or an existing one attached to the item."""
    app = permit_get_for_user(user=request.user, number=number)
    e = _entry(request.POST.get("key", ""))
    existing = request.POST.get("waiver", "").strip()
    to = reverse("workbench_item", kwargs={"number": number, "key": e.key})
    if existing:
        if not request.user.can(Perm.PERMIT_REVIEW):
            raise PermissionDenied("Only staff attach an existing waiver to an item.")
        w = Waiver.objects.filter(application=app, case__number=existing).first()
        if w is None:
            raise Http404("No such waiver on this file.")
        return act(request, lambda: services.item_waiver_attach(waiver=w, para=e.para, acting_user=request.user),
                   f"Waiver {existing} attached to § {e.para}.", to)
    else:
        if not may_act_for_applicant(request.user, app):
            raise PermissionDenied("Only the applicant (or staff for them) requests a waiver.")
        return act(request, lambda: services.item_waiver_request(
            application=app, para=e.para, acting_user=request.user,
            justification=request.POST.get("justification", "")), f"Waiver requested from § {e.para}.", to)


@require_perm()
def workbench_summary(request, number: str):
    app = permit_get_for_user(user=request.user, number=number)
    return render(request, "workbench/summary.html", {**selectors.review_summary(app), **_ctx(request, app)})


@require_perm()
def workbench_summary_pdf(request, number: str):
    app = permit_get_for_user(user=request.user, number=number)
    return download(documents.review_summary_pdf(selectors.review_summary(app)),
                    name=f"{app.case.number}-review-summary", ext="pdf")


@require_POST
@require_perm(Perm.PERMIT_REVIEW)
def workbench_summary_keep(request, number: str):
    app = permit_get_for_user(user=request.user, number=number)
    attempt(request, lambda: services.review_summary_keep(application=app, acting_user=request.user),
         "Review summary kept in the file.")
    return redirect("workbench_summary", number=number)


@require_POST
@require_perm(Perm.PERMIT_DECIDE)
def workbench_decide(request, number: str):
    app = permit_get_for_user(user=request.user, number=number)
    form = DecideForm(request.POST)
    if form.is_valid():
        d = form.cleaned_data
        try:
            services.workbench_decide(
                application=app, kind=d["kind"], findings=d["findings"], standards=d["standards"],
                conditions=d["conditions"].splitlines(), order_of_conditions=d["order_of_conditions"],
                acting_user=request.user)
        except REFUSALS as e:
            add_refusal(form, e)
        else:
            messages.success(request, "Decision issued; the review summary is kept with it.")
            return redirect("workbench_summary", number=number)
    # Refused: the workbench again with the decision as typed and the errors at its fields (issue 16 "Forms").
    return _home_page(request, app, decide_form=form, status=400)


# --- pre-application meetings (§ 380-10 A) ---------------------------------------------------------

@require_perm()
def meeting_list(request):
    return _meetings_page(request)


def _meetings_page(request, *, form: MeetingForm | None = None, status: int = 200):
    """The meetings; ``form`` a refused new meeting, bound (what was typed, the errors at the fields)."""
    lst = MeetingList(request, selectors.meetings_for_user(request.user))
    if (resp := lst.export_response()) is not None:
        return resp
    return render(request, "workbench/meetings.html", {
        "lst": lst, "form": form or MeetingForm(),
        "can_review": request.user.can(Perm.PERMIT_REVIEW)}, status=status)


@require_POST
@require_perm(Perm.PERMIT_REVIEW)
def meeting_new(request):
    form = MeetingForm(request.POST)
    if not form.is_valid():  # the list again with the meeting as typed, the errors at the fields (issue 16)
        return _meetings_page(request, form=form, status=400)
    d = form.cleaned_data
    applicant = User.objects.filter(username=d["applicant_username"]).first() if d["applicant_username"] else None
    m = services.meeting_schedule(applicant_name=d["applicant_name"], applicant_email=d["applicant_email"],
                                  applicant=applicant, site_address=d["site_address"], concept=d["concept"],
                                  scheduled_at=d["scheduled_at"], location=d["location"], acting_user=request.user)
    messages.success(request, "Pre-application meeting scheduled.")
    return redirect("meeting_detail", meeting_id=m.pk)


@require_perm()
def meeting_detail(request, meeting_id: int):
    return _meeting_page(request, selectors.meeting_get_for_user(user=request.user, meeting_id=meeting_id))


def _meeting_page(request, m, *, attendee_form=None, status: int = 200):
    """The meeting's page; ``attendee_form`` is a refused attendee (what was typed, the error at its field)."""
    from .forms import AttendeeForm

    return render(request, "workbench/meeting.html", {
        "m": m, "attendees": m.attendees.all(), "lid": selectors.lid_answers(m), "answers": LidAnswer.choices,
        "can_review": request.user.can(Perm.PERMIT_REVIEW), "states": PreApplicationMeeting.State.choices,
        "attendee_form": attendee_form or AttendeeForm()}, status=status)


@require_POST
@require_perm(Perm.PERMIT_REVIEW)
def meeting_attendee(request, meeting_id: int):
    from stormwater.web.forms import add_refusal

    from .forms import AttendeeForm

    m = selectors.meeting_get_for_user(user=request.user, meeting_id=meeting_id)
    form = AttendeeForm(request.POST)
    if form.is_valid():
        cd = form.cleaned_data
        try:
            services.meeting_attendee_add(meeting=m, name=cd["name"], organization=cd["organization"],
                                          invited_board=cd["invited_board"], acting_user=request.user)
        except ValueError as e:
            add_refusal(form, e)
        else:
            messages.success(request, "Attendee added.")
            return redirect("meeting_detail", meeting_id=m.pk)
    return _meeting_page(request, m, attendee_form=form, status=400)


@require_POST
@require_perm(Perm.PERMIT_REVIEW)
def meeting_update(request, meeting_id: int):
    m = selectors.meeting_get_for_user(user=request.user, meeting_id=meeting_id)
    number = request.POST.get("case", "").strip()

    def do():
        try:
            case = permit_get_for_user(user=request.user, number=number).case if number else None
        except Http404:
            raise FieldRefusal(f"No permit file {number}.", "case") from None
        services.meeting_record(meeting=m, acting_user=request.user, state=request.POST.get("state") or None,
                                notes=request.POST.get("notes"), case=case)
    # Refused: the meeting's page again with what was typed and the error at its input (issue 16 "Forms").
    return act(request, do, "Meeting record saved.", reverse("meeting_detail", kwargs={"meeting_id": m.pk}))


@require_POST
@require_perm(Perm.PERMIT_REVIEW)
def meeting_lid(request, meeting_id: int):
    m = selectors.meeting_get_for_user(user=request.user, meeting_id=meeting_id)
    answers = [{"para": e.para, "answer": request.POST[f"a-{e.key}"], "note": request.POST.get(f"n-{e.key}", "")}
               for e in catalog.LID_DESIGN_CHECKLIST if request.POST.get(f"a-{e.key}")]
    return act(request, lambda: services.lid_answers_record(meeting=m, answers=answers, acting_user=request.user),
               "LID design checklist saved.", reverse("meeting_detail", kwargs={"meeting_id": m.pk}))
