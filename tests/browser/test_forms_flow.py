"""Issue 16 "Forms" in a real browser, at 1366 and 390 px: a refused staff form keeps every typed value and
marks the field (error summary, message at the field, aria-invalid), axe 0 violations in the error state;
a double click on a written decision's button issues it once (stormwater/forms.js + web/once.py)."""
from datetime import date

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _session_cookie(settings, tmp_path):
    settings.SESSION_EXPIRE_AT_BROWSER_CLOSE = True
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def under_review(town, resolution, personas, at):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from stormwater.relief import services as sv
    from stormwater.relief.models import CreditType

    at(date(2027, 3, 1))
    policy = sv.credit_policy_load_demo(effective_from=date(2026, 7, 1), acting_user=personas["director"])
    bmp = CreditType.objects.get(policy=policy, code="BMP")
    pdf = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
    app = sv.credit_apply(parcel=town["house"], credit_type=bmp, statement="Rain garden.",
                          acting_user=personas["owner"],
                          uploads=[(t, SimpleUploadedFile(f"{t}.pdf", pdf, content_type="application/pdf"))
                                   for t, _ in bmp.required_documents])
    sv.credit_determine_complete(application=app, acting_user=personas["staff"])
    return app


@pytest.mark.parametrize("width", [1366, 390])
def test_a_refused_decision_keeps_what_was_typed_and_marks_the_field(page, live_server, under_review, login, shot,
                                                                      width):
    page.set_viewport_size({"width": width, "height": 900})
    login("director")
    n = under_review.case.number
    page.goto(f"{live_server.url}/relief/{n}/")
    page.get_by_label("Decision").select_option("grant_part")
    page.get_by_label("Percent of the fee granted").fill("150")
    page.get_by_label("Reasons").fill("Only the rain garden counts.")
    with page.expect_navigation():
        page.get_by_role("button", name="Issue the written decision").click()
    assert page.locator("#error-summary").is_visible()
    assert "less than the full credit" in page.locator("#id_decide_credit-percent_error").inner_text()
    assert page.get_by_label("Percent of the fee granted").get_attribute("aria-invalid") == "true"
    assert page.get_by_label("Percent of the fee granted").input_value() == "150"
    assert page.get_by_label("Reasons").input_value() == "Only the rain garden counts."
    assert page.get_by_label("Decision").input_value() == "grant_part"
    # The form fits the phone (the page's wide tables are the look slice's "no page wider than 390 px").
    box = page.locator("form#decide").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= width
    shot(f"forms-relief-decision-refused-{width}")


def test_a_double_click_issues_the_decision_once(page, live_server, under_review, login):
    login("director")
    n = under_review.case.number
    page.goto(f"{live_server.url}/relief/{n}/")
    page.get_by_label("Decision").select_option("deny")
    page.get_by_label("Reasons").fill("The rain garden is not built.")
    with page.expect_navigation():
        page.get_by_role("button", name="Issue the written decision").dblclick()
    assert "Denied" in page.locator("#status").inner_text()
    assert under_review.case.events.filter(to_status="denied").count() == 1
