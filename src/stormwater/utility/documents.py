"""Documents a person receives, rendered from templates to PDF (WeasyPrint)."""
from __future__ import annotations

from django.conf import settings
from django.template.loader import render_to_string

from stormwater.web.preview import mark_html  # a preview (web/preview.py) marks every page


def render_pdf(template: str, context: dict) -> bytes:
    from weasyprint import HTML  # imported lazily: heavy, and only PDF paths need it

    html = mark_html(render_to_string(template, {**context, "town": settings.TOWN_NAME}))
    return HTML(string=html, base_url=str(settings.BASE_DIR)).write_pdf()


def bill_context(bill, *, base_url: str = "") -> dict:
    """What the bill a resident can act on shows (issue 17; Ch. 295 Art. IV ¶B, billing ¶A, ¶C, ¶E, credits ¶D):

    - the remit-to address and the Division's phone and web address (town configuration);
    - this bill, the past-due balance of earlier bills as of the issue date (with interest to that day), and the
      total amount due; a back bill says no interest or late charge applies (billing ¶A);
    - the ERU in plain words (the resolution's ERU size); the abatement deadline (30 days from issue, rolled,
      billing ¶E) and the right to a credit (credits ¶D);
    - a QR code to the bill online (``public_url``, else ``base_url`` of the request rendering it; neither →
      no QR code) and the stub's scanline (``utility.scanline``) for the amount due.
    """
    import segno

    from stormwater.rules.deadlines import deadline
    from stormwater.rules.money import ZERO
    from stormwater.townconfig import town_config

    from .ledger import account_position
    from .scanline import scanline_format
    from .selectors import bill_installments

    cfg = town_config()
    past_due = ZERO
    if bill.account_id:
        pos = account_position(bill.account, as_of=bill.issue_date)
        past_due = sum((d.total for d in pos.dues if d.installment.bill_id != bill.pk
                        and d.installment.due_date < bill.issue_date and d.total > 0), ZERO)
    installments = list(bill_installments(bill))
    due_now = installments[0].amount if installments else bill.amount
    amount_due = due_now + past_due
    root = (cfg.public_url or base_url or "").rstrip("/")
    online = f"{root}/bills/{bill.number}/" if root else ""
    # Drawn to fit the printed 1-inch square whatever the code's size (a viewBox, no fixed width: segno's fixed-size
    # SVG was clipped to the square, cutting off the last rows of longer codes), with the standard's 4-module quiet
    # zone (ISO/IEC 18004) so the stub's border does not touch it. tests/utility/test_bill_document.py reads it back.
    qr = segno.make(online, error="m").svg_data_uri(border=4, omitsize=True) if online else ""
    return {"bill": bill, "installments": installments, "resolution": bill.run.resolution, "cfg": cfg,
            "past_due": past_due, "due_now": due_now, "amount_due": amount_due, "online_url": online, "qr": qr,
            "site_url": root, "scanline": scanline_format(bill.account.number, amount_due),
            "abatement_deadline": deadline("abatement_filing", bill.issue_date)}


def bill_pdf(bill, *, base_url: str = "") -> bytes:
    """The bill as mailed; a proof's bill (for staff checking the proof) or a voided one says so on its face."""
    return render_pdf("utility/bill_pdf.html", bill_context(bill, base_url=base_url))


def render_document(template: str, context: dict):
    """The rendered WeasyPrint document (its pages), for printing many into one file (jobs: bills_pdf)."""
    from weasyprint import HTML

    html = mark_html(render_to_string(template, {**context, "town": settings.TOWN_NAME}))
    return HTML(string=html, base_url=str(settings.BASE_DIR)).render()


def bill_document(bill):
    return render_document("utility/bill_pdf.html", bill_context(bill))
