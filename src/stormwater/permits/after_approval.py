"""An approved permit's project (Ch. 380 § 380-10 J, K): the permittee's notice of a change and the Director's
determination (a significant change opens an amended application), the start of the project within two years of
issuance (recorded only by the construction file's start) and its extension.
"""
from __future__ import annotations

from datetime import date

from django.db import transaction

from stormwater.accounts.roles import Perm
from stormwater.cases.filing import filed_on
from stormwater.cases.models import Case
from stormwater.cases.services import TransitionError, clock_extend, clock_meet, clock_running, event_record

from . import workflow as wf
from .acts import ERR_FUTURE_DATE, PermitError, _lock, _today
from .application import permit_application_start
from .models import PermitApplication, ProjectChange

S = wf.Status

ERR_NOT_APPROVED = "Only an approved permit has project changes and a start date (§ 380-10 J, K)."
ERR_START_NO_FILE = ("No construction file is open for this permit: the Director opens it, and the start of land "
                     "disturbance is recorded there once the pre-construction checks pass (§ 380-16 A–C, § 380-17 A).")
ERR_START_VIA_FILE = ("The start of land disturbance is recorded on the construction file {case}, once the "
                      "pre-construction checks pass (§ 380-16 A–C, § 380-17 A).")


def _approved(app):
    if app.case.status not in (S.APPROVED, S.APPROVED_WITH_CONDITIONS):
        raise ValueError(ERR_NOT_APPROVED)


@transaction.atomic
def project_change_notify(*, application: PermitApplication, description: str, acting_user,
                          notified_on: date | None = None) -> ProjectChange:
    """§ 380-10 J: the permittee's written notice of a change before it occurs. Dated today by the server unless
    permit staff record a paper notice (cases.filing)."""
    notified_on = filed_on(acting_user=acting_user, claimed=notified_on, staff_perm=Perm.PERMIT_REVIEW)
    if notified_on > _today():
        raise PermitError(ERR_FUTURE_DATE, field="notified_on")
    app = _lock(application)
    _approved(app)
    ch = ProjectChange.objects.create(application=app, notified_on=notified_on, description=description)
    event_record(case=app.case, kind="project_change", acting_user=acting_user, on=notified_on,
                 why=f"Notice of project change: {description[:200]}")
    return ch


@transaction.atomic
def project_change_determine(*, change: ProjectChange, significant: bool, acting_user, interim_measures: str = "",
                             note: str = "", on: date | None = None) -> ProjectChange:
    """§ 380-10 J: a significant change needs an amended application with prior abutter notice (a new permit
    file linked to this one); interim measures may be required before the change is approved."""
    app = _lock(change.application)
    on = on or _today()
    change.significant, change.determined_on = significant, on
    change.interim_measures, change.note = interim_measures, note
    if significant:
        amended = permit_application_start(
            acting_user=acting_user, owner=app.owner, owner_name=app.owner_name, owner_address=app.owner_address,
            agent_name=app.agent_name, site_address=app.site_address, parcels=list(app.parcels.all()),
            description=f"Amended application ({app.case.number}): {change.description}",
            disturbance_sqft=app.disturbance_sqft, project_type=app.project_type,
            wetlands_jurisdiction=app.wetlands_jurisdiction, planning_board=app.planning_board,
            autocad_plans=app.autocad_plans)  # abutter notice is required again: no H(3) waiver carried over
        Case.objects.filter(pk=amended.case_id).update(parent=app.case, applicant=app.case.applicant)
        change.amended_case = amended.case
    change.save()
    event_record(case=app.case, kind="project_change", acting_user=acting_user, on=on,
                 why=("Significant change: amended application required" + (f" ({change.amended_case.number})"
                                                                              if change.amended_case else "")
                      if significant else "Change not significant") +
                 (f"; interim measures: {interim_measures}" if interim_measures else ""))
    return change


@transaction.atomic
def project_start_record(*, application: PermitApplication, started_on: date, acting_user):
    """§ 380-10 K: the project began (the two-year clock is met). Recorded only by the construction file's start
    (``construction.services.construction_start``), after its checks: the pre-construction meeting (§ 380-16 A),
    the signed plan on site (§ 380-16 B), the surety (§ 380-17 A) and the erosion-control inspection before the
    start (§ 380-16 C(4)(b)[1]). Called directly it is refused (issue 18: the applicant's "Record start" skipped
    them)."""
    app = _lock(application)
    _approved(app)
    project = getattr(app, "construction", None)  # the reverse one-to-one; None without a construction file
    if project is None:
        raise TransitionError(ERR_START_NO_FILE)
    if project.started_on != started_on:
        raise TransitionError(ERR_START_VIA_FILE.format(case=project.case.number))
    app.started_on = started_on
    app.save(update_fields=["started_on"])
    clock = clock_running(case=app.case, kind=wf.PROJECT_START)
    if clock is not None:
        clock_meet(clock=clock, on=started_on, reason="construction started", acting_user=acting_user)
    return app


@transaction.atomic
def project_start_extend(*, application: PermitApplication, days: int, reason: str, acting_user):
    """§ 380-10 K: the Director may extend the two years."""
    _approved(application)
    return clock_extend(case=application.case, kind=wf.PROJECT_START, days=days, reason=reason,
                        acting_user=acting_user)
