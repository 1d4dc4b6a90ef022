"""The office's PDFs: the receipt and the municipal lien certificate (WeasyPrint, like the bill and demand)."""
from __future__ import annotations

from stormwater.utility.documents import render_pdf

from .models import LienCertificate, Receipt
from .selectors import account_owner_name


def receipt_pdf(receipt: Receipt) -> bytes:
    p = receipt.payment
    entries = list(p.entries.select_related("installment__bill").order_by("id"))
    return render_pdf("cashier/receipt_pdf.html", {"r": receipt, "p": p, "entries": entries,
                                                   "owner": account_owner_name(p.account)})


def certificate_pdf(cert: LienCertificate) -> bytes:
    return render_pdf("cashier/lien_certificate_pdf.html", {"c": cert, "f": cert.figures})
