"""The review summary as a PDF (templates/workbench/pdf/summary.html, utility.documents.render_pdf)."""
from __future__ import annotations

from stormwater.utility.documents import render_pdf


def review_summary_pdf(ctx: dict) -> bytes:
    return render_pdf("workbench/pdf/summary.html", ctx)
