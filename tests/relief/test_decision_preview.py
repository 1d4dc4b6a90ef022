"""Issue 16 "Preview, confirm, undo": a written decision can be previewed as the PDF it will be — marked as a
preview — before it is issued; the preview changes nothing (no status, no document, no audit row, no file)."""
import re
import subprocess

from stormwater.audit.models import AuditEvent
from stormwater.cases.models import CaseDocument

from .test_decision_forms import under_review  # noqa: F401  (the fixture)


def _text(pdf: bytes) -> str:
    assert pdf.startswith(b"%PDF-")
    out = subprocess.run(["pdftotext", "-layout", "-", "-"], input=pdf, capture_output=True, check=True)
    return re.sub(r"\s+", " ", out.stdout.decode())


def test_the_credit_decision_previews_as_its_pdf_and_nothing_is_issued(client_for, personas, under_review,
                                                                       settings):  # noqa: F811
    n = under_review.case.number
    d = client_for(personas["director"])
    page = d.get(f"/relief/{n}/").content.decode()
    assert f'formaction="/relief/{n}/preview/decide_credit/"' in page
    docs, audits = CaseDocument.objects.count(), AuditEvent.objects.count()
    files = sorted(p.name for p in settings.MEDIA_ROOT.rglob("*") if p.is_file()) if settings.MEDIA_ROOT.exists() else []
    r = d.post(f"/relief/{n}/preview/decide_credit/", {"decision": "grant_part", "percent": "15",
                                                        "reasons": "Only the rain garden counts."})
    assert r.status_code == 200 and r["Content-Type"] == "application/pdf"
    text = _text(b"".join(r.streaming_content) if r.streaming else r.content)
    assert "PREVIEW" in text and "GRANTED IN PART" in text and "Only the rain garden counts." in text
    under_review.refresh_from_db()
    assert under_review.case.status == "under_review" and under_review.decision == ""
    assert CaseDocument.objects.count() == docs and AuditEvent.objects.count() == audits
    after = sorted(p.name for p in settings.MEDIA_ROOT.rglob("*") if p.is_file()) if settings.MEDIA_ROOT.exists() else []
    assert after == files


def test_a_preview_of_a_refused_decision_shows_the_errors_at_the_fields(client_for, personas,
                                                                        under_review):  # noqa: F811
    n = under_review.case.number
    r = client_for(personas["director"]).post(f"/relief/{n}/preview/decide_credit/",
                                              {"decision": "grant_part", "percent": "150", "reasons": "x"})
    assert r.status_code == 400 and 'id="id_decide_credit-percent_error"' in r.content.decode()
