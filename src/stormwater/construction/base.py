"""What every construction service shares: the refusal type, the row lock, keeping a rendered PDF in the file and
emailing it after commit to the applicant and the Director (§ 380-16 C(4)(f)[1])."""
from __future__ import annotations

from datetime import date

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
