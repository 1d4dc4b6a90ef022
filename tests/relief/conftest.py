"""Fixtures for relief: the FY2027 bills (issued Thu Sep 10, 2026), the demo credit policy, frozen days."""
from __future__ import annotations

from datetime import date

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from stormwater.utility.services import bill_run_issue, fiscal_year

PDF_BYTES = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"


def pdf_upload(name="evidence.pdf", content=PDF_BYTES):
    return SimpleUploadedFile(name, content, content_type="application/pdf")


@pytest.fixture
def billed(town, resolution, at):
    """FY2027 billed Thu Sep 10, 2026: two installments, the first due Oct 10 → rolled to Tue Oct 13
    (Sat, Sun, Columbus Day). The owner persona's house bill is $53.16 ($26.58 + $26.58)."""
    at(date(2026, 9, 10))
    label, start, end = fiscal_year(2027)
    bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2026, 9, 10),
                   acting_user=None)
    return town


@pytest.fixture
def policy(db, personas):
    from stormwater.relief.services import credit_policy_load_demo

    return credit_policy_load_demo(effective_from=date(2026, 7, 1), acting_user=personas["director"])


def house_bill(town):
    from stormwater.utility.models import Bill

    return Bill.objects.get(parcel=town["house"])


def pay_in_full(bill, on, user=None):
    """Pay what the bill's issued installments owe on ``on``."""
    from stormwater.receivables.services import payment_post
    from stormwater.relief.selectors import bill_owed

    return payment_post(account=bill.account, amount=bill_owed(bill, as_of=on), received_on=on, acting_user=user)


def pdf_text(doc) -> str:
    """A case document's PDF as its words (Debian's pdftotext), whitespace folded."""
    import subprocess

    out = subprocess.run(["pdftotext", doc.file.path, "-"], capture_output=True, text=True, check=True).stdout
    return " ".join(out.split())


def credit_denial_appealed_naming_an_abatement(billed, policy, personas, at):
    """The owner pays the house bill in full (Sep 20, 2026), applies for its abatement ($13.29, the BMP credit's 25 %)
    and for the BMP credit; the Director denies the credit on Fri Oct 2; on Oct 5 the owner appeals the denial naming
    the abatement. → (bill, abatement, credit application, appeal)."""
    from decimal import Decimal

    from stormwater.receivables.services import payment_post
    from stormwater.relief import services as sv
    from stormwater.relief.models import CreditType

    owner, director = personas["owner"], personas["director"]
    bill = house_bill(billed)
    at(date(2026, 9, 20))
    payment_post(account=bill.account, amount=Decimal("53.16"), received_on=date(2026, 9, 20), acting_user=None)
    at(date(2026, 9, 21))
    ab = sv.abatement_apply(bill=bill, grounds=["credit"], statement="The BMP credit should apply.",
                            amount_requested=Decimal("13.29"), disposition="refund", acting_user=owner)
    bmp = CreditType.objects.get(policy=policy, code="BMP")
    app = sv.credit_apply(parcel=billed["house"], credit_type=bmp, statement="Dry well.", acting_user=owner,
                          uploads=[(t, pdf_upload(f"{t}.pdf")) for t, _ in bmp.required_documents])
    sv.credit_determine_complete(application=app, acting_user=personas["staff"])
    at(date(2026, 10, 2))
    sv.credit_decide(application=app, decision="deny", reasons="Undersized.", acting_user=director)
    at(date(2026, 10, 5))
    ap = sv.appeal_file(decided_case=app.case, grounds="Sized for the roof.", acting_user=owner, related_abatement=ab)
    return bill, ab, app, ap
