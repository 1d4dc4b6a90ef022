"""Letters of a relief case rendered to PDF from templates/relief/pdf/ (utility.documents.render_pdf)."""
from __future__ import annotations

from datetime import date

from stormwater.utility.documents import render_pdf

LETTER = "relief/pdf/letter.html"


def letter_pdf(*, case, subject: str, to_name: str, to_address: str, paragraphs: list[str], items: list[str],
               citation: str, on: date, signer: str, copy_to: str = "") -> bytes:
    """One letter of the case file: a receipt, a notice, a decision (each paragraph says its rule)."""
    return render_pdf(LETTER, {"case": case, "subject": subject, "to_name": to_name, "to_address": to_address,
                               "paragraphs": paragraphs, "items": items, "citation": citation, "on": on,
                               "signer": signer, "copy_to": copy_to})
