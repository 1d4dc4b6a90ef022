"""Violations and what follows them on a construction site (Ch. 380 § 380-16 C(4)(e)[5], C(4)(f)[2], § 380-19): the
written notice of a violation with its corrective actions and the date to correct, the correction reported and
approved, the stop-work order and its lifting, the referral for enforcement and its resolution. Split out of
``services`` (which re-exports every name here)."""
from __future__ import annotations

from datetime import date, datetime

from django.db import transaction
from django.utils import timezone

from stormwater.audit.services import audit_record
from stormwater.cases.services import TransitionError, case_transition, event_record
from stormwater.formats import day as show_day, moment as show_moment

from . import documents
from . import workflow as wf
from .base import ConstructionError, _keep_pdf, _lock, _send_on_commit, _today, not_before_permit
from .models import (ChecklistRow, Condition, ConstructionProject, DisturbedArea, EnforcementReferral, FollowUp,
                     Inspection, StopWorkOrder, Violation)

S = wf.Status

ERR_VIOLATION_FIELDS = "A violation notice states the violation and the required corrective actions (§ 380-16 C(4)(e)[5])."
ERR_CORRECT_BY = "The date to correct must not be before the violation was found."
ERR_NOT_CORRECTED = "Violation {vid} has not been reported corrected."
ERR_SWO_VIOLATIONS = "A stop-work order is issued on violations (§ 380-16 C(4)(e)[5]): name at least one unresolved violation."
ERR_SWO_REASON = "Say why all construction activity stops: the order states it (§ 380-16 C(4)(e)[5])."
ERR_NO_OPEN_ORDER = "There is no stop-work order in force."
ERR_LIFT = ("The stop-work order stays until every violation is corrected and all work previously completed is "
            "approved by the DPW Director (§ 380-16 C(4)(e)[5]). Not yet: {items}.")
ERR_LIFT_NOTE = "Record the Director's approval of the work previously completed (§ 380-16 C(4)(e)[5])."
ERR_REFER = "Enforcement proceeds on a failure to correct (§ 380-16 C(4)(f)[2], § 380-19): no unresolved violation."
ERR_REFER_REASON = ("Say what the referral is for: the failure to correct the violations, or the water resources "
                    "not adequately protected (§ 380-16 C(4)(f)[2], § 380-19).")
ERR_RESOLVE_REASON = "Say how the enforcement was resolved."
ERR_ROW_NOT_FAILED = ("“{label}” was found “{condition}”: a notice of violation is opened from a failed control — a "
                      "failure to comply with the approved plan (§ 380-16 C(4)(e)[5], C(4)(f)[1][g]).")
ERR_ROW_HAS_NOTICE = "“{label}” already has its {what}: {ref}."
ERR_ROW_NOT_MAINTENANCE = ("“{label}” was found “{condition}”: a corrective action is opened from a control that needs "
                           "maintenance (EPA CGP 2022 Part 5); a failed control is a notice of violation "
                           "(§ 380-16 C(4)(e)[5]).")
ERR_CA_FIELDS = "Say what is to be done and by when."
ERR_CA_DUE = "The corrective action cannot be due before the inspection that found it ({day})."
ERR_REINSPECT_PAST = "The re-inspection must be scheduled after now."
ERR_REINSPECT_RESOLVED = "Violation V{vid} is corrected and approved: there is nothing to re-inspect."


@transaction.atomic
def violation_notice_issue(*, project: ConstructionProject, description: str, corrective_actions: str,
                           correct_by: date, acting_user, found_on: date | None = None,
                           inspection: Inspection | None = None, area: DisturbedArea | None = None,
                           row: ChecklistRow | None = None) -> Violation:
    """§ 380-16 C(4)(e)[5]: the applicant is notified in writing of the violation and the required
    corrective actions (PDF notice in the file, emailed where configured). Opened from a report's failed ``row``
    (``violation_from_row``), the notice prints that row's photos."""
    p = _lock(project)
    found_on = found_on or _today()
    if not description.strip() or not corrective_actions.strip():
        raise ConstructionError(ERR_VIOLATION_FIELDS,
                                field="description" if not description.strip() else "corrective_actions")
    if correct_by < found_on:
        raise ConstructionError(ERR_CORRECT_BY, field="correct_by")
    not_before_permit(p, found_on, what="day the violation was found", field="found_on")
    v = Violation.objects.create(project=p, inspection=inspection, area=area, row=row, found_on=found_on,
                                 description=description.strip(), corrective_actions=corrective_actions.strip(),
                                 correct_by=correct_by)
    pdf = documents.letter_pdf(project=p, subject=f"Notice of violation {p.case.number}-V{v.pk}", on=found_on,
                               paragraphs=[f"An inspection of {p.permit.site_address} on {found_on:%B %-d, %Y} found that "
                                           "the work does not comply with the approved plan:", v.description,
                                           "Required corrective actions:", v.corrective_actions,
                                           f"Correct them by {correct_by:%B %-d, %Y}. The applicant shall promptly "
                                           "correct any portion of the work that does not comply; a stop-work order "
                                           "may be issued until the violations are corrected and the work approved, and "
                                           "enforcement may proceed under § 380-19."],
                               citation="Ch. 380 § 380-16 C(4)(e)[5], C(4)(f)[2]; § 380-19.",
                               photos=list(row.photos.select_related("document")) if row is not None else ())
    doc = _keep_pdf(p, pdf, tag="violation_notice", title=f"Notice of violation V{v.pk}",
                    filename=f"{p.case.number}-violation-{v.pk}.pdf", acting_user=acting_user)
    v.notice_document = doc
    v.save(update_fields=["notice_document"])
    event_record(case=p.case, kind="violation", acting_user=acting_user, on=found_on,
                 why=f"Violation V{v.pk}: {v.description} — correct by {show_day(correct_by)}", data={"violation": v.pk})
    audit_record(actor=acting_user, action="construction.violation", obj=v)
    _send_on_commit(project=p, subject=f"Notice of violation {p.case.number}-V{v.pk}", body=v.description,
                    filename=doc.original_name, pdf=pdf, acting_user=acting_user)
    return v


def row_finding(row: ChecklistRow) -> str:
    """The finding of a checklist row as the notice states it: the control as it was named, and the note."""
    return f"{row.label}: {row.note.strip()}" if row.note.strip() else row.label


@transaction.atomic
def violation_from_row(*, row: ChecklistRow, corrective_actions: str, correct_by: date, acting_user,
                       reinspect_at: datetime | None = None, stop_work_reason: str = "") -> Violation:
    """A notice of violation opened from a failed row of a filed report (issue 30): the row's finding is the
    violation, its photos are the notice's, the day found is the inspection's; one notice per row. Optionally the
    re-inspection (``reinspection_schedule``) and, § 380-16 C(4)(e)[5] ("a stop-work order shall be issued until any
    violations are corrected"), the stop-work order on this violation (``stop_work_issue``: the file must be under
    way; the caller checks who may issue it). All or nothing."""
    insp = row.inspection
    if row.condition != Condition.FAILED:
        raise ConstructionError(ERR_ROW_NOT_FAILED.format(label=row.label,
                                                          condition=Condition(row.condition).label.lower()))
    _one_per_row(row)
    v = violation_notice_issue(project=insp.project, description=row_finding(row),
                               corrective_actions=corrective_actions, correct_by=correct_by, acting_user=acting_user,
                               found_on=timezone.localtime(insp.inspected_at).date(), inspection=insp, row=row)
    if reinspect_at is not None:
        reinspection_schedule(violation=v, at=reinspect_at, acting_user=acting_user)
    if stop_work_reason.strip():
        stop_work_issue(project=insp.project, violations=[v], reason=stop_work_reason.strip(),
                        acting_user=acting_user)
    return v


def _one_per_row(row: ChecklistRow) -> None:
    """A row is followed up once: by its notice of violation or by its corrective action."""
    done = row.violations.first()
    if done is not None:
        raise ConstructionError(ERR_ROW_HAS_NOTICE.format(label=row.label, what=done.get_kind_display().lower(),
                                                          ref=done.ref))


@transaction.atomic
def corrective_action_from_row(*, row: ChecklistRow, corrective_actions: str, correct_by: date | None,
                               acting_user) -> Violation:
    """A corrective action opened from a row of a filed report that needs maintenance (issue 30; EPA CGP 2022
    Part 5, corrective actions — the permit's own text is not in the reference library, so no deadline is computed
    from it: the inspector sets the due date). The same record as a notice of violation from a failed row
    (``violation_from_row``), ``kind`` corrective: the row's finding is its description, the row's photos are its
    photos, the day found is the inspection's; no written notice. On the inspectors' week list (``field.visits_for``)
    until its completion is recorded (``violation_corrected``: the day and what was done)."""
    insp = row.inspection
    if row.condition != Condition.NEEDS_MAINTENANCE:
        raise ConstructionError(ERR_ROW_NOT_MAINTENANCE.format(label=row.label,
                                                               condition=Condition(row.condition).label.lower()))
    _one_per_row(row)
    if not corrective_actions.strip():
        raise ConstructionError(ERR_CA_FIELDS, field="corrective_actions")
    if correct_by is None:
        raise ConstructionError(ERR_CA_FIELDS, field="correct_by")
    p = _lock(insp.project)
    found_on = timezone.localtime(insp.inspected_at).date()
    if correct_by < found_on:
        raise ConstructionError(ERR_CA_DUE.format(day=show_day(found_on)), field="correct_by")
    a = Violation.objects.create(project=p, kind=FollowUp.CORRECTIVE, inspection=insp, row=row, found_on=found_on,
                                 description=row_finding(row), corrective_actions=corrective_actions.strip(),
                                 correct_by=correct_by, notice_document=None)
    event_record(case=p.case, kind="corrective.opened", acting_user=acting_user, on=found_on,
                 why=f"Corrective action {a.ref}: {a.description}; due {show_day(correct_by)}",
                 data={"violation": a.pk, "row": row.pk})
    audit_record(actor=acting_user, action="construction.corrective_open", obj=a)
    return a


@transaction.atomic
def reinspection_schedule(*, violation: Violation, at: datetime, acting_user) -> Violation:
    """The re-inspection that sees whether the violation was corrected (§ 380-16 C(4)(e)[5]: the work is approved
    once corrected): on the inspectors' week list (``field.visits_for``) until a report of the site inspected on or
    after that day is filed. Later than now; not for a violation already resolved."""
    if violation.resolved:
        raise ConstructionError(ERR_REINSPECT_RESOLVED.format(vid=violation.pk))
    if at <= timezone.now():
        raise ConstructionError(ERR_REINSPECT_PAST, field="reinspect_at")
    violation.reinspect_at = at
    violation.save(update_fields=["reinspect_at"])
    event_record(case=violation.project.case, kind="violation.reinspection", acting_user=acting_user,
                 why=f"Re-inspection of V{violation.pk} scheduled for {show_moment(at)}", data={"violation": violation.pk})
    return violation


@transaction.atomic
def violation_corrected(*, violation: Violation, on: date, note: str, acting_user) -> Violation:
    """The permittee reports the correction (the Director still has to approve it, § 380-16 C(4)(e)[5]): what was
    done, and a day neither after today (issue 18: acts are never dated later than now) nor before the violation
    was found."""
    from stormwater.cases.filing import after_today

    corrective = violation.kind == FollowUp.CORRECTIVE
    if not note.strip():
        raise ConstructionError("Say what was done to correct the violation." if not corrective else
                                "Say what was done to complete the corrective action.", field="note")
    if err := after_today(on, what="date of the correction"):
        raise ConstructionError(err, field="on")
    if on < violation.found_on:
        raise ConstructionError(f"The correction cannot be dated before the violation was found "
                                f"({show_day(violation.found_on)}).", field="on")
    note = note.strip()
    violation.corrected_on, violation.corrected_note = on, note
    violation.save(update_fields=["corrected_on", "corrected_note"])
    if corrective:  # done: a corrective action has no Director's approval (CGP 2022 Part 5; issue 30)
        event_record(case=violation.project.case, kind="corrective.closed", acting_user=acting_user, on=on,
                     why=f"{violation.ref} completed: {note}")
        return violation
    event_record(case=violation.project.case, kind="violation.corrected", acting_user=acting_user, on=on,
                 why=f"V{violation.pk} reported corrected: {note}")
    return violation


@transaction.atomic
def violation_approve(*, violation: Violation, on: date, acting_user) -> Violation:
    """The Director approves the corrected work (§ 380-16 C(4)(e)[5])."""
    if violation.kind != FollowUp.NOTICE:
        raise ConstructionError(f"{violation.ref} is a corrective action: it is done when completed, not approved.")
    if violation.corrected_on is None:
        raise ConstructionError(ERR_NOT_CORRECTED.format(vid=f"V{violation.pk}"))
    violation.approved_on, violation.approved_by = on, acting_user
    violation.save(update_fields=["approved_on", "approved_by"])
    event_record(case=violation.project.case, kind="violation.approved", acting_user=acting_user, on=on,
                 why=f"V{violation.pk}: corrected work approved by the Director")
    audit_record(actor=acting_user, action="construction.violation_approve", obj=violation)
    return violation


def _unresolved(project) -> list[Violation]:
    """The notices of violation not yet corrected and approved (a corrective action is no violation)."""
    return [v for v in project.violations.all() if v.kind == FollowUp.NOTICE and not v.resolved]


@transaction.atomic
def stop_work_issue(*, project: ConstructionProject, violations: list[Violation], reason: str, acting_user,
                    on: date | None = None) -> StopWorkOrder:
    """§ 380-16 C(4)(e)[5]: all construction activity stops until the violations are corrected and the
    work previously completed is approved."""
    p = _lock(project)
    on = on or _today()
    not_before_permit(p, on, what="day of the stop-work order", field="on")
    violations = [v for v in violations if not v.resolved]
    if not violations:
        raise ConstructionError(ERR_SWO_VIOLATIONS, field="violations")
    if not reason.strip():  # the written order states why all construction activity stops
        raise ConstructionError(ERR_SWO_REASON, field="reason")
    case_transition(case=p.case, to=S.STOP_WORK, acting_user=acting_user, on=on, why=f"Stop-work order: {reason}")
    order = StopWorkOrder.objects.create(project=p, issued_on=on, reason=reason)
    order.violations.set(violations)
    pdf = documents.stop_work_pdf(order)
    order.document = _keep_pdf(p, pdf, tag="stop_work_order", title=f"Stop-work order ({show_day(on)})",
                               filename=f"{p.case.number}-stop-work-{on}.pdf", acting_user=acting_user)
    order.save(update_fields=["document"])
    _send_on_commit(project=p, subject=f"STOP-WORK ORDER {p.case.number}", body=reason,
                    filename=order.document.original_name, pdf=pdf, acting_user=acting_user)
    return order


def stop_work_open(project) -> StopWorkOrder | None:
    return project.stop_work_orders.filter(lifted_on__isnull=True).order_by("-issued_on", "-id").first()


@transaction.atomic
def stop_work_lift(*, project: ConstructionProject, work_approved_note: str, acting_user,
                   on: date | None = None) -> StopWorkOrder:
    """Lift the order: refused while any of its violations (or any other) is not corrected and approved,
    and without the Director's approval of the work previously completed (§ 380-16 C(4)(e)[5])."""
    p = _lock(project)
    on = on or _today()
    order = stop_work_open(p)
    if order is None:
        raise ConstructionError(ERR_NO_OPEN_ORDER)
    pending = []
    for v in list(order.violations.all()) + _unresolved(p):
        if v.resolved:
            continue
        state = "not corrected" if v.corrected_on is None else "corrected, not approved by the Director"
        item = f"V{v.pk} ({v.description[:60]}): {state}"
        if item not in pending:
            pending.append(item)
    if pending:
        raise ConstructionError(ERR_LIFT.format(items="; ".join(pending)))
    if not work_approved_note.strip():
        raise ConstructionError(ERR_LIFT_NOTE, field="note")
    case_transition(case=p.case, to=S.ACTIVE, acting_user=acting_user, on=on,
                    why=f"Stop-work order lifted: {work_approved_note}")
    order.lifted_on, order.lifted_by, order.work_approved_note = on, acting_user, work_approved_note.strip()
    order.save(update_fields=["lifted_on", "lifted_by", "work_approved_note"])
    pdf = documents.letter_pdf(project=p, subject=f"Stop-work order lifted: {p.case.number}", on=on,
                               paragraphs=[f"The stop-work order of {order.issued_on:%B %-d, %Y} is lifted as of "
                                           f"{on:%B %-d, %Y}: the violations are corrected and the work previously "
                                           f"completed is approved ({work_approved_note.strip()}). Work may resume."],
                               citation="Ch. 380 § 380-16 C(4)(e)[5].")
    _keep_pdf(p, pdf, tag="stop_work_lifted", title=f"Stop-work order lifted ({show_day(on)})",
              filename=f"{p.case.number}-stop-work-lifted-{on}.pdf", acting_user=acting_user)
    return order


@transaction.atomic
def enforcement_refer(*, project: ConstructionProject, reason: str, acting_user, on: date | None = None):
    """Escalation: water resources or the MS4 not adequately protected, violations not corrected —
    enforcement at the Director's discretion (§ 380-16 C(4)(f)[2], § 380-19)."""
    p = _lock(project)
    on = on or _today()
    if not reason.strip():  # the referral letter states the failure to correct it acts on
        raise ConstructionError(ERR_REFER_REASON, field="reason")
    if not _unresolved(p):
        raise ConstructionError(ERR_REFER)
    case_transition(case=p.case, to=S.ENFORCEMENT, acting_user=acting_user, on=on, why=f"Enforcement: {reason}")
    pdf = documents.letter_pdf(project=p, subject=f"Referral for enforcement: {p.case.number}", on=on,
                               paragraphs=[reason, "Unresolved violations: " + "; ".join(
                                   f"V{v.pk} {v.description} (correct by {show_day(v.correct_by)})" for v in _unresolved(p)),
                                   "The Town may pursue all civil and criminal remedies (§ 380-19) and use the surety "
                                   "to complete the work (§ 380-16 C(4)(e)[4], § 380-17 A)."],
                               citation="Ch. 380 § 380-16 C(4)(f)[2]; § 380-19.")
    doc = _keep_pdf(p, pdf, tag="enforcement", title=f"Referral for enforcement ({show_day(on)})",
                    filename=f"{p.case.number}-enforcement-{on}.pdf", acting_user=acting_user)
    return EnforcementReferral.objects.create(project=p, referred_on=on, reason=reason, document=doc)


@transaction.atomic
def enforcement_resolve(*, project: ConstructionProject, resolution: str, acting_user, on: date | None = None):
    p = _lock(project)
    on = on or _today()
    ref = p.referrals.filter(resolved_on__isnull=True).order_by("-id").first()
    if ref is None:
        raise ConstructionError("There is no open enforcement referral.")
    if not resolution.strip():
        raise ConstructionError(ERR_RESOLVE_REASON, field="reason")

    def check(_):
        if _unresolved(p):
            raise TransitionError(ERR_LIFT.format(items="; ".join(f"V{v.pk}" for v in _unresolved(p))))
    case_transition(case=p.case, to=S.ACTIVE, acting_user=acting_user, on=on, check=check,
                    why=f"Enforcement resolved: {resolution}")
    ref.resolved_on, ref.resolution = on, resolution
    ref.save(update_fields=["resolved_on", "resolution"])
    return ref
