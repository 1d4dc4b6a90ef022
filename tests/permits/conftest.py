"""Fixtures for permit files: a draft on the owner persona's house lot, uploads, a frozen clock."""
from __future__ import annotations

from datetime import date
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


def pdf_upload(name="plan.pdf", content=PDF_BYTES):
    return SimpleUploadedFile(name, content, content_type="application/pdf")




@pytest.fixture
def draft(town, personas):
    """A draft application by the owner persona for their own lot (01-01-1), 2 acres."""
    from stormwater.parcels.models import Owner
    from stormwater.permits.services import permit_application_start
    from stormwater.rules.applicability import determine

    owner = Owner.objects.get(user=personas["owner"])
    det = determine(disturbance_sqft=Decimal(87120), on=date(2026, 3, 2))
    return permit_application_start(
        acting_user=personas["owner"], owner=owner, owner_name=owner.name, owner_address=owner.mailing_address,
        site_address="1 Elm St", parcels=[town["house"]], description="Eight-lot subdivision with a new road",
        disturbance_sqft=Decimal(87120), determination=det, wetlands_jurisdiction=True)


@pytest.fixture
def reviewing(draft, personas, at):
    """The draft filed on Mar 2, 2026, found complete on Mar 6 and every plan-contents item reviewed: ready for a
    decision (a test file may define its own ``reviewing``, which then stands instead)."""
    from stormwater.permits import services as sv

    at(date(2026, 3, 2))
    complete_package(draft, personas["staff"])
    sv.permit_file(application=draft, acting_user=personas["owner"])
    at(date(2026, 3, 6))
    sv.permit_determine_complete(application=draft, acting_user=personas["staff"])
    review_every_item(draft, personas["staff"])
    return draft


def complete_package(app, user, *, skip=()):
    """Upload every document item, confirm the paper copies and record the fees paid at the counter (except ``skip``):
    what filing needs (issue 30, § 380-10 B(1), G(1))."""
    from stormwater.permits.checklist import ITEMS
    from stormwater.permits.services import checklist_confirm, permit_document_upload

    for item in ITEMS:
        if item.key in skip or app.checklist.get(key=item.key).done:
            continue
        if item.by_upload:
            permit_document_upload(application=app, upload=pdf_upload(f"{item.key}.pdf"), tag=item.key,
                                   acting_user=user)
        elif item.key == "fees":
            pay_fees(app, user)
        else:
            checklist_confirm(application=app, key=item.key, acting_user=user, note="test")


def review_every_item(app, user):
    """The reviewer's workbench: every plan-contents item found provided, so an approval may pass its gate
    (issue 30, ``permits.approval.approval_check``)."""
    from stormwater.workbench import catalog
    from stormwater.workbench.services import item_findings_record

    item_findings_record(application=app, acting_user=user,
                         findings=[{"para": e.para, "finding": "provided"} for e in catalog.ITEMS])


def pay_fees(app, user, *, receipt="R-TEST"):
    """The application fees recorded as paid at the DPW counter (§ 380-10 B(1)(e), G(1)), today."""
    from django.utils import timezone

    from stormwater.permits.services import permit_fees_paid

    permit_fees_paid(application=app, paid_on=timezone.localdate(), receipt=receipt, acting_user=user)
