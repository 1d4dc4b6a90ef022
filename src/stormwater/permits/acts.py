"""What every act on a permit file shares (Ch. 380 § 380-10): the refusal that names its rule and the input it
concerns, today's date, the lock on the application row, and the file's letters (rendered to PDF, kept in the case
file, e-mailed after commit where the applicant has an address).
"""
from __future__ import annotations

from datetime import date

from django.utils import timezone

from stormwater.cases.services import case_document_generate

from . import documents
from .models import PermitApplication

ERR_FUTURE_DATE = "The date received must not be in the future."


class PermitError(ValueError):
    """A refusal about one input: the message says why (and the Ch. 380 provision), ``field`` names the posted input
    it concerns, so a refused staff form shows it at that input (issue 16 "Forms": ``web.postdata.refused``)."""

    def __init__(self, message: str = "", field: str | None = None):
        super().__init__(message)
        self.field = field


def _today() -> date:
    return timezone.localdate()


def _lock(app: PermitApplication) -> PermitApplication:
    return PermitApplication.objects.select_for_update().select_related("case").get(pk=app.pk)


def _keep_pdf(app, content: bytes, *, tag: str, title: str, filename: str, acting_user):
    return case_document_generate(case=app.case, content=content, filename=filename, tag=tag, title=title,
                                  acting_user=acting_user)


def _letter(app, *, tag, title, filename, subject, paragraphs, items=None, citation="", on, acting_user,
            to_name=None, to_address=None):
    pdf = documents.letter_pdf(application=app, subject=subject, to_name=to_name or app.owner_name,
                               to_address=app.owner_address if to_address is None else to_address,
                               paragraphs=paragraphs, items=items, citation=citation, on=on)
    doc = _keep_pdf(app, pdf, tag=tag, title=title, filename=filename, acting_user=acting_user)
    applicant = app.case.applicant
    if applicant is not None and applicant.email:  # the letter also goes by email where we have an address
        _send_on_commit(subject, "\n\n".join(paragraphs), applicant.email, filename, pdf, case=app.case, kind=tag)
    return doc


def _send_on_commit(subject: str, body: str, to: str, filename: str, pdf: bytes, *, case=None,
                    kind: str = "letter") -> None:
    """Email after commit, with a NoticeSent record of what went to whom and when (stormwater.notices)."""
    from stormwater.notices.services import notice_email

    notice_email(to=to, subject=subject, body=body, kind=kind, case=case,
                 attachment=(filename, pdf, "application/pdf"))
