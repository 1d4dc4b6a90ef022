"""Issue 19's "done when", in a real browser: a reviewer pins three comments on a plan PDF (pdf.js) and
they appear in the review letter with their sheet references (desktop and 390 px, axe-core on every shot)."""
from datetime import date
from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "commercial-5-acre.yaml"


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def _reviewed_case(personas, town):
    import sys
    from decimal import Decimal

    from django.core.files.uploadedfile import SimpleUploadedFile

    from stormwater.parcels.models import Owner
    from stormwater.permits import services as sv
    from stormwater.review.services import review_run
    from stormwater.review.sheets import plan_sheets_upload
    from stormwater.rules.applicability import determine

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "review"))
    from review_fixtures import plan_set_pdf

    owner = Owner.objects.get(user=personas["owner"])
    app = sv.permit_application_start(
        acting_user=personas["owner"], owner=owner, owner_name=owner.name, owner_address=owner.mailing_address,
        site_address="1 Elm St", parcels=[town["house"]], description="Retail pad with parking",
        disturbance_sqft=Decimal(217800), determination=determine(disturbance_sqft=Decimal(217800), on=date(2026, 3, 2)),
        wetlands_jurisdiction=True)
    review = review_run(input_text=EXAMPLE.read_text(), input_name=EXAMPLE.name, case_number=app.case.number,
                        acting_user=personas["staff"])
    plan_sheets_upload(case=app.case, upload=SimpleUploadedFile("plans.pdf", plan_set_pdf(), content_type="application/pdf"),
                       acting_user=personas["staff"])
    return app, review


def _rendered(page, n):
    page.locator(f'#sheets[data-rendered="{n}"]').wait_for()


COMMENTS = [
    (1, 0.30, 0.35, "C-1", "Standard 2", "Label the 100-year ponding limit of BASIN-1 on the site plan."),
    (2, 0.55, 0.60, "C-2", "Standard 3", "Show test pits TP-3 and TP-4 under TRENCH-1 with the groundwater elevation."),
    (3, 0.70, 0.20, "C-3", "Standard 4", "Detail the oil/grit separator SEP-1 with its sump depth."),
]


def test_a_reviewer_pins_three_comments_and_they_appear_in_the_letter(page, live_server, personas, town, shot, login):
    app, review = _reviewed_case(personas, town)
    page.set_viewport_size({"width": 1366, "height": 900})
    login("staff")
    page.goto(f"{live_server.url}/reviews/{review.pk}/")
    page.get_by_role("link", name="Plan sheets and comments").click()
    _rendered(page, 3)
    shot("sheets-01-plan-set")
    for sheet, x, y, label, std, text in COMMENTS:
        canvas = page.locator(f"#sheet-{sheet} canvas")
        box = canvas.bounding_box()
        canvas.click(position={"x": box["width"] * x, "y": box["height"] * y})
        assert page.get_by_label("Sheet", exact=True).input_value() == str(sheet)
        page.get_by_label("Sheet number on the drawing (e.g. C-4)").fill(label)
        concerns = page.get_by_label("Concerns")
        option = concerns.locator("option", has_text=std).first.get_attribute("value")
        concerns.select_option(option)
        page.get_by_label("Comment", exact=True).fill(text)
        page.get_by_role("button", name="Pin the comment").click()
        page.get_by_text(f"Comment {COMMENTS.index((sheet, x, y, label, std, text)) + 1} pinned to sheet {sheet}.").wait_for()
        _rendered(page, 3)
    assert page.locator(".sheet-pin").count() == 3
    pin = page.locator(".sheet-pin").nth(1)
    assert pin.inner_text() == "2" and "Standard 3" in pin.get_attribute("aria-label")
    shot("sheets-02-three-comments")
    page.get_by_role("link", name="The review letter").click()
    letter = page.locator("main").inner_text()
    for n, (sheet, _x, _y, label, std, text) in enumerate(COMMENTS, 1):
        assert f"Comment {n}. Sheet {sheet} ({label}), plan set v1" in letter
        assert text in letter and std in letter
    assert "Rainfall data for the site" in letter        # the failing standard is in the letter too
    shot("sheets-03-letter")
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    shot("sheets-04-letter-390")
    page.goto(f"{live_server.url}/reviews/{review.pk}/sheets/")
    _rendered(page, 3)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shot("sheets-05-plan-set-390")
    # The applicant sees the same pins and comments through the permit file.
    login("owner")
    page.goto(f"{live_server.url}/permits/{app.case.number}/plan-sheets/")
    _rendered(page, 3)
    assert page.locator(".sheet-pin").count() == 3 and "Answer to comment 3" in page.locator("main").inner_text()
    shot("sheets-06-applicant-390")
