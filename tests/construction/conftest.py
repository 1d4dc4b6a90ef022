"""Fixtures for construction files: an approved permit on the owner persona's lot, a frozen clock, PDFs."""
from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

EASTERN = ZoneInfo("America/New_York")
PDF_BYTES = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"


def pdf_upload(name="doc.pdf", content=PDF_BYTES):
    return SimpleUploadedFile(name, content, content_type="application/pdf")


def dt(y, m, d, hh=10, mm=0):
    return datetime(y, m, d, hh, mm, tzinfo=EASTERN)




@pytest.fixture
def approved(town, personas, at):
    """Permit filed 2026-03-02, complete 03-06, approved with conditions 2026-04-10 (the owner's lot)."""
    from stormwater.parcels.models import Owner
    from permits.conftest import review_every_item
    from stormwater.permits import services as sv
    from stormwater.permits.checklist import ITEMS
    from stormwater.rules.applicability import determine

    at(date(2026, 3, 2))
    owner = Owner.objects.get(user=personas["owner"])
    app = sv.permit_application_start(
        acting_user=personas["owner"], owner=owner, owner_name=owner.name, owner_address=owner.mailing_address,
        site_address="1 Elm St", parcels=[town["house"]], description="Eight-lot subdivision with a new road",
        disturbance_sqft=Decimal(87120), determination=determine(disturbance_sqft=Decimal(87120), on=date(2026, 3, 2)))
    for item in ITEMS:
        if app.checklist.get(key=item.key).done:
            continue
        if item.by_upload:
            sv.permit_document_upload(application=app, upload=pdf_upload(f"{item.key}.pdf"), tag=item.key,
                                      acting_user=personas["staff"])
        elif item.key == "fees":  # paid at the counter before filing (issue 30)
            sv.permit_fees_paid(application=app, paid_on=date(2026, 3, 2), receipt="R-1", acting_user=personas["staff"])
        else:
            sv.checklist_confirm(application=app, key=item.key, acting_user=personas["staff"], note="test")
    sv.permit_file(application=app, acting_user=personas["owner"])
    at(date(2026, 3, 6))
    sv.permit_determine_complete(application=app, acting_user=personas["staff"])
    at(date(2026, 3, 9))
    sv.consultant_select(application=app, name="Pat Reviewer", degree="PE", services="review and construction "
                         "monitoring", fee=Decimal("4000"), notice_on=date(2026, 3, 9), acting_user=personas["director"])
    sv.consultant_fee_deposit(application=app, amount=Decimal("4000"), on=date(2026, 3, 9), reference="R-1",
                              acting_user=personas["collector"])
    sv.account_expenditure(application=app, amount=Decimal("3250"), on=date(2026, 3, 9), payee="Pat Reviewer",
                           memo="plan review", acting_user=personas["director"])
    at(date(2026, 4, 10))
    review_every_item(app, personas["staff"])
    sv.permit_decide(application=app, kind="approve_conditions", findings="Meets the standards.",
                     standards=["380-11B", "380-11D"], conditions=["Silt fence before clearing"],
                     acting_user=personas["director"], on=date(2026, 4, 10))
    app.refresh_from_db()
    return app


@pytest.fixture
def project(approved, personas, at):
    """Construction file opened 2026-04-13: the consultant persona is the design engineer, the inspector
    persona the ESC inspector; 14-day + storm frequency (CGP 4.2(b))."""
    from stormwater.construction.services import project_open

    at(date(2026, 4, 13))
    return project_open(permit=approved, acting_user=personas["director"], design_engineer=personas["consultant"],
                        design_engineer_name="Dana Engineer", design_engineer_pe="MA PE 45678",
                        esc_inspector=personas["inspector"], esc_inspector_name="Ivy Inspector",
                        esc_inspector_credentials="CPESC #1234", frequency="14day_storm")


def report(kind, when, **kw):
    """A complete § 380-16 C(4)(f)[1] report; override fields with keywords."""
    from stormwater.construction.services import ReportInput

    base = dict(kind=kind, inspected_at=when, location="1 Elm St, whole site", inspector_name="Ivy Inspector",
                inspector_credentials="CPESC #1234", last_inspection="none", weather="Overcast, 55 °F",
                precipitation_24h_in=Decimal("0.00"), evaluation="compliant")
    base.update(kw)
    return ReportInput(**base)
