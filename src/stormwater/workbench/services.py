"""State changes of the reviewer's workbench (issue 10). Each is atomic, takes ``acting_user``, writes
an audit row and, where the permit file should show it, an event on the case timeline. Information
requests, waivers and decisions are the permit file's own services (``stormwater.permits.services``):
the workbench calls them, it does not duplicate them."""
from __future__ import annotations

from datetime import date

from django.db import transaction
from django.utils import timezone

from stormwater.audit.services import actor_or_none as _actor, audit_record
from stormwater.cases.services import case_document_generate, event_record
from stormwater.permits import services as permit_services
from stormwater.permits import workflow as pwf
from stormwater.permits.approval import ERR_OPEN, ERR_REQUESTED, ERR_UNREVIEWED  # noqa: F401  (one gate, issue 30)
from stormwater.permits.models import DecisionKind, PermitApplication
from stormwater.web.forms import FieldRefusal  # a refusal naming its input (issue 16 "Forms")

from . import catalog, documents
from .models import (Finding, ItemFinding, ItemWaiver, LidAnswer, LidChecklistAnswer, MeetingAttendee,
                     PreApplicationMeeting, RaisedItem)
from .selectors import OPEN, item_states, review_summary

ERR_UNKNOWN_ITEM = "{para!r} is not an item of the checklists (§§ 380-11 B–C, 380-12, 380-13)."
ERR_FINDING = "{value!r} is not a finding: provided, not_provided, not_applicable or deficient."
ERR_NA_REASON = "§ {para}: say why the item is not applicable."
ERR_DEFICIENT_COMMENT = "§ {para}: a deficient item needs the reviewer's comment."
ERR_LID_REASON = ("§ {para}: an LID strategy not met needs the applicant's documented reason and the mitigation "
                  "proposed (§ 380-11 B(4)(b)).")
ERR_DOCUMENT = "The document cited must be one of this file's documents."
ERR_NOT_REVIEWABLE = "The file is {status}: checklist findings are recorded from filing until the decision."
ERR_NOTHING = "Choose at least one item."
ERR_NOT_RAISABLE = ("§ {para} is not a deficient or missing item awaiting a request (it is {state}): only those "
                    "become an information request.")
ERR_ATTENDEE = "Give the attendee's name."
ERR_LID_ANSWER = "{value!r} is not an answer on the LID design checklist."
ERR_LID_NOTE = "§ {para}: say why the strategy is not feasible and the mitigation proposed (§ 380-11 B(4)(b))."
ERR_MEETING_CANCELLED = "The meeting was cancelled."

REVIEWABLE = frozenset({pwf.Status.FILED, pwf.Status.INCOMPLETE, pwf.Status.UNDER_REVIEW, pwf.Status.INFO_REQUESTED,
                        pwf.Status.CONSULTANT_FEE_DUE, pwf.Status.CONSULTANT_APPEAL})




def _item(para: str) -> catalog.Entry:
    e = catalog.BY_PARA.get(para) or catalog.BY_KEY.get(para)
    if e is None or not e.is_item:
        raise ValueError(ERR_UNKNOWN_ITEM.format(para=para))
    return e


def _check_finding(e: catalog.Entry, *, finding: str, reason: str, mitigation: str, comment: str) -> str:
    try:
        finding = Finding(finding)
    except ValueError:
        raise FieldRefusal(ERR_FINDING.format(value=finding), field=f"f-{e.para}") from None
    if finding == Finding.NOT_APPLICABLE and not reason.strip():
        raise FieldRefusal(ERR_NA_REASON.format(para=e.para), field=f"reason-{e.para}")
    if finding == Finding.DEFICIENT and not comment.strip():
        raise FieldRefusal(ERR_DEFICIENT_COMMENT.format(para=e.para), field=f"comment-{e.para}")
    # § 380-11 B(4)(b): "if full compliance is not provided, an applicant must document why key steps in
    # the process could not be met and what is proposed for mitigation."
    if e.lid and finding in (Finding.NOT_APPLICABLE, Finding.NOT_PROVIDED) and not (reason.strip() and
                                                                                   mitigation.strip()):
        raise FieldRefusal(ERR_LID_REASON.format(para=e.para),
                           field=f"reason-{e.para}" if not reason.strip() else f"mitigation-{e.para}")
    return finding


@transaction.atomic
def item_findings_record(*, application: PermitApplication, findings: list[dict], acting_user) -> list[ItemFinding]:
    """Record findings on several items at once (one checklist page): each dict has ``para`` and
    ``finding`` and optionally reason, mitigation, comment, document, page, condition. All or none."""
    app = PermitApplication.objects.select_for_update().select_related("case").get(pk=application.pk)
    if app.case.status not in REVIEWABLE:
        raise ValueError(ERR_NOT_REVIEWABLE.format(status=app.case.status_label.lower()))
    if not findings:
        raise ValueError(ERR_NOTHING)
    rows = []
    for f in findings:
        e = _item(f["para"])
        kw = {k: (f.get(k) or "").strip() for k in ("reason", "mitigation", "comment", "page", "condition")}
        value = _check_finding(e, finding=f["finding"], reason=kw["reason"], mitigation=kw["mitigation"],
                               comment=kw["comment"])
        doc = f.get("document")
        if doc is not None and doc.case_id != app.case_id:
            raise ValueError(ERR_DOCUMENT)
        rows.append(ItemFinding(case=app.case, para=e.para, finding=value, document=doc,
                                reviewer=_actor(acting_user), **kw))
    for r in rows:  # one by one, after every row is checked: all or none
        r.save()
    made = rows
    summary = ", ".join(f"§ {r.para} {r.finding}" for r in made[:6]) + (" …" if len(made) > 6 else "")
    event_record(case=app.case, kind="checklist_review", acting_user=acting_user,
                 why=f"Checklist findings recorded ({len(made)}): {summary}",
                 data={"findings": [[r.para, r.finding] for r in made]})
    audit_record(actor=_actor(acting_user), action="workbench.findings_record", obj=app.case,
                 data={"findings": [[r.para, r.finding, r.pk] for r in made]})
    return made


def item_finding_record(*, application: PermitApplication, para: str, finding: str, acting_user, reason: str = "",
                        mitigation: str = "", comment: str = "", document=None, page: str = "",
                        condition: str = "") -> ItemFinding:
    return item_findings_record(application=application, acting_user=acting_user, findings=[{
        "para": para, "finding": finding, "reason": reason, "mitigation": mitigation, "comment": comment,
        "document": document, "page": page, "condition": condition}])[0]


def request_lines(states) -> list[str]:
    """One line per item for the letter: the paragraph, the item, and what is wrong or missing."""
    out = []
    for s in states:
        what = s.finding.comment or "not provided"
        out.append(f"§ {s.entry.para} — {s.entry.text} — {what}")
    return out


@transaction.atomic
def items_raise_information_request(*, application: PermitApplication, paras: list[str], acting_user,
                                    on: date | None = None):
    """§ 380-10 E in one step: the chosen deficient or missing items become one information request on the
    permit file (its letter lists each item with its paragraph; the 42 days stand still, § 380-10 I(2))."""
    if not paras:
        raise FieldRefusal(ERR_NOTHING, field="item")
    states = item_states(application)
    chosen = []
    for p in dict.fromkeys(paras):
        e = _item(p)
        s = states[e.para]
        if s.state not in OPEN:
            raise FieldRefusal(ERR_NOT_RAISABLE.format(para=e.para, state=s.label.lower()), field="item")
        chosen.append(s)
    req = permit_services.permit_request_information(application=application, items="\n".join(request_lines(chosen)),
                                                     acting_user=acting_user, on=on)
    for s in chosen:
        RaisedItem.objects.create(case=application.case, para=s.entry.para, request=req, finding=s.finding)
    audit_record(actor=_actor(acting_user), action="workbench.items_raise", obj=application.case,
                 data={"request": req.pk, "items": [s.entry.para for s in chosen]})
    return req


@transaction.atomic
def item_waiver_request(*, application: PermitApplication, para: str, justification: str, acting_user):
    """§ 380-8 B: a waiver from the requirement of one checklist item (the permit file's waiver case)."""
    e = _item(para)
    w = permit_services.waiver_request(application=application, requirement=f"§ {e.para}: {e.text}",
                                       justification=justification, acting_user=acting_user)
    ItemWaiver.objects.create(waiver=w, case=application.case, para=e.para)
    audit_record(actor=_actor(acting_user), action="workbench.waiver_attach", obj=application.case,
                 data={"waiver": w.case.number, "para": e.para})
    return w


@transaction.atomic
def item_waiver_attach(*, waiver, para: str, acting_user) -> ItemWaiver:
    """Attach a waiver request made on the permit page to the item it concerns."""
    e = _item(para)
    iw = ItemWaiver.objects.create(waiver=waiver, case=waiver.application.case, para=e.para)
    audit_record(actor=_actor(acting_user), action="workbench.waiver_attach", obj=waiver.application.case,
                 data={"waiver": waiver.case.number, "para": e.para})
    return iw


def _summary_pdf_keep(app, *, acting_user):
    pdf = documents.review_summary_pdf(review_summary(app))
    return case_document_generate(case=app.case, content=pdf, tag="review_summary", title="Review summary",
                                  filename=f"{app.case.number}-review-summary-{timezone.localdate()}.pdf",
                                  acting_user=acting_user)


@transaction.atomic
def review_summary_keep(*, application: PermitApplication, acting_user):
    """Keep the review summary as it stands today in the file (PDF)."""
    return _summary_pdf_keep(application, acting_user=acting_user)


@transaction.atomic
def workbench_decide(*, application: PermitApplication, kind: str, findings: str, standards: list[str],
                     conditions: list[str], acting_user, on: date | None = None, order_of_conditions: str = ""):
    """The Director's decision from the workbench (§ 380-10 I(1)) with its review summary. The permit file's own
    ``permit_decide`` records it and holds the one approval gate every path passes (``permits.approval``, issue 30:
    every item reviewed, nothing deficient or missing without a request, every request answered); the summary PDF (every
    checklist, every standard, the findings and the conditions) is kept in the file beside the decision."""
    app = permit_services.permit_decide(application=application, kind=kind, findings=findings, standards=standards,
                                        conditions=conditions, acting_user=acting_user, on=on,
                                        order_of_conditions=order_of_conditions)
    app.refresh_from_db()
    _summary_pdf_keep(app, acting_user=acting_user)
    return app


# --- pre-application meeting (§ 380-10 A) ---------------------------------------------------------

@transaction.atomic
def meeting_schedule(*, applicant_name: str, site_address: str, scheduled_at, acting_user, concept: str = "",
                     location: str = "", applicant_email: str = "", applicant=None) -> PreApplicationMeeting:
    """§ 380-10 A: a pre-application and concept plan meeting with the DPW Director."""
    m = PreApplicationMeeting.objects.create(applicant_name=applicant_name, site_address=site_address,
                                             scheduled_at=scheduled_at, concept=concept, location=location,
                                             applicant_email=applicant_email, applicant=applicant,
                                             created_by=_actor(acting_user))
    audit_record(actor=_actor(acting_user), action="workbench.meeting_schedule", obj=m,
                 data={"at": scheduled_at.isoformat(), "site": site_address})
    return m


@transaction.atomic
def meeting_attendee_add(*, meeting: PreApplicationMeeting, name: str, acting_user, organization: str = "",
                         invited_board: bool = False) -> MeetingAttendee:
    """An attendee; other Town boards and officers are invited at the Director's discretion (§ 380-10 A)."""
    if not name.strip():
        raise ValueError(ERR_ATTENDEE)
    a = MeetingAttendee.objects.create(meeting=meeting, name=name.strip(), organization=organization.strip(),
                                       invited_board=invited_board)
    audit_record(actor=_actor(acting_user), action="workbench.meeting_attendee", obj=meeting,
                 data={"name": a.name, "organization": a.organization, "board": invited_board})
    return a


@transaction.atomic
def meeting_record(*, meeting: PreApplicationMeeting, acting_user, state: str | None = None, notes: str | None = None,
                   scheduled_at=None, case=None) -> PreApplicationMeeting:
    """Reschedule, record the meeting as held (with notes) or cancelled, or link the permit file once filed."""
    m = PreApplicationMeeting.objects.select_for_update().get(pk=meeting.pk)
    changed = {}
    if state is not None:
        m.state = PreApplicationMeeting.State(state)
        changed["state"] = m.state
    if notes is not None:
        m.notes = notes
        changed["notes"] = len(notes)
    if scheduled_at is not None:
        m.scheduled_at = scheduled_at
        changed["scheduled_at"] = scheduled_at.isoformat()
    if case is not None:
        m.case = case
        changed["case"] = case.number
        event_record(case=case, kind="pre_application", acting_user=acting_user,
                     why=f"Pre-application meeting of {m.scheduled_at:%b %-d, %Y} linked to the file")
    m.save()
    audit_record(actor=_actor(acting_user), action="workbench.meeting_record", obj=m, data=changed)
    return m


@transaction.atomic
def lid_answers_record(*, meeting: PreApplicationMeeting, answers: list[dict], acting_user) -> list[LidChecklistAnswer]:
    """The Town's LID design checklist filled in with the applicant (§ 380-10 A; items of § 380-11 B(4)(b))."""
    meeting = PreApplicationMeeting.objects.select_for_update().get(pk=meeting.pk)  # its state as stored now
    if meeting.state == PreApplicationMeeting.State.CANCELLED:
        raise ValueError(ERR_MEETING_CANCELLED)
    if not answers:
        raise ValueError(ERR_NOTHING)
    lid = {e.para for e in catalog.LID_DESIGN_CHECKLIST}
    made = []
    for a in answers:
        e = _item(a["para"])
        if e.para not in lid:
            raise ValueError(ERR_UNKNOWN_ITEM.format(para=a["para"]))
        try:
            answer = LidAnswer(a["answer"])
        except ValueError:
            raise FieldRefusal(ERR_LID_ANSWER.format(value=a["answer"]), field=f"a-{e.key}") from None
        note = (a.get("note") or "").strip()
        if answer == LidAnswer.NOT_FEASIBLE and not note:
            raise FieldRefusal(ERR_LID_NOTE.format(para=e.para), field=f"n-{e.key}")
        made.append(LidChecklistAnswer.objects.create(meeting=meeting, para=e.para, answer=answer, note=note,
                                                      recorded_by=_actor(acting_user)))
    audit_record(actor=_actor(acting_user), action="workbench.lid_answers", obj=meeting,
                 data={"answers": [[x.para, x.answer] for x in made]})
    return made
