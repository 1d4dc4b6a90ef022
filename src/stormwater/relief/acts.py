"""What every relief act shares (Ch. 295 Art. IV credits, billing ¶E, appeals): the refusal that names its rule and
date, the date an act is taken on (never in the future), the clocks of ``rules.deadlines`` started and met on the
case, the case opened with its owner as a party, and the letters of the case file (rendered to PDF, kept, e-mailed
after commit where an address is on file), with the paragraph on the right to appeal a written decision; and the one
act every relief case has, its withdrawal.
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from datetime import date

from django.db import transaction
from django.utils import timezone

from stormwater.cases.models import Case, CaseParty, PartyRole
from stormwater.cases.services import (case_document_generate, case_open, case_transition, clock_meet, clock_running,
                                       clock_start, event_record)
from stormwater.rules.deadlines import CLOCKS, case_clock_terms, deadline

from . import documents
from .models import Decision


class ReliefError(ValueError):
    """A refusal; the message names the rule (and the date) that refuses; ``field`` names the input it concerns
    when there is one (a form shows it at that field: web/forms.py)."""

    def __init__(self, message: str = "", field: str | None = None):
        super().__init__(message)
        self.field = field


ERR_REASONS = "A written decision must give its reasons."
ERR_DECISION = "Choose the decision: granted in full, granted in part or denied."


def _today() -> date:
    return timezone.localdate()


def _start_clock(case: Case, kind: str, start: date, acting_user, *, hearing_date: date | None = None):
    rule = CLOCKS[kind]
    length, roll = case_clock_terms(kind, start=start, hearing_date=hearing_date)
    return clock_start(case=case, kind=kind, label=rule.label, citation=rule.citation, start=start, length=length,
                       roll=roll, acting_user=acting_user)


def _meet(case: Case, kind: str, on: date, reason: str, acting_user) -> None:
    c = clock_running(case=case, kind=kind)
    if c is not None:
        clock_meet(clock=c, on=on, reason=reason, acting_user=acting_user)


def _owner_party(case: Case) -> CaseParty | None:
    return case.parties.filter(role=PartyRole.OWNER).first()


def _send_on_commit(*, subject: str, body: str, to: str, filename: str, pdf: bytes, case: Case | None = None,
                    kind: str = "letter") -> None:
    """Email after commit, with a NoticeSent record of what went to whom and when (stormwater.notices)."""
    from stormwater.notices.services import notice_email

    notice_email(to=to, subject=subject, body=body, kind=kind, case=case, attachment=(filename, pdf, "application/pdf"))


def _notice(case: Case, *, tag: str, subject: str, paragraphs: list[str], on: date, acting_user,
            items: list[str] | None = None, citation: str = "", signer: str = "DPW Director",
            to_name: str | None = None, to_address: str | None = None, to_email: str | None = None,
            copy_to: str = "") -> object:
    """Render one letter of the case file to PDF, keep it, email it after commit where an address is on file."""
    party = _owner_party(case)
    to_name = to_name if to_name is not None else (party.name if party else "")
    to_address = to_address if to_address is not None else (party.mailing_address if party else "")
    email = to_email if to_email is not None else (party.email if party else "")
    pdf = documents.letter_pdf(case=case, subject=subject, to_name=to_name, to_address=to_address,
                               paragraphs=paragraphs, items=items or [], citation=citation, on=on, signer=signer,
                               copy_to=copy_to)
    filename = f"{case.number}-{tag}-{on:%Y%m%d}.pdf"
    doc = case_document_generate(case=case, content=pdf, filename=filename, tag=tag, title=subject,
                                 acting_user=acting_user)
    kept = _KEEP_ONLY.get()
    if email and not kept:
        _send_on_commit(subject=f"{case.number}: {subject}", body="\n\n".join(paragraphs), to=email,
                        filename=filename, pdf=pdf, case=case, kind=tag)
    how = (" (kept in the file: sent by the old office)" if kept else f", emailed to {email}" if email
           else " (mailed; no email on file)")
    event_record(case=case, kind="notice", acting_user=acting_user, on=on, why=f"{subject} to {to_name}{how}",
                 data={"document": doc.pk, "tag": tag})
    return doc


# Letters kept in the case file and e-mailed to nobody while set (``letters_kept_not_sent``).
_KEEP_ONLY: ContextVar[bool] = ContextVar("relief_letters_kept_only", default=False)


@contextmanager
def letters_kept_not_sent():
    """The acts inside keep their letters in the case file, dated as the act, and e-mail none of them: a case brought
    in from the old office at go-live (issue 32), whose owner was told by the old office on those days."""
    token = _KEEP_ONLY.set(True)
    try:
        yield
    finally:
        _KEEP_ONLY.reset(token)


def _d(day: date) -> str:
    return f"{day:%B} {day.day}, {day.year}"


def _appeal_paragraph(decided_on: date) -> str:
    due = deadline("appeal_filing", decided_on).due
    return (f"If you are aggrieved by this decision you may appeal to the Select Board by filing a written appeal "
            f"stating its grounds with the Department of Public Works within 30 days of the date of this decision, "
            f"that is by {_d(due)} (Ch. 295 Art. IV appeals ¶A).")


def _open(kind: str, *, title: str, acting_user, owner, applicant, parent: Case | None = None,
          on: date) -> Case:
    case = case_open(kind=kind, title=title, acting_user=acting_user, applicant=applicant, parent=parent)
    case.filed_on = on
    case.save(update_fields=["filed_on"])
    if owner is not None:
        CaseParty.objects.create(case=case, role=PartyRole.OWNER, name=owner.name, mailing_address=owner.mailing_address,
                                 email=owner.email or (owner.user.email if owner.user_id else ""), user=owner.user)
    return case


def _check_on(on: date | None) -> date:
    on = on or _today()
    if on > _today():
        raise ReliefError(f"The date {on} is in the future.", field="on")
    return on


def _decision(value: str) -> Decision:
    """The decision chosen; none is assumed (issue 16: a legal act has no preselected outcome)."""
    try:
        return Decision(value)
    except ValueError:
        raise ReliefError(ERR_DECISION, field="decision") from None


@transaction.atomic
def relief_withdraw(*, case: Case, acting_user, why: str = "", on: date | None = None) -> Case:
    on = _check_on(on)
    return case_transition(case=case, to="withdrawn", acting_user=acting_user, on=on, why=why or "Withdrawn")
