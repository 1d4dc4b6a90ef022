"""Issue 10 in a real browser: a reviewer's workbench on a file under review — the glance panel, a
checklist page, two deficiencies raised as one information request, the review summary; and the
pre-application meeting with its LID design checklist (screenshots, axe-core on every page shot)."""
from datetime import date

import pytest
from menuhelp import menu

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

A, B = "380-12 A(3)(c)[6]", "380-12 A(3)(g)[9]"


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def _file_under_review(personas, town):
    from decimal import Decimal

    from permits.conftest import complete_package
    from stormwater.parcels.models import Owner
    from stormwater.permits import services as sv
    from stormwater.rules.applicability import determine
    from stormwater.workbench import services as wb

    owner = Owner.objects.get(user=personas["owner"])
    app = sv.permit_application_start(
        acting_user=personas["owner"], owner=owner, owner_name=owner.name, owner_address=owner.mailing_address,
        site_address="1 Elm St", parcels=[town["house"]], description="Eight-lot subdivision with a new road",
        disturbance_sqft=Decimal(87120), determination=determine(disturbance_sqft=Decimal(87120), on=date(2026, 3, 2)),
        wetlands_jurisdiction=True)
    complete_package(app, personas["staff"])
    sv.permit_file(application=app, acting_user=personas["owner"])
    sv.permit_determine_complete(application=app, acting_user=personas["staff"])
    swmp = app.case.documents.get(tag="swmp")
    wb.item_findings_record(application=app, acting_user=personas["staff"], findings=[
        {"para": "380-12 A(3)(a)", "finding": "provided", "document": swmp, "page": "1"},
        {"para": "380-12 A(3)(b)", "finding": "provided", "document": swmp, "page": "C-0"},
        {"para": "380-12 A(3)(c)[5]", "finding": "not_applicable", "reason": "no FEMA flood zone"},
        {"para": A, "finding": "deficient", "comment": "no groundwater elevation at basin 2"}])
    return app


def test_a_reviewer_raises_two_deficiencies_and_reads_the_summary(page, live_server, personas, town, shot, login):
    app = _file_under_review(personas, town)
    n = app.case.number
    login("staff")
    page.goto(f"{live_server.url}/permits/{n}/workbench/swmp/")
    # Each section of the checklist is its own form (issue 16); what is typed is kept in the browser until recorded.
    page.get_by_label("finding § 380-12 A(3)(g)[10]").select_option("provided")
    page.get_by_label("page § 380-12 A(3)(g)[10]").fill("D-4")
    page.reload()  # a draft survives a reload (autosave in the browser)
    assert page.get_by_label("page § 380-12 A(3)(g)[10]").input_value() == "D-4"
    page.get_by_label(f"finding § {B}").select_option("not_provided")
    section = page.locator("section", has=page.get_by_label(f"finding § {B}"))  # g[9] and g[10]: one section
    with page.expect_navigation():
        section.get_by_role("button", name="Record the findings chosen").click()
    page.get_by_text("Findings recorded.").wait_for()
    assert page.get_by_label("page § 380-12 A(3)(g)[10]").input_value() == ""  # recorded: the draft is gone
    shot("workbench-01-checklist")
    page.goto(f"{live_server.url}/permits/{n}/workbench/")
    assert page.locator("#g-open").inner_text().startswith("2")
    shot("workbench-02-glance")
    page.get_by_label(f"raise § {A}").check()
    page.get_by_label(f"raise § {B}").check()
    page.get_by_role("button", name="Raise the chosen items as one information request").click()
    page.get_by_text("Information request sent").wait_for()
    assert page.locator("#g-requests").inner_text().startswith("1")
    assert "stopped" in page.locator("#g-clock").inner_text()
    shot("workbench-03-requested")
    page.goto(f"{live_server.url}/permits/{n}/workbench/summary/")
    text = page.locator("main").inner_text()
    assert "§ 380-12 A(3)(g)[16]" in text and "§ 380-11 B(1) Std 10" in text and "Requested" in text
    shot("workbench-04-summary")


def test_staff_hold_a_pre_application_meeting(page, live_server, personas, shot, login):
    login("staff")
    menu(page, "Pre-application")
    page.get_by_label("Applicant name").fill("Olivia Owner")
    page.get_by_label("Site address").fill("1 Elm St")
    page.get_by_label("Scheduled at").fill("2026-02-03T10:00")
    page.get_by_role("button", name="Schedule").click()
    page.get_by_text("Pre-application meeting scheduled.").wait_for()
    page.get_by_label("Name:", exact=True).fill("Pat Planner")
    page.get_by_label("Board, office or firm").fill("Planning Board")
    page.get_by_label("Another Town board or officer").check()
    page.get_by_role("button", name="Add the attendee").click()
    page.get_by_text("Attendee added.").wait_for()
    page.get_by_label("answer § 380-11 B(4)(b)[1]").select_option("incorporated")
    page.get_by_label("answer § 380-11 B(4)(b)[5]").select_option("not_feasible")
    page.get_by_label("note § 380-11 B(4)(b)[5]").fill("road grade fixed by the subdivision rules")
    page.get_by_role("button", name="Save the checklist").click()
    page.get_by_text("LID design checklist saved.").wait_for()
    shot("workbench-05-pre-application")


def test_a_refused_checklist_section_marks_the_field_and_keeps_what_was_typed(page, live_server, personas, town,
                                                                                shot, login):
    """Issue 16 "Forms" in its error state (axe included): "not applicable" without the reason, recorded."""
    app = _file_under_review(personas, town)
    login("staff")
    page.goto(f"{live_server.url}/permits/{app.case.number}/workbench/swmp/")
    p = "380-12 A(3)(g)[10]"
    page.get_by_label(f"finding § {p}").select_option("not_applicable")
    page.get_by_label(f"page § {p}").fill("D-4")
    section = page.locator("section", has=page.get_by_label(f"finding § {p}"))
    with page.expect_navigation():
        section.get_by_role("button", name="Record the findings chosen").click()
    page.locator("#error-summary").get_by_role("link").click()
    assert page.evaluate("document.activeElement.name") == f"reason-{p}"
    assert page.get_by_label(f"page § {p}").input_value() == "D-4"
    assert page.get_by_label(f"finding § {p}").input_value() == "not_applicable"
    shot("workbench-checklist-refused")
