"""Issue 16 "Preview, confirm, undo": the stewardship notice to correct (§ 380-14 E, the legal notice the
Division issues on a site) previews as its PDF, marked as a preview, before it is served; the preview serves
nothing (no notice, no case, no 30-day clock, no e-mail, no document kept). Then the notice is served from the
same form."""
import shutil
import subprocess
from datetime import date

import pytest
from django.core import mail

from stormwater.cases.models import Case, CaseDocument
from stormwater.stewardship.models import MaintenanceNotice


def pdf_text(content: bytes) -> str:
    assert content.startswith(b"%PDF-")
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext (poppler-utils) is not installed")
    out = subprocess.run(["pdftotext", "-raw", "-", "-"], input=content, capture_output=True, check=True).stdout
    return " ".join(out.decode().split())


def test_the_notice_to_correct_previews_then_serves(site, personas, at, client_for, django_capture_on_commit_callbacks):
    at(date(2026, 6, 5))
    n = site.case.number
    d = client_for(personas["director"])
    page = d.get(f"/stewardship/{n}/").content.decode()
    assert f'formaction="/stewardship/{n}/notices/preview/"' in page
    cases, docs = Case.objects.count(), CaseDocument.objects.count()
    form = {"violation": "Outlet of the basin blocked by sediment", "corrective_work": "Remove the sediment", "bmp": ""}
    with django_capture_on_commit_callbacks(execute=True):
        r = d.post(f"/stewardship/{n}/notices/preview/", form)
    assert r.status_code == 200 and r["Content-Type"] == "application/pdf"
    text = pdf_text(r.content)
    assert "PREVIEW — NOT ISSUED" in text and "Notice to correct" in text
    assert "Outlet of the basin blocked by sediment" in text and "by July 6, 2026" in text  # Jul 5 is a Sunday
    assert (MaintenanceNotice.objects.count(), Case.objects.count(), CaseDocument.objects.count()) == (0, cases, docs)
    assert mail.outbox == []
    with django_capture_on_commit_callbacks(execute=True):
        r = d.post(f"/stewardship/{n}/notices/", form, follow=True)
    assert r.status_code == 200 and "Notice to correct served" in r.content.decode()
    notice = MaintenanceNotice.objects.get()
    assert notice.case.documents.get(tag="maintenance_notice") and len(mail.outbox) == 1


@pytest.mark.parametrize("act", ["notices/preview/", "notices/"])
def test_a_notice_without_the_violation_is_refused_keeping_what_was_typed(site, personas, at, client_for, act):
    """Issue 16 "Forms": it used to come back as a flash at the top with both boxes empty."""
    at(date(2026, 6, 5))
    d = client_for(personas["director"])
    r = d.post(f"/stewardship/{site.case.number}/{act}", {"violation": " ", "corrective_work": "Re-seed the berm"})
    html = r.content.decode()
    assert r.status_code == 400 and not MaintenanceNotice.objects.exists()
    assert 'class="error-summary"' in html and 'href="#id_notice-violation"' in html
    assert 'id="id_notice-violation_error"' in html and "State the violation found" in html
    assert "Re-seed the berm</textarea>" in html and '<details open id="serve-notice">' in html
    owner = client_for(personas["owner"])
    assert owner.post(f"/stewardship/{site.case.number}/notices/preview/", {"violation": "x",
                                                                            "corrective_work": "y"}).status_code == 403
