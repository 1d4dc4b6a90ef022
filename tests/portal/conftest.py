"""Fixtures for the portal: the FY2027 bills of the test town, uploads, a clean throttle cache."""
from __future__ import annotations

from datetime import date

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

PDF_BYTES = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


@pytest.fixture(autouse=True)
def _media_and_cache(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    yield  # the throttles' cache: cleared around every database test (tests/conftest.py::_fresh_cache)


def pdf_upload(name="evidence.pdf", content=PDF_BYTES):
    return SimpleUploadedFile(name, content, content_type="application/pdf")


@pytest.fixture
def billed(town, resolution, at):
    from stormwater.utility.services import bill_run_issue, fiscal_year

    at(date(2026, 9, 10))
    label, start, end = fiscal_year(2027)
    bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2026, 9, 10),
                   acting_user=None)
    return town
