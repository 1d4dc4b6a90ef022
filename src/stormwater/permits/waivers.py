"""Waivers from the stormwater rules (Ch. 380 § 380-8), each a case of its own under the permit file: the written
request with its justification, the opportunity for public comment, requests for information, the applicant's
refusal, and the decision on the § 380-8 A findings.
"""
from __future__ import annotations

from datetime import date

from django.db import transaction

from stormwater.cases.services import TransitionError, case_open, case_transition, event_record

from . import workflow as wf
from .acts import PermitError
from .models import PermitApplication, Waiver

ERR_WAIVER_COMMENT = "A waiver request must have had its opportunity for public comment (§ 380-8 C)."
ERR_WAIVER_FINDINGS = ("A waiver may be granted only where it is allowed by law, in the public interest and not "
                       "inconsistent with the purpose of the bylaw and rules (§ 380-8 A(1)–(3)).")
ERR_WAIVER_JUSTIFY = "A waiver request needs an explanation or documentation supporting it (§ 380-8 B)."


@transaction.atomic
def waiver_request(*, application: PermitApplication, requirement: str, justification: str, acting_user,
                   on: date | None = None) -> Waiver:
    """§ 380-8 B: a written request with an explanation or documentation supporting it, received ``on`` (default
    today: a request brought in at go-live gives the day the old office received it)."""
    if not justification.strip():
        raise PermitError(ERR_WAIVER_JUSTIFY, field="justification")
    case = case_open(kind=wf.WAIVER, title=f"Waiver: {requirement[:200]}", acting_user=acting_user,
                     applicant=application.case.applicant, parent=application.case)
    if on is not None:
        case.filed_on = on
        case.save(update_fields=["filed_on"])
    w = Waiver.objects.create(case=case, application=application, requirement=requirement, justification=justification)
    event_record(case=application.case, kind="waiver", acting_user=acting_user, on=on,
                 why=f"Waiver requested ({case.number}): {requirement}")
    return w


@transaction.atomic
def waiver_public_comment(*, waiver: Waiver, from_on: date, note: str, acting_user) -> Waiver:
    """§ 380-8 C: the opportunity for public comment (§ 380-10 H)."""
    waiver.public_comment_from, waiver.public_comment_note = from_on, note
    waiver.save(update_fields=["public_comment_from", "public_comment_note"])
    event_record(case=waiver.case, kind="public_comment", acting_user=acting_user, on=from_on,
                 why=f"Public comment opened: {note}")
    return waiver


@transaction.atomic
def waiver_request_info(*, waiver: Waiver, info: str, acting_user, on: date | None = None) -> Waiver:
    """§ 380-8 D: more time or information; review continues until it is provided."""
    case_transition(case=waiver.case, to=wf.WaiverStatus.INFO_REQUESTED, acting_user=acting_user, on=on,
                    why=f"Information requested: {info}")
    waiver.info_requested = info
    waiver.save(update_fields=["info_requested"])
    return waiver


@transaction.atomic
def waiver_info_provided(*, waiver: Waiver, acting_user, on: date | None = None) -> Waiver:
    case_transition(case=waiver.case, to=wf.WaiverStatus.REQUESTED, acting_user=acting_user, on=on,
                    why="Requested information provided")
    return waiver


@transaction.atomic
def waiver_applicant_declines(*, waiver: Waiver, acting_user, reason: str, on: date | None = None) -> Waiver:
    """§ 380-8 D: the applicant objects to a continuance or fails to provide the information: denied."""
    case_transition(case=waiver.case, to=wf.WaiverStatus.DENIED, acting_user=acting_user, on=on,
                    why=f"Denied under § 380-8 D: {reason}")
    waiver.decision_note = f"Denied: {reason} (§ 380-8 D)"
    waiver.save(update_fields=["decision_note"])
    return waiver


@transaction.atomic
def waiver_decide(*, waiver: Waiver, grant: bool, note: str, acting_user, findings: tuple[bool, bool, bool] = (),
                  on: date | None = None) -> Waiver:
    """§ 380-8 A: granted only where allowed by law, in the public interest, and consistent with the purpose."""
    def check(_):
        if grant and waiver.public_comment_from is None:
            raise TransitionError(ERR_WAIVER_COMMENT)
        if grant and not (len(findings) == 3 and all(findings)):
            raise TransitionError(ERR_WAIVER_FINDINGS, field="a1")
    to = wf.WaiverStatus.GRANTED if grant else wf.WaiverStatus.DENIED
    case_transition(case=waiver.case, to=to, acting_user=acting_user, on=on, check=check,
                    why=("Granted" if grant else "Denied") + (f": {note}" if note else ""))
    waiver.decision_note = note
    waiver.save(update_fields=["decision_note"])
    event_record(case=waiver.application.case, kind="waiver", acting_user=acting_user, on=on,
                 why=f"Waiver {waiver.case.number} {'granted' if grant else 'denied'}: {waiver.requirement}")
    return waiver
