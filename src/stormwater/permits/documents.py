"""Documents of a permit file rendered to PDF from templates/permits/ (utility.documents.render_pdf)."""
from __future__ import annotations

from datetime import date

from stormwater.utility.documents import render_pdf

from .terms import START_MONTHS

LETTER = "permits/pdf/letter.html"


def letter_pdf(*, application, subject: str, to_name: str, to_address: str = "", paragraphs: list[str],
               items: list[str] | None = None, citation: str = "", on: date, signer: str = "DPW Director") -> bytes:
    """One letter of the permit file: a notice, a request, a denial (each paragraph cites its rule)."""
    return render_pdf(LETTER, {"app": application, "case": application.case, "subject": subject, "to_name": to_name,
                               "to_address": to_address, "paragraphs": paragraphs, "items": items or [],
                               "citation": citation, "on": on, "signer": signer})


def abutter_letters_pdf(application, *, on: date) -> bytes:
    return render_pdf("permits/pdf/abutter_letters.html", {"app": application, "case": application.case,
                                                           "abutters": list(application.abutters.all()), "on": on})


def abutter_labels_pdf(application) -> bytes:
    return render_pdf("permits/pdf/abutter_labels.html", {"app": application, "abutters": list(application.abutters.all())})


def decision_pdf(application) -> bytes:
    """The decision; when issued, the permit: the approved plan sheets (title, number, revision, date), the date the
    project must start by (§ 380-10 K: two years after issuance), the conditions, and the signature block of the
    Director who decided (issue 18)."""
    from stormwater.rules.calendar import add_months

    app = application
    start_by = add_months(app.issued_on, START_MONTHS) if app.issued_on else None
    signer = app.decided_by
    return render_pdf("permits/pdf/decision.html", {"app": app, "case": app.case, "start_by": start_by,
                                                    "conditions": list(app.conditions.all()), "signer": signer,
                                                    "sheets": app.approved_sheets or []})


def account_report_pdf(application, *, entries, summary, on: date) -> bytes:
    return render_pdf("permits/pdf/account_report.html", {"app": application, "case": application.case,
                                                          "entries": entries, "summary": summary, "on": on})


def hearing_notice_pdf(hearing) -> bytes:
    return render_pdf("permits/pdf/hearing_notice.html", {"hearing": hearing})
