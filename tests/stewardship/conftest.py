"""Fixtures for stewardship: a frozen clock, PDF uploads, a site with an owner and an operator."""
from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

PDF_BYTES = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
# The UKY campus MS4 inventory sample in the steering repository's shared folder (../shared, relative to this
# repository); tests that read it are skipped when it is not present.
UKY = Path(__file__).resolve().parents[2] / ".." / "shared" / "reference" / "inventory" / "uky-campus-ms4"


# The sample lies in Lexington, Kentucky: a test importing it sets the town's extent there (town_toml(**UKY_EXTENT)),
# as every geometry imported must fall inside the town (issue 26, gis.overlay.check_inside_town).
UKY_EXTENT = {"town_extent_west": -84.52, "town_extent_south": 38.0, "town_extent_east": -84.49,
              "town_extent_north": 38.05, "town_extent_margin_miles": 1.0}


def need_uky() -> str:
    if not UKY.is_dir():
        pytest.skip(f"reference data not present at {UKY}")
    return str(UKY)


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"


def pdf_upload(name="doc.pdf", content=PDF_BYTES):
    return SimpleUploadedFile(name, content, content_type="application/pdf")


ALL_ITEMS = None


def all_items():
    from stormwater.stewardship.contents import OM_ITEMS

    return {i.key: f"§{n + 1}" for n, i in enumerate(OM_ITEMS)}


@pytest.fixture
def site(personas, at):
    """A site (no permit) owned by the owner persona, with an operator; opened 2026-05-01."""
    from stormwater.stewardship import services as sv

    at(date(2026, 5, 1))
    s = sv.site_open(name="Elm Court basin", address="1 Elm St", owner_user=personas["owner"],
                     acting_user=personas["staff"])
    sv.party_add(site=s, role="owner", name="Olivia Owner", email="olivia@example.org", since=date(2026, 5, 1),
                 user=personas["owner"], acting_user=personas["staff"])
    sv.party_add(site=s, role="operator", name="Basin Care LLC", email="ops@basincare.example", since=date(2026, 5, 1),
                 acting_user=personas["staff"])
    sv.party_add(site=s, role="financial", name="Olivia Owner", since=date(2026, 5, 1), acting_user=personas["staff"])
    return s


@pytest.fixture
def recorded(site, personas, at):
    """Final O&M plan recorded Friday 2026-05-15 (Book 25000 Page 100)."""
    from stormwater.stewardship import services as sv

    at(date(2026, 5, 15))
    plan = sv.om_plan_submit(site=site, items=all_items(), final=True, upload=pdf_upload("om.pdf"),
                             acting_user=personas["owner"])
    return sv.om_plan_record(plan=plan, recorded_on=date(2026, 5, 15), book="25000", page="100",
                             proof_upload=pdf_upload("recording.pdf"), acting_user=personas["staff"])
