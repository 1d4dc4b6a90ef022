"""Issue 18 "the permit lists the approved plan sheets (title, number, revision, date)": staff no longer type them
all by hand — the Director's decision form fills them from the plans under review (``approved_sheets_proposed``):
the sheet index of the newest review's plan file (``sheets:``), else the newest plan set PDF's bookmarks or title
blocks (``review/sheet_index.py``); the lines stay editable and hand entry stays. Before: the form's field was
empty and nothing read the plan file or the plan set."""
from __future__ import annotations

import html
import re
from datetime import date

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile
from permits.conftest import _media, complete_package, draft, review_every_item  # noqa: F401  (fixtures)

from stormwater.permits import services as sv
from stormwater.permits.models import PermitApplication
from stormwater.permits.selectors import approved_sheets_proposed
from stormwater.review.plan import PlanError, plan_parse
from stormwater.review.services import review_run
from stormwater.review.sheet_index import sheet_index_from_pdf
from stormwater.review.sheets import plan_sheets_upload

from review_fixtures import plan_set_pdf

SHEETS = [{"number": "C-1", "title": "Site plan", "revision": "2", "date": date(2026, 2, 20)},
          {"number": "C-2", "title": "Grading and drainage", "revision": "2", "date": "2026-02-20"},
          {"number": "D-1", "title": "Details"}]


def _pdf(content):
    return SimpleUploadedFile("plan-set.pdf", content, content_type="application/pdf")


def bookmarked_set() -> bytes:
    """A plan set as CAD publishing makes it: one bookmark per sheet (WeasyPrint makes them from the headings), the
    title block with the revision and the date, and a cover page with no sheet number."""
    from weasyprint import HTML

    sheets = [("G-0", "Cover"), ("C-1", "Site plan"), ("C-2", "Grading and drainage")]
    pages = "".join(
        f'<section><h1>{n} - {t.upper()}</h1><p>{t}</p><p class="tb">Sheet {n} · Rev. B · Date: 03/01/2026</p></section>'
        for n, t in sheets[1:])
    cover = '<section><p>Longmeadow Commons — index of drawings</p></section>'
    return HTML(string=f"<style>section {{ page-break-after: always }}</style>{cover}{pages}").write_pdf()


@pytest.fixture
def under_review(draft, personas, at):  # noqa: F811
    at(date(2026, 3, 2))
    complete_package(draft, personas["staff"])
    sv.permit_file(application=draft, acting_user=personas["owner"])
    at(date(2026, 3, 4))
    sv.permit_determine_complete(application=draft, acting_user=personas["staff"])
    return draft


def _textarea(page: str) -> str:
    m = re.search(r'<textarea name="sheets"[^>]*>(.*?)</textarea>', page, re.S)
    return html.unescape(m.group(1)).strip() if m else ""


def test_the_plan_file_sheet_index_fills_the_decision_and_the_permit_lists_it(under_review, personas, client_for,
                                                                              example_data, at):
    app = under_review
    number = app.case.number
    director = client_for(personas["director"])
    page = director.get(f"/permits/{number}/?sheets=proposed").content.decode()
    assert "Neither a plan file with a sheet index nor a plan set PDF" in page and _textarea(page) == ""
    example_data["sheets"] = SHEETS
    review = review_run(input_text=yaml.safe_dump(example_data), input_name="plan.yaml", case_number=number,
                        acting_user=personas["staff"])
    # the page without asking: the field is empty as before (hand entry)
    assert _textarea(director.get(f"/permits/{number}/").content.decode()) == ""
    page = director.get(f"/permits/{number}/?sheets=proposed").content.decode()
    assert f"Approved plan sheets filled from the plan file of review {review.pk} (plan.yaml)" in page
    assert _textarea(page).splitlines() == ["C-1; Site plan; 2; 2026-02-20", "C-2; Grading and drainage; 2; 2026-02-20",
                                            "D-1; Details"]
    # the Director edits one line and records: the permit lists what was recorded
    at(date(2026, 3, 20))
    lines = _textarea(page).replace("D-1; Details", "D-1; Details and sections; 1; 2026-03-01")
    director = client_for(personas["director"])  # a new sign-in: the staff idle timeout ended the other session
    review_every_item(app, personas["staff"])  # the one approval gate (issue 30)
    r = director.post(f"/permits/{number}/decide/", {"kind": "approve", "findings": "Meets the standards.",
                                                    "standards": ["380-11D"], "sheets": lines})
    assert r.status_code == 302, r.content.decode()[:2000]
    app = PermitApplication.objects.get(pk=app.pk)
    assert [(s["number"], s["title"], s["revision"], s["date"]) for s in app.approved_sheets] == [
        ("C-1", "Site plan", "2", "2026-02-20"), ("C-2", "Grading and drainage", "2", "2026-02-20"),
        ("D-1", "Details and sections", "1", "2026-03-01")]
    # the API gives the same proposal to an office system
    out = client_for(personas["staff"]).get(f"/api/permits/{number}/sheets/proposed/").json()
    assert out["sheets"][0] == "C-1; Site plan; 2; 2026-02-20" and out["source"].startswith("the plan file of review")
    assert client_for(personas["owner"]).get(f"/api/permits/{number}/sheets/proposed/").status_code == 403


def test_without_a_sheet_index_the_plan_set_pdf_fills_them(under_review, personas, client_for, example_text):
    app = under_review
    number = app.case.number
    review_run(input_text=example_text, input_name="plan.yaml", case_number=number, acting_user=personas["staff"])
    plan_sheets_upload(case=app.case, upload=_pdf(plan_set_pdf(revision="Rev. 1")), acting_user=personas["owner"])
    p = approved_sheets_proposed(app)
    assert p.source == "plan set v1 (PDF, 3 pages)" and p.lines == [
        "C-1; Site plan; 1", "C-2; Grading and drainage; 1", "C-3; Details; 1"]  # the title blocks' text
    plan_sheets_upload(case=app.case, upload=_pdf(bookmarked_set()), acting_user=personas["owner"])
    p = approved_sheets_proposed(app)  # the newest set, from its bookmarks; the cover has no number: named
    assert p.source == "plan set v2 (PDF, 3 pages)"
    assert p.lines == ["C-1; SITE PLAN; B; 2026-03-01", "C-2; GRADING AND DRAINAGE; B; 2026-03-01"]
    assert p.note == "No sheet number was found on page 1: add it by hand."
    page = client_for(personas["director"]).get(f"/permits/{number}/?sheets=proposed").content.decode()
    assert "filled from plan set v2 (PDF, 3 pages)" in page and "page 1: add it by hand" in page
    assert _textarea(page).startswith("C-1; SITE PLAN; B; 2026-03-01")


def test_a_pdf_pypdf_cannot_read_is_named_not_a_traceback():
    with pytest.raises(ValueError, match="the plan set PDF cannot be read"):
        sheet_index_from_pdf(b"%PDF-1.4\nnot really")
    idx = sheet_index_from_pdf(plan_set_pdf(("C-1 Site plan",)))
    assert [(s.number, s.title, s.revision) for s in idx.sheets] == [("C-1", "Site plan", "")]


@pytest.mark.parametrize("sheets, error", [
    ([{"title": "Site plan"}], "sheets[0].number: required"),
    ([{"number": "C-1"}], "sheets[0].title: required"),
    ([{"number": "C-1", "title": "Site plan", "date": "20 Feb 2026"}], "sheets[0].date: a date YYYY-MM-DD"),
    ([{"number": "C-1", "title": "Site; plan"}], "sheets[0]: no semicolons"),
    ([{"number": "C-1", "title": "Site plan", "scale": "1:40"}], "sheets[0].scale: unknown field"),
    ("C-1 Site plan", "sheets: a list"),
])
def test_the_plan_file_sheet_index_is_checked_by_field(example_data, sheets, error):
    example_data["sheets"] = sheets
    with pytest.raises(PlanError, match=re.escape(error)):
        plan_parse(yaml.safe_dump(example_data), name="plan.yaml")
