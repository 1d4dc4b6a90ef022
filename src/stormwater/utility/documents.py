"""Documents a person receives, rendered from templates to PDF (WeasyPrint)."""
from __future__ import annotations

from django.conf import settings
from django.template.loader import render_to_string


def render_pdf(template: str, context: dict) -> bytes:
    from weasyprint import HTML  # imported lazily: heavy, and only PDF paths need it

    html = render_to_string(template, {**context, "town": settings.TOWN_NAME})
    return HTML(string=html, base_url=str(settings.BASE_DIR)).write_pdf()


def bill_pdf(bill) -> bytes:
    """The bill as mailed; a proof's bill (for staff checking the proof) or a voided one says so on its face."""
    from .selectors import bill_installments

    return render_pdf("utility/bill_pdf.html", {"bill": bill, "installments": list(bill_installments(bill)),
                                                "resolution": bill.run.resolution})


def render_document(template: str, context: dict):
    """The rendered WeasyPrint document (its pages), for printing many into one file (jobs: bills_pdf)."""
    from weasyprint import HTML

    html = render_to_string(template, {**context, "town": settings.TOWN_NAME})
    return HTML(string=html, base_url=str(settings.BASE_DIR)).render()


def bill_document(bill):
    return render_document("utility/bill_pdf.html", {"bill": bill, "installments": bill.installments.all(),
                                                     "resolution": bill.run.resolution})
