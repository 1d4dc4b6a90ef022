"""Issue 19 "Plan sheets with the review on them": the plan set PDF of a permit case, comments pinned to
a sheet and a point and tied to a checklist item or a standard, carried into the review letter with
their sheet references; the applicant answers each comment on resubmission; a revised set keeps the
history. (The browser part -- pdf.js, clicking to pin -- is tests/browser/test_plan_sheets_flow.py.)"""
from __future__ import annotations

import subprocess

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from permits.conftest import _media, draft  # noqa: F401  (fixtures)

from stormwater.audit.models import AuditEvent
from stormwater.review.models import CommentResponse, PlanSheetSet, Review, SheetComment
from stormwater.review.services import review_run
from stormwater.review.sheets import (SheetError, plan_sheets_resubmit, plan_sheets_upload,
                                      sheet_comment_add, sheet_comment_resolve)

from review_fixtures import plan_set_pdf


@pytest.fixture(scope="module")
def sheets_pdf():
    return plan_set_pdf()


def _pdf(content, name="plan-set.pdf"):
    return SimpleUploadedFile(name, content, content_type="application/pdf")


@pytest.fixture
def reviewed(draft, personas, example_text):  # noqa: F811
    review = review_run(input_text=example_text, input_name="plan.yaml", case_number=draft.case.number,
                        acting_user=personas["staff"])
    return draft, review


def test_comments_are_numbered_pinned_and_tied_and_the_letter_lists_them(reviewed, personas, sheets_pdf, client_for):
    app, review = reviewed
    s1 = plan_sheets_upload(case=app.case, upload=_pdf(sheets_pdf), acting_user=personas["staff"])
    assert s1.version == 1 and s1.document.tag == "plan_set" and s1.document.content_type == "application/pdf"
    c1 = sheet_comment_add(sheet_set=s1, page=1, x=0.25, y=0.4, text="Show the 100-year ponding limit.",
                           ref_key="row:peak_DP1_100", ref_label="Standard 2 — Peak discharge, 100-year",
                           sheet_label="C-1", review=review, acting_user=personas["staff"])
    c2 = sheet_comment_add(sheet_set=s1, page=2, x=0.6, y=0.55, text="Give the trench's test pit logs.",
                           ref_key="row:ma_std3_soil_analysis", ref_label="Standard 3 — Soil analysis",
                           sheet_label="C-2", review=review, acting_user=personas["staff"])
    assert (c1.number, c2.number) == (1, 2)
    with pytest.raises(SheetError, match="^point:"):
        sheet_comment_add(sheet_set=s1, page=0, x=0.5, y=0.5, text="x", ref_key="k", ref_label="k",
                          acting_user=personas["staff"])
    with pytest.raises(SheetError, match="^ref:"):
        sheet_comment_add(sheet_set=s1, page=1, x=0.5, y=0.5, text="x", ref_key="", ref_label="",
                          acting_user=personas["staff"])
    assert AuditEvent.objects.filter(action="sheet_comment.add").count() == 2
    c = client_for(personas["staff"])
    letter = c.get(f"/reviews/{review.pk}/letter/").content.decode()
    assert "Comment 1. Sheet 1 (C-1), plan set v1" in letter and "Standard 2 — Peak discharge, 100-year" in letter
    assert "Comment 2. Sheet 2 (C-2), plan set v1" in letter and "Rainfall data for the site" in letter
    pdf = c.get(f"/reviews/{review.pk}/letter.pdf")
    text = " ".join(subprocess.run(["pdftotext", "-", "-"], input=pdf.content, capture_output=True,
                                   check=True).stdout.decode().split())
    assert "Comment 1. Sheet 1 (C-1), plan set v1" in text and "Give the trench's test pit logs." in text
    page = c.get(f"/reviews/{review.pk}/sheets/").content.decode()
    assert 'data-pdf="/reviews/' in page and '"number": 2' in page and "review/sheets.mjs" in page
    got = c.get(f"/reviews/{review.pk}/sheets/{s1.pk}.pdf")
    assert got.status_code == 200 and b"".join(got.streaming_content)[:5] == b"%PDF-"


def test_the_applicant_answers_every_open_comment_with_the_revised_set_and_history_stays(
        reviewed, personas, sheets_pdf, client_for):
    app, review = reviewed
    s1 = plan_sheets_upload(case=app.case, upload=_pdf(sheets_pdf), acting_user=personas["staff"])
    c1 = sheet_comment_add(sheet_set=s1, page=1, x=0.2, y=0.2, text="A", ref_key="row:ma_std4_wqv", ref_label="WQV",
                           acting_user=personas["staff"])
    c2 = sheet_comment_add(sheet_set=s1, page=3, x=0.8, y=0.9, text="B", ref_key="item:380-12 A(2)",
                           ref_label="§ 380-12 A(2)", acting_user=personas["staff"])
    revised = plan_set_pdf(revision="rev. 1")
    with pytest.raises(SheetError, match="^answers:"):
        plan_sheets_resubmit(case=app.case, upload=_pdf(revised), answers={c1.pk: "done"}, acting_user=personas["owner"])
    assert PlanSheetSet.objects.filter(case=app.case).count() == 1          # nothing half-filed
    owner = client_for(personas["owner"])
    page = owner.get(f"/permits/{app.case.number}/plan-sheets/")
    assert page.status_code == 200 and "Answer to comment 2" in page.content.decode()
    r = owner.post(f"/permits/{app.case.number}/plan-sheets/", {"file": _pdf(revised), f"answer-{c1.pk}": "Shown on C-2",
                                                                 f"answer-{c2.pk}": ""})
    assert r.status_code == 400 and "Answer comment 2." in r.content.decode()
    r = owner.post(f"/permits/{app.case.number}/plan-sheets/", {"file": _pdf(revised), f"answer-{c1.pk}": "Shown on C-2",
                                                                 f"answer-{c2.pk}": "Stamped."})
    assert r.status_code == 302
    s2 = PlanSheetSet.objects.get(case=app.case, version=2)
    assert [x.text for x in CommentResponse.objects.filter(sheet_set=s2).order_by("comment__number")] == ["Shown on C-2", "Stamped."]
    sheet_comment_resolve(comment=c1, note="accepted", acting_user=personas["staff"])
    # A later review of the same case sees the whole history: comments stay on the set they were pinned on.
    later = review_run(input_text=Review.objects.get(pk=review.pk).input_text, input_name="v2.yaml",
                       case_number=app.case.number, acting_user=personas["staff"])
    letter = client_for(personas["staff"]).get(f"/reviews/{later.pk}/letter/").content.decode()
    assert "Comment 1. Sheet 1, plan set v1" in letter and "Applicant's answer (plan set v2" in letter
    assert "Resolved" in letter and "Stamped." in letter
    assert SheetComment.objects.get(pk=c2.pk).resolved_at is None
    # Someone else's file: 404; a reviewer cannot file the applicant's answers for them unless staff.
    assert client_for(personas["outsider"]).get(f"/permits/{app.case.number}/plan-sheets/").status_code == 404
    with pytest.raises(ValueError):
        CommentResponse.objects.first().delete()      # append-only


def test_a_review_without_a_case_is_attached_before_sheets_and_the_hydrocad_report(
        draft, personas, example_text, sheets_pdf, client_for):  # noqa: F811
    c = client_for(personas["staff"])
    review = review_run(input_text=example_text, input_name="plan.yaml", acting_user=personas["staff"])
    assert "Attach this review to its case" in c.get(f"/reviews/{review.pk}/sheets/").content.decode()
    r = c.post(f"/reviews/{review.pk}/hydrocad/", {"file": _pdf(sheets_pdf, "hydrocad.pdf")}, follow=True)
    assert "attach the review to a permit case first" in r.content.decode()
    c.post(f"/reviews/{review.pk}/attach-case/", {"case_number": draft.case.number})
    review.refresh_from_db()
    assert review.case == draft.case
    c.post(f"/reviews/{review.pk}/hydrocad/", {"file": _pdf(sheets_pdf, "hydrocad.pdf")})
    doc = draft.case.documents.get(tag="hydrocad_report")
    assert doc.content_type == "application/pdf"
    assert "HydroCAD report:" in c.get(f"/reviews/{review.pk}/").content.decode()
    r = c.post(f"/reviews/{review.pk}/hydrocad/", {"file": SimpleUploadedFile("x.pdf", b"not a pdf at all")}, follow=True)
    # Refused: the review's page again (400), the error at the file input (issue 16 "Forms").
    assert r.status_code == 400 and draft.case.documents.filter(tag="hydrocad_report").count() == 1


@pytest.mark.parametrize("comment", ["abc", "¹", "99999999999999999999999", ""])
def test_resolving_an_odd_comment_number_is_refused_by_name_not_a_500(reviewed, personas, client_for, comment):
    """Issue 27: the resolve form's comment id was read raw (``pk=request.POST.get("comment")``): ``abc`` → 500."""
    _app, review = reviewed
    r = client_for(personas["staff"]).post(f"/reviews/{review.pk}/sheets/", {"act": "resolve", "comment": comment,
                                                                             "note": "done"})
    assert r.status_code in (200, 404), r.status_code
    if r.status_code == 200:
        assert "comment:" in r.content.decode()
