"""Issue 30: ``/reviews/new/`` refused answers 400 with the standard error summary and the refused input marked
(tests/refusedforms.py, as every refused form), what was typed kept; a chosen file cannot be kept, so the form
says at the file input to choose it again."""
from __future__ import annotations

from django.core.files.uploadedfile import SimpleUploadedFile

from refusedforms import assert_refused
from stormwater.review.models import Review

URL = "/reviews/new/"


def test_a_file_that_cannot_be_reviewed_is_marked_and_asked_again(personas, client_for):
    c = client_for(personas["staff"])
    posted = {"title": "Lot 4", "case_number": ""}
    bad = SimpleUploadedFile("plan.yaml", b"schema: longmeadow-swmp/1\nproject: [unclosed\n", content_type="text/yaml")
    r = c.post(URL, {**posted, "plan_file": bad})
    assert_refused(r, URL, posted, "plan_file")
    assert "choose it again" in r.content.decode()
    assert not Review.objects.exists()


def test_a_case_not_found_is_marked_at_the_case_number(personas, client_for, example_text):
    c = client_for(personas["staff"])
    posted = {"title": "Lot 4", "case_number": "SWP-2099-9999", "plan_text": example_text}
    r = c.post(URL, posted)
    assert_refused(r, URL, posted, "case_number")


def test_nothing_given_is_marked_at_the_file(personas, client_for):
    r = client_for(personas["staff"]).post(URL, {"title": "", "case_number": ""})
    assert_refused(r, URL, {}, "plan_file")
