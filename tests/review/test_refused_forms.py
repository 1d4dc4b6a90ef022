"""Issue 16 "Forms" (done when: "a refused staff form keeps every typed value and marks the field"): plan review's
row forms (a comment pinned to a sheet, a plan set, attaching the case, the HydroCAD report, the applicant's
resubmission, retiring a BMP table, the SWMM import), refused, answer with their page again (400): nothing
recorded, every value as typed, the refused input marked and described. A file is never sent back: the form says
at the file input to choose it again."""
from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from permits.conftest import _media, draft  # noqa: F401  (fixtures)

from refusedforms import assert_refused
from review_fixtures import TEST_TSS_CSV, plan_set_pdf
from stormwater.cases.models import CaseDocument
from stormwater.review.models import BmpTable, PlanSheetSet, Review, SheetComment
from stormwater.review.services import bmp_table_load, review_run
from stormwater.review.sheets import plan_sheets_upload, sheet_comment_add

AGAIN = "A file is not kept when the form is refused: choose it again."


def _pdf(content, name="plan-set.pdf"):
    return SimpleUploadedFile(name, content, content_type="application/pdf")


@pytest.fixture(scope="module")
def sheets_pdf():
    return plan_set_pdf()


@pytest.fixture
def reviewed(draft, personas, example_text, sheets_pdf):  # noqa: F811
    review = review_run(input_text=example_text, input_name="plan.yaml", case_number=draft.case.number,
                        acting_user=personas["staff"])
    s1 = plan_sheets_upload(case=draft.case, upload=_pdf(sheets_pdf), acting_user=personas["staff"])
    return draft, review, s1


def test_a_comment_on_a_sheet_the_set_has_not_is_refused_at_the_sheet(reviewed, personas, client_for):
    app, review, s1 = reviewed
    PlanSheetSet.objects.filter(pk=s1.pk).update(pages=3)  # a set of three sheets
    url = f"/reviews/{review.pk}/sheets/"
    posted = {"act": "comment", "sheet_set": str(s1.pk), "page": "99", "x": "25", "y": "40", "sheet_label": "C-9",
              "ref": "row:peak_DP1_100", "text": "Show the 100-year ponding limit."}
    r = client_for(personas["staff"]).post(url, posted)
    assert_refused(r, url, posted, "page", hidden={"act": "comment", "sheet_set": s1.pk})
    assert not SheetComment.objects.exists()


def test_a_plan_set_that_is_not_a_pdf_keeps_the_note_and_asks_for_the_file_again(reviewed, personas, client_for):
    app, review, s1 = reviewed
    url = f"/reviews/{review.pk}/sheets/"
    r = client_for(personas["staff"]).post(url, {"act": "upload", "note": "Revision 2 of the grading",
                                                 "file": SimpleUploadedFile("plan.txt", b"just text, no PDF")})
    assert_refused(r, url, {"note": "Revision 2 of the grading"}, "file", hidden={"act": "upload"})
    assert AGAIN in r.content.decode() and PlanSheetSet.objects.count() == 1


def test_attaching_no_such_case_keeps_the_number(personas, example_text, client_for, db):
    review = review_run(input_text=example_text, input_name="plan.yaml", acting_user=personas["staff"])
    url = f"/reviews/{review.pk}/attach-case/"
    r = client_for(personas["staff"]).post(url, {"case_number": "SWP-2099-0009"})
    assert_refused(r, url, {"case_number": "SWP-2099-0009"}, "case_number")
    assert Review.objects.get(pk=review.pk).case is None


def test_a_hydrocad_report_that_is_not_a_pdf_is_refused_at_the_file(reviewed, personas, client_for):
    app, review, s1 = reviewed
    url = f"/reviews/{review.pk}/hydrocad/"
    n = CaseDocument.objects.count()
    r = client_for(personas["staff"]).post(url, {"file": SimpleUploadedFile("x.pdf", b"not a pdf at all")})
    assert_refused(r, url, {}, "file")
    assert "Choose the file again." in r.content.decode() and CaseDocument.objects.count() == n


def test_the_resubmission_missing_an_answer_keeps_the_rest_and_asks_for_the_file_again(reviewed, personas,
                                                                                       client_for):
    app, review, s1 = reviewed
    c1 = sheet_comment_add(sheet_set=s1, page=1, x=0.2, y=0.2, text="A", ref_key="row:ma_std4_wqv", ref_label="WQV",
                           acting_user=personas["staff"])
    c2 = sheet_comment_add(sheet_set=s1, page=2, x=0.5, y=0.5, text="B", ref_key="row:ma_std4_wqv", ref_label="WQV",
                           acting_user=personas["staff"])
    url = f"/permits/{app.case.number}/plan-sheets/"
    posted = {f"answer-{c1.pk}": "Shown on C-2", f"answer-{c2.pk}": "", "note": "Rev. 1 after the first letter"}
    r = client_for(personas["owner"]).post(url, {**posted, "file": _pdf(plan_set_pdf(revision="rev. 1"))})
    assert_refused(r, url, posted, f"answer-{c2.pk}")
    page = r.content.decode()
    assert 'aria-describedby="file_error"' in page and "a file is not kept" in page
    assert PlanSheetSet.objects.count() == 1


def test_retiring_a_table_without_a_reason_is_refused_at_it(personas, client_for, db):
    t = bmp_table_load(name="Test TSS table", source_citation="test", csv_text=TEST_TSS_CSV,
                       acting_user=personas["staff"])
    url = f"/reviews/bmp-tables/{t.pk}/retire/"
    r = client_for(personas["staff"]).post(url, {"reason": "  "})
    assert_refused(r, url, {"reason": "  "}, "reason")
    assert BmpTable.objects.get(pk=t.pk).retired_at is None


def test_a_swmm_model_that_cannot_be_read_keeps_the_title_and_asks_for_the_file_again(personas, client_for, db):
    url = "/reviews/import/swmm/"
    posted = {"title": "Maple Street subdivision", "case_number": "", "disturbance_acres": "2.5"}
    r = client_for(personas["staff"]).post(url, {**posted, "post_file": SimpleUploadedFile("m.inp", b"[GARBAGE]\n")})
    assert_refused(r, url, posted, "post_file")
    assert AGAIN in r.content.decode() and not Review.objects.exists()
