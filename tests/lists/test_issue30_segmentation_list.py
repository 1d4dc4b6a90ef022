"""Issue 30: the permit list filters the files flagged as possible segmentation (§ 380-4 A): those awaiting the
Director's finding, and all flagged ones."""
from __future__ import annotations

import csv
import io

import pytest

from stormwater.permits.models import PermitApplication


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def numbers(resp):
    assert resp.status_code == 200
    rows = list(csv.reader(io.StringIO(b"".join(resp.streaming_content).decode())))
    return sorted(r[0] for r in rows[1:])


def test_permit_list_filters_the_segmentation_flag(client_for, personas, town, make_permits):
    waiting, found, plain = make_permits(3)
    PermitApplication.objects.filter(pk__in=[waiting.pk, found.pk]).update(segmentation_flagged=True)
    PermitApplication.objects.filter(pk=found.pk).update(segmentation_finding="one_project")
    c = client_for(personas["director"])
    assert numbers(c.get("/permits/?segmentation=awaiting&export=csv")) == [waiting.case.number]
    assert numbers(c.get("/permits/?segmentation=flagged&export=csv")) == sorted([waiting.case.number,
                                                                                 found.case.number])
    html = c.get("/permits/").content.decode()
    assert "Segmentation (§ 380-4 A)" in html
