"""What every construction service shares: the refusal type, the row lock, keeping a rendered PDF in the file and
emailing it after commit to the applicant and the Director (§ 380-16 C(4)(f)[1])."""
from __future__ import annotations

from datetime import date, datetime

from django.utils import timezone

from stormwater.accounts.models import User
from stormwater.accounts.roles import Role
from stormwater.cases.services import case_document_generate, event_record

from .models import ConstructionProject


class ConstructionError(ValueError):
    """A refusal; the message names what is missing and the Ch. 380 provision; ``field``, where given, is the
    posted input it concerns (issue 16 "Forms": ``web.forms.add_refusal`` puts the message at that field)."""

    def __init__(self, message: str = "", field: str | None = None):
        super().__init__(message)
        self.field = field


def _today() -> date:
    return timezone.localdate()


# --- no act of a construction file is dated before its permit (issue 30) ----------------------------------------
# A construction file follows an issued permit (§ 380-10 I: the decision; § 380-10 K: the two years to start run from
# issuance; § 380-16: the meeting, the plan on site and the inspections are of the permitted work). So no act of the
# file (meeting, plan on site, start, inspection, storm, area, violation, stop-work, as-built, certificate) may be
# dated before the permit's issuance (its decision date where no issuance date is recorded, else the file's opening).
ERR_BEFORE_PERMIT = ("The {what} ({day:%Y-%m-%d}) is before permit {number} was issued ({issued:%Y-%m-%d}): "
                     "no act of the construction file may be dated before the permit (§ 380-10 I, K; § 380-16).")


def permit_issued_on(project: ConstructionProject) -> date:
    """The first day an act of this construction file may be dated."""
    permit = project.permit
    return permit.issued_on or permit.decided_on or timezone.localdate(project.case.opened_at)


def not_before_permit(project: ConstructionProject, when, *, what: str, field: str | None = None) -> None:
    """Refuse (naming ``what`` and the posted ``field``) a date or time of an act before the permit's issuance."""
    if when is None:
        return
    day = timezone.localdate(when) if isinstance(when, datetime) else when
    issued = permit_issued_on(project)
    if day < issued:
        raise ConstructionError(ERR_BEFORE_PERMIT.format(what=what, day=day, number=project.permit.case.number,
                                                         issued=issued), field=field)


def _lock(project: ConstructionProject) -> ConstructionProject:
    return ConstructionProject.objects.select_for_update().select_related("case", "permit").get(pk=project.pk)


def _keep_pdf(project, content: bytes, *, tag: str, title: str, filename: str, acting_user):
    return case_document_generate(case=project.case, content=content, filename=filename, tag=tag, title=title,
                                  acting_user=acting_user)


def recipients(project: ConstructionProject) -> list[tuple[str, str]]:
    """(name, email) of the applicant and the DPW Director (§ 380-16 C(4)(f)[1]: reports go to both);
    email only where an address is configured."""
    out: list[tuple[str, str]] = []
    applicant = project.permit.case.applicant
    if applicant is not None and applicant.email:
        out.append((applicant.get_full_name() or applicant.username, applicant.email))
    for party in project.permit.case.parties.exclude(email=""):
        out.append((party.name, party.email))
    for d in User.objects.filter(role=Role.DIRECTOR, is_active=True).exclude(email=""):
        out.append((d.get_full_name() or "DPW Director", d.email))
    seen, unique = set(), []
    for name, email in out:
        if email.lower() not in seen:
            seen.add(email.lower())
            unique.append((name, email))
    return unique


def _send_on_commit(*, project, subject: str, body: str, filename: str, pdf: bytes, acting_user) -> list[str]:
    """Email the PDF to the applicant and the Director after the transaction commits (never inside it)."""
    to = [email for _, email in recipients(project)]
    if to:  # recorded in NoticeSent now, sent after commit (stormwater.notices)
        from stormwater.notices.services import notice_email

        notice_email(to=to, subject=subject, body=body, kind="construction_letter", case=project.case,
                     attachment=(filename, pdf, "application/pdf"))
    event_record(case=project.case, kind="notice", acting_user=acting_user,
                 why=f"{subject}: " + (f"emailed to {', '.join(to)}" if to else "no email configured: printed"),
                 data={"to": to})
    return to
