"""The compliance report as a PDF (WeasyPrint, through utility.documents.render_pdf)."""
from __future__ import annotations

from stormwater.utility.documents import render_pdf


def review_pdf(review) -> bytes:
    return render_pdf("review/report_pdf.html", {"review": review, "r": review.results})
