"""State changes of construction oversight (Ch. 380 § 380-15 – § 380-19), each atomic, audited and on
the project's case timeline. Refusals raise ``ConstructionError`` (a ValueError) or ``TransitionError``
with a message that names what is missing and the rule; the message constants are imported by tests.
Inspection reports, rainfall and notices live in ``reporting``, violations, stop-work orders and enforcement in
``enforcement``, and the shared helpers in ``base``; all are re-exported here, so ``services.inspection_report_file``,
``services.stop_work_issue`` etc. keep working.
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal

from django.db import transaction
from django.db.models import Sum

from stormwater.accounts.roles import Perm
from stormwater.audit.services import audit_record
from stormwater.cases.filing import filed_on
from stormwater.cases.services import TransitionError, case_document_add, case_open, case_transition, event_record
from stormwater.permits import services as permit_services
from stormwater.permits import workflow as permit_wf
from stormwater.permits.models import PermitApplication
from stormwater.formats import day as show_day
from stormwater.rules.money import ZERO, fmt, fmt_usd

from . import documents
from . import workflow as wf
from .base import (ConstructionError, _keep_pdf, _lock, _send_on_commit, _today, not_before_permit,  # noqa: F401
                   recipients)
from .enforcement import (ERR_CORRECT_BY, ERR_LIFT, ERR_LIFT_NOTE, ERR_NO_OPEN_ORDER, ERR_NOT_CORRECTED,  # noqa: F401
                          ERR_REFER, ERR_REFER_REASON, ERR_RESOLVE_REASON, ERR_SWO_REASON, ERR_SWO_VIOLATIONS,
                          ERR_VIOLATION_FIELDS, _unresolved, corrective_action_from_row, enforcement_refer,
                          enforcement_resolve, reinspection_schedule, stop_work_issue, stop_work_lift, stop_work_open,
                          violation_approve, violation_corrected, violation_from_row, violation_notice_issue)
from .reporting import (ERR_FINAL_NO_WALK, ERR_FINAL_PUNCH, ERR_FINAL_STORM, ERR_FINAL_VIDEO,  # noqa: F401
                        ERR_LATE_NOTICE, ERR_NO_NOTICE, ERR_NOT_YOURS, ERR_NOTICE_PAST, ERR_PRE_BURY, ERR_RANDOM,
                        ERR_REPORT_FIELDS, AlreadyFiled, ReportInput, RowInput, SignatureInput,
                        inspection_notice_give, inspection_report_file, may_file, project_position_set,
                        punch_item_done, rain_event_record, site_control_add, site_control_remove)
from .models import (AsBuilt, ConstructionProject, DisturbedArea, Evaluation, InspectionKind, PreconstructionMeeting,
                     Surety, SuretyEntry, SuretyEntryKind, Violation)

S = wf.Status
K = InspectionKind


ERR_NOT_APPROVED = "Construction oversight begins with an approved permit (§ 380-10 I(1)(a)–(b)); {number} is “{status}”."
ERR_ALREADY_OPEN = "Permit {number} already has its construction file {case}."
ERR_START_MEETING = "The pre-construction meeting the Director required has not been held (§ 380-16 A)."
ERR_START_SURETY = "Surety must be posted before the start of land disturbance (§ 380-17 A)."
ERR_START_ESC = ("Erosion and sedimentation controls must be inspected, and found in compliance, before the start of "
                 "construction (§ 380-16 C(4)(b)[1]).")
ERR_START_PLAN = "A signed paper copy of the approved plan must be kept on the site (§ 380-16 B): confirm it first."
ERR_SURETY_AMOUNT = ("The security ({amount}) is less than the total estimated construction cost of the stormwater "
                     "management facility ({cost}) (§ 380-17 A).")
ERR_SURETY_WAGE = "The estimate must include state (or federal) prevailing wage rates (§ 380-17 A)."
ERR_SURETY_APPROVALS = "The form of the security must be approved by Town Counsel and the Finance Department (§ 380-17 A)."
ERR_SURETY_NONE = "No surety has been posted for this project."
ERR_SURETY_EXISTS = "Surety has already been posted for this project."
ERR_RELEASE_MORE = "The release ({amount}) is more than the security still held ({held})."
ERR_RELEASE_FULL = ("The bond may not be fully released until the Director has received the final inspection report and "
                    "the other final submissions and issued a certificate of completion (§ 380-17 B). Missing: {items}.")
ERR_RELEASE_PHASE = "A partial release is for a completed phase (§ 380-17 B): name the phase."
ERR_RELEASE_VIOLATIONS = ("A phase may be released only when completed in compliance with the permit (§ 380-17 B); "
                          "violations are unresolved: {items}.")
ERR_FORFEIT = ("Surety is used only when the permittee fails to correct (§ 380-16 C(4)(e)[4], § 380-17 A): "
               "violation {vid} {why}.")
ERR_AMOUNT = "Amounts must be more than $0."
ERR_ALREADY_STABLE = "This area is already stabilized."
ERR_ASBUILT_FIELDS = "The as-built submission is missing: {fields}."
ERR_ASBUILT_PDF = "The as-built drawings are submitted in PDF format (§ 380-15)."
ERR_CERTIFICATE = "The certificate of completion cannot be issued (§ 380-18). Missing: {items}."


# --- opening the file -----------------------------------------------------------------------------

@transaction.atomic
def project_open(*, permit: PermitApplication, acting_user, design_engineer=None, design_engineer_name: str = "",
                 design_engineer_pe: str = "", esc_inspector=None, esc_inspector_name: str = "",
                 esc_inspector_credentials: str = "", preconstruction_required: bool = True,
                 surety_required: bool = True, surety_not_required_reason: str = "", frequency: str = "7day",
                 sensitive_waters: bool = False, on: date | None = None) -> ConstructionProject:
    """Open construction oversight of an approved permit; its stewardship site is opened with it. ``on``: the day
    the file was opened when not today (a file converted from the old office, issue 32), not before the permit."""
    from stormwater.stewardship.services import site_open

    permit = PermitApplication.objects.select_for_update().select_related("case").get(pk=permit.pk)
    if permit.case.status not in (permit_wf.Status.APPROVED, permit_wf.Status.APPROVED_WITH_CONDITIONS):
        raise ConstructionError(ERR_NOT_APPROVED.format(number=permit.case.number, status=permit.case.status_label),
                                field="permit")
    existing = ConstructionProject.objects.filter(permit=permit).first()
    if existing is not None:
        raise ConstructionError(ERR_ALREADY_OPEN.format(number=permit.case.number, case=existing.case.number),
                                field="permit")
    if not surety_required and not surety_not_required_reason.strip():
        raise ConstructionError("Say why no surety is required (e.g. surety held on another permit, § 380-17 A).",
                                field="no_surety_reason")
    case = case_open(kind=wf.CONSTRUCTION, title=f"Construction: {permit.site_address}", acting_user=acting_user,
                     applicant=permit.case.applicant, parent=permit.case, on=on)
    project = ConstructionProject.objects.create(
        case=case, permit=permit, design_engineer=design_engineer, design_engineer_name=design_engineer_name,
        design_engineer_pe=design_engineer_pe, esc_inspector=esc_inspector, esc_inspector_name=esc_inspector_name,
        esc_inspector_credentials=esc_inspector_credentials, preconstruction_required=preconstruction_required,
        surety_required=surety_required, surety_not_required_reason=surety_not_required_reason,
        frequency=frequency, sensitive_waters=sensitive_waters)
    owner_user = permit.owner.user if permit.owner_id and permit.owner.user_id else permit.case.applicant
    site_open(name=permit.site_address, address=permit.site_address, permit=permit, owner_user=owner_user,
              parcels=list(permit.parcels.all()), acting_user=acting_user, on=on)
    not_before_permit(project, on, what="day the construction file was opened", field="on")
    audit_record(actor=acting_user, action="construction.open", obj=project, why=permit.case.number)
    return project


@transaction.atomic
def project_conditions_set(*, project: ConstructionProject, acting_user, frequency: str | None = None,
                           sensitive_waters: bool | None = None, stabilized_on: date | None = None,
                           frozen: str | None = None, clear_stabilized: bool = False) -> ConstructionProject:
    """The CGP 2022 Part 4 inputs of the schedule: chosen frequency (4.2), sensitive waters (4.3.1),
    stabilized (4.4.1, cleared when work resumes there), frozen conditions (4.4.3)."""
    p = _lock(project)
    before = {"frequency": p.frequency, "sensitive_waters": p.sensitive_waters, "stabilized_on": str(p.stabilized_on),
              "frozen": p.frozen}
    if frequency is not None:
        p.frequency = frequency
    if sensitive_waters is not None:
        p.sensitive_waters = sensitive_waters
    if stabilized_on is not None:
        p.stabilized_on = stabilized_on
    if clear_stabilized:
        p.stabilized_on = None
    if frozen is not None:
        p.frozen = frozen
    p.save(update_fields=["frequency", "sensitive_waters", "stabilized_on", "frozen"])
    after = {"frequency": p.frequency, "sensitive_waters": p.sensitive_waters, "stabilized_on": str(p.stabilized_on),
             "frozen": p.frozen}
    event_record(case=p.case, kind="schedule", acting_user=acting_user, why="Inspection frequency conditions changed",
                 data={"before": before, "after": after})
    audit_record(actor=acting_user, action="construction.schedule", obj=p, data={"before": before, "after": after})
    return p


@transaction.atomic
def preconstruction_meeting_record(*, project: ConstructionProject, held_on: date, attendees: str, notes: str = "",
                                   acting_user) -> PreconstructionMeeting:
    """§ 380-16 A: the applicant, technical representative and general contractor meet the Director."""
    if not attendees.strip():
        raise ConstructionError("List who attended (applicant, technical representative, general contractor).",
                                field="attendees")
    not_before_permit(project, held_on, what="pre-construction meeting", field="held_on")
    m = PreconstructionMeeting.objects.create(project=project, held_on=held_on, attendees=attendees.strip(),
                                              notes=notes, recorded_by=acting_user)
    event_record(case=project.case, kind="meeting", acting_user=acting_user, on=held_on,
                 why=f"Pre-construction meeting held (§ 380-16 A): {attendees.strip()}")
    audit_record(actor=acting_user, action="construction.preconstruction", obj=m)
    return m


@transaction.atomic
def plan_on_site_confirm(*, project: ConstructionProject, on: date, acting_user) -> ConstructionProject:
    """§ 380-16 B: a paper copy of the approved plan with the Director's signature is kept on the site."""
    p = _lock(project)
    not_before_permit(p, on, what="day the signed plan was confirmed on the site", field="on")
    p.plan_on_site_confirmed_on = on
    p.save(update_fields=["plan_on_site_confirmed_on"])
    event_record(case=p.case, kind="plan_on_site", acting_user=acting_user, on=on,
                 why="Signed approved plan confirmed on the site (§ 380-16 B)")
    return p


@transaction.atomic
def construction_start(*, project: ConstructionProject, on: date, acting_user) -> ConstructionProject:
    """The start of land disturbance. Refused until the pre-construction meeting (if required, § 380-16 A),
    the plan on site (§ 380-16 B), the surety (if required, § 380-17 A) and a compliant erosion-control
    inspection before the start (§ 380-16 C(4)(b)[1]). Records the § 380-10 K start on the permit."""
    p = _lock(project)
    not_before_permit(p, on, what="start of land disturbance", field="on")

    def check(_):
        missing = []
        if p.preconstruction_required and not p.meetings.exists():
            missing.append(ERR_START_MEETING)
        if p.plan_on_site_confirmed_on is None:
            missing.append(ERR_START_PLAN)
        if p.surety_required and not Surety.objects.filter(project=p).exists():
            missing.append(ERR_START_SURETY)
        if not p.inspections.filter(kind=K.EROSION_PRE_START, evaluation=Evaluation.COMPLIANT).exists():
            missing.append(ERR_START_ESC)
        if missing:
            raise TransitionError(" ".join(missing))
    case_transition(case=p.case, to=S.ACTIVE, acting_user=acting_user, on=on, check=check,
                    why="Land disturbance started")
    p.started_on = on
    p.save(update_fields=["started_on"])
    permit_services.project_start_record(application=p.permit, started_on=on, acting_user=acting_user)
    return p


# --- stabilization --------------------------------------------------------------------------------

@transaction.atomic
def area_add(*, project: ConstructionProject, name: str, acting_user) -> DisturbedArea:
    if not name.strip():
        raise ConstructionError("Name the area.")
    a = DisturbedArea.objects.create(project=project, name=name.strip())
    event_record(case=project.case, kind="area", acting_user=acting_user, why=f"Disturbed area: {a.name}")
    return a


@transaction.atomic
def area_ceased(*, area: DisturbedArea, on: date, acting_user) -> DisturbedArea:
    """Work ceased on this portion of the site: stabilization due within 7 days (§ 380-11 C(3)(a))."""
    from stormwater.rules.inspections import stabilization_due

    not_before_permit(area.project, on, what="day work ceased", field="on")
    area.ceased_on, area.stabilized_on = on, None
    area.save(update_fields=["ceased_on", "stabilized_on"])
    event_record(case=area.project.case, kind="area", acting_user=acting_user, on=on,
                 why=f"Work ceased on {area.name}: stabilize by {show_day(stabilization_due(on))} (§ 380-11 C(3)(a))")
    return area


@transaction.atomic
def area_stabilized(*, area: DisturbedArea, on: date, acting_user) -> DisturbedArea:
    if area.stabilized_on is not None:
        raise ConstructionError(ERR_ALREADY_STABLE)
    not_before_permit(area.project, on, what="day the area was stabilized", field="on")
    area.stabilized_on = on
    area.save(update_fields=["stabilized_on"])
    event_record(case=area.project.case, kind="area", acting_user=acting_user, on=on, why=f"{area.name} stabilized")
    return area


# --- surety (§ 380-17) ----------------------------------------------------------------------------

@transaction.atomic
def surety_post(*, project: ConstructionProject, form: str, amount: Decimal, estimated_cost: Decimal,
                prevailing_wage_included: bool, counsel_approved_on: date | None, finance_approved_on: date | None,
                posted_on: date, acting_user, issuer: str = "", reference: str = "", upload=None) -> Surety:
    """§ 380-17 A: a bond, irrevocable letter of credit, cash or other security, approved in form by Town
    Counsel and Finance, not less than the estimated construction cost including prevailing wage."""
    p = _lock(project)
    if Surety.objects.filter(project=p).exists():
        raise ConstructionError(ERR_SURETY_EXISTS)
    if amount <= 0 or estimated_cost <= 0:
        raise ConstructionError(ERR_AMOUNT, field="amount" if amount <= 0 else "estimated_cost")
    if not prevailing_wage_included:
        raise ConstructionError(ERR_SURETY_WAGE, field="prevailing_wage")
    if amount < estimated_cost:
        raise ConstructionError(ERR_SURETY_AMOUNT.format(amount=f"${fmt(amount)}", cost=f"${fmt(estimated_cost)}"),
                                field="amount")
    if counsel_approved_on is None or finance_approved_on is None:
        raise ConstructionError(ERR_SURETY_APPROVALS,
                                field="counsel_approved_on" if counsel_approved_on is None else "finance_approved_on")
    doc = case_document_add(case=p.case, upload=upload, tag="surety", title="Surety instrument",
                            acting_user=acting_user) if upload is not None else None
    s = Surety.objects.create(project=p, form=form, issuer=issuer, reference=reference, amount=amount,
                              estimated_cost=estimated_cost, prevailing_wage_included=True,
                              counsel_approved_on=counsel_approved_on, finance_approved_on=finance_approved_on,
                              posted_on=posted_on, document=doc)
    event_record(case=p.case, kind="surety", acting_user=acting_user, on=posted_on,
                 why=f"Surety posted: {s.get_form_display()} {fmt_usd(amount)} (estimate {fmt_usd(estimated_cost)})")
    audit_record(actor=acting_user, action="construction.surety_post", obj=s, data={"amount": fmt(amount)})
    return s


def surety_held(surety: Surety) -> Decimal:
    """The security still held: the amount less releases and forfeiture draws (a sum of entries)."""
    out = surety.entries.aggregate(t=Sum("amount"))["t"] or ZERO
    return surety.amount - out


def final_submissions_missing(project: ConstructionProject) -> list[str]:
    """What § 380-18 (final submissions), § 380-14 D(4) and § 380-16 still need before the certificate."""
    from stormwater.stewardship.selectors import easements_missing, final_plan_recorded

    missing = []
    site = project.permit.stewardship_sites.order_by("id").first()
    if site is None or final_plan_recorded(site) is None:
        missing.append("the final O&M plan recorded at the Hampden County Registry of Deeds, with proof of recording "
                       "(book and page or document number) filed (§ 380-18 A, § 380-14 B)")
    if not project.as_builts.filter(accepted_on__isnull=False).exists():
        missing.append("as-built drawings certified by a Massachusetts registered PE, paper and PDF, accepted "
                       "(§ 380-18 B, § 380-15)")
    if not project.inspections.filter(kind=K.FINAL, evaluation=Evaluation.COMPLIANT).exists():
        missing.append("the final inspection report finding the system properly installed and functioning "
                       "(§ 380-18 C, § 380-16 C(4)(e))")
    if site is None:
        missing.append("stormwater management easements recorded (§ 380-14 D(4))")
    else:
        missing.extend(easements_missing(site))
    unresolved = _unresolved(project)
    if unresolved:
        missing.append("violations corrected and approved: " + ", ".join(f"V{v.pk}" for v in unresolved)
                       + " (§ 380-16 C(4)(e)[5])")
    return missing


@transaction.atomic
def surety_release(*, project: ConstructionProject, amount: Decimal, on: date, acting_user, phase: str = "",
                   reason: str = "") -> SuretyEntry:
    """§ 380-17 B: part of the bond may be released as each phase is completed in compliance with the
    permit; it may not be fully released until the final inspection report and the other § 380-18
    submissions are in and the certificate of completion is issued."""
    p = _lock(project)
    surety = Surety.objects.select_for_update().filter(project=p).first()
    if surety is None:
        raise ConstructionError(ERR_SURETY_NONE)
    if amount <= 0:
        raise ConstructionError(ERR_AMOUNT, field="amount")
    held = surety_held(surety)
    if amount > held:
        raise ConstructionError(ERR_RELEASE_MORE.format(amount=f"${fmt(amount)}", held=f"${fmt(held)}"), field="amount")
    final = amount == held
    if final:
        missing = final_submissions_missing(p)
        if p.certificate_on is None:
            missing.append("the certificate of completion (§ 380-18)")
        if missing:
            raise ConstructionError(ERR_RELEASE_FULL.format(items="; ".join(missing)))
    else:
        if not phase.strip():
            raise ConstructionError(ERR_RELEASE_PHASE, field="phase")
        unresolved = _unresolved(p)
        if unresolved:
            raise ConstructionError(ERR_RELEASE_VIOLATIONS.format(items=", ".join(f"V{v.pk}" for v in unresolved)))
    e = SuretyEntry.objects.create(surety=surety, kind=SuretyEntryKind.RELEASE, amount=amount, on=on, phase=phase,
                                   reason=reason or ("final release" if final else f"phase completed: {phase}"),
                                   final=final, recorded_by=acting_user)
    event_record(case=p.case, kind="surety.release", acting_user=acting_user, on=on,
                 why=f"Surety {'released in full' if final else 'partly released'}: ${fmt(amount)}"
                     + (f" ({phase})" if phase else "") + f"; held ${fmt(held - amount)}")
    audit_record(actor=acting_user, action="construction.surety_release", obj=e, data={"amount": fmt(amount),
                                                                                       "final": final})
    return e


@transaction.atomic
def surety_forfeit(*, project: ConstructionProject, violation: Violation, amount: Decimal, on: date, reason: str,
                   acting_user) -> SuretyEntry:
    """§ 380-16 C(4)(e)[4], § 380-17 A: if the permittee fails to act, the Town may use the surety to
    complete the work. Refused unless the violation is unresolved and its date to correct has passed."""
    p = _lock(project)
    surety = Surety.objects.select_for_update().filter(project=p).first()
    if surety is None:
        raise ConstructionError(ERR_SURETY_NONE)
    if amount <= 0:
        raise ConstructionError(ERR_AMOUNT, field="amount")
    if violation.project_id != p.pk:
        raise ConstructionError("That violation is not on this project.", field="violation")
    if violation.resolved or violation.corrected_on is not None:
        raise ConstructionError(ERR_FORFEIT.format(vid=f"V{violation.pk}", why="has been corrected"), field="violation")
    if on <= violation.correct_by:
        raise ConstructionError(ERR_FORFEIT.format(vid=f"V{violation.pk}",
                                                   why=f"may still be corrected until {violation.correct_by}"),
                                field="violation")
    held = surety_held(surety)
    if amount > held:
        raise ConstructionError(ERR_RELEASE_MORE.format(amount=f"${fmt(amount)}", held=f"${fmt(held)}"), field="amount")
    e = SuretyEntry.objects.create(surety=surety, kind=SuretyEntryKind.FORFEITURE, amount=amount, on=on,
                                   reason=f"V{violation.pk}: {reason}", recorded_by=acting_user)
    event_record(case=p.case, kind="surety.forfeit", acting_user=acting_user, on=on,
                 why=f"Surety drawn ${fmt(amount)} to correct V{violation.pk}: {reason}")
    audit_record(actor=acting_user, action="construction.surety_forfeit", obj=e, data={"amount": fmt(amount)})
    return e


# --- completion -----------------------------------------------------------------------------------

@transaction.atomic
def as_built_submit(*, project: ConstructionProject, upload, pe_name: str, pe_license: str,
                    certified_on: date | None, paper_copy_received_on: date | None, full_size: bool,
                    final_grades: bool, deviations: str, acting_user) -> AsBuilt:
    """§ 380-15: full-size plans with all final grades and all changes from the approved plans, certified by
    the project design engineer (a Massachusetts registered PE); one paper copy and a PDF. The paper copy is
    received today, by the server's clock, unless construction staff record the day it arrived (cases.filing)."""
    if paper_copy_received_on is not None:
        paper_copy_received_on = filed_on(acting_user=acting_user, claimed=paper_copy_received_on,
                                          staff_perm=Perm.CONSTRUCTION_MANAGE)
    missing = [(what, name) for lacking, what, name in [  # (what is missing, the posted input it is)
        (upload is None, "the PDF of the drawings", "file"),
        (not pe_name.strip(), "the certifying engineer's name", "pe_name"),
        (not pe_license.strip(), "the Massachusetts PE registration number", "pe_license"),
        (certified_on is None, "the date of certification", "certified_on"),
        (paper_copy_received_on is None, "the paper copy (date received)", "paper_on"),
        (not full_size, "full-size plans", "full_size"),
        (not final_grades, "all final grades", "final_grades"),
        (not deviations.strip(), "the deviations from the approved plans (or “none”)", "deviations")] if lacking]
    if missing:
        raise ConstructionError(ERR_ASBUILT_FIELDS.format(fields="; ".join(w for w, _ in missing)) + " (§ 380-15)",
                                field=missing[0][1])
    doc = case_document_add(case=project.case, upload=upload, tag="as_built", title="As-built drawings",
                            acting_user=acting_user)
    if doc.content_type != "application/pdf":
        raise ConstructionError(ERR_ASBUILT_PDF, field="file")
    ab = AsBuilt.objects.create(project=project, document=doc, pe_name=pe_name.strip(), pe_license=pe_license.strip(),
                                certified_on=certified_on, paper_copy_received_on=paper_copy_received_on,
                                full_size=True, final_grades=True, deviations=deviations.strip())
    event_record(case=project.case, kind="as_built", acting_user=acting_user, on=certified_on,
                 why=f"As-built drawings certified by {ab.pe_name}, PE {ab.pe_license} (§ 380-15)")
    return ab


@transaction.atomic
def as_built_accept(*, as_built: AsBuilt, on: date, acting_user) -> AsBuilt:
    not_before_permit(as_built.project, on, what="day the as-built drawings were accepted", field="on")
    as_built.accepted_on, as_built.accepted_by = on, acting_user
    as_built.save(update_fields=["accepted_on", "accepted_by"])
    event_record(case=as_built.project.case, kind="as_built.accepted", acting_user=acting_user, on=on,
                 why="As-built drawings accepted by the Director")
    audit_record(actor=acting_user, action="construction.as_built_accept", obj=as_built)
    return as_built


@transaction.atomic
def certificate_issue(*, project: ConstructionProject, acting_user, on: date | None = None) -> ConstructionProject:
    """§ 380-18: the letter certifying completion, only when the final O&M plan (recorded, § 380-14 B),
    the as-built drawings (§ 380-15), the final inspection report (§ 380-16) and the recorded easements
    (§ 380-14 D(4)) are all in; refused otherwise, naming what is missing. Review and oversight are then
    complete: the permit file closes and the 53G balance refund falls due within 30 days
    (permits.services.permit_close, § 380-10 G(2)(f))."""
    p = _lock(project)
    on = on or _today()
    not_before_permit(p, on, what="day of the certificate of completion", field="on")

    def check(_):
        missing = final_submissions_missing(p)
        if missing:
            raise TransitionError(ERR_CERTIFICATE.format(items="; ".join(missing)))
    case_transition(case=p.case, to=S.COMPLETED, acting_user=acting_user, on=on, check=check,
                    why="Certificate of completion issued (§ 380-18)")
    p.certificate_on = on
    p.save(update_fields=["certificate_on"])
    pdf = documents.certificate_pdf(p, on=on)
    p.certificate_document = _keep_pdf(p, pdf, tag="certificate", title="Certificate of completion",
                                       filename=f"{p.case.number}-certificate-{on}.pdf", acting_user=acting_user)
    p.save(update_fields=["certificate_document"])
    _send_on_commit(project=p, subject=f"Certificate of completion {p.case.number}",
                    body=f"The stormwater work at {p.permit.site_address} is certified complete.",
                    filename=p.certificate_document.original_name, pdf=pdf, acting_user=acting_user)
    if p.permit.case.status in (permit_wf.Status.APPROVED, permit_wf.Status.APPROVED_WITH_CONDITIONS):
        permit_services.permit_close(application=p.permit, acting_user=acting_user, on=on,
                                     why=f"certificate of completion {p.case.number}")
    return p
