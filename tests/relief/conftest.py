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
