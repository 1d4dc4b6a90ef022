"""Issue 7's "done when", in a real browser: a reviewer uploads the 5-acre commercial plan and reads
the compliance report with a result per standard."""
from pathlib import Path

import pytest
from menuhelp import menu

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "commercial-5-acre.yaml"


def test_a_reviewer_uploads_the_example_plan_and_reads_the_report(page, live_server, transactional_db, shot):
    from stormwater.accounts.models import User

    User.objects.create_user(username="engineer", password="pw-engineer", role="staff")
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill("engineer")
    page.get_by_label("Password").fill("pw-engineer")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{live_server.url}/")
    menu(page, "Engineering reviews")
    page.get_by_role("link", name="Review a plan").click()
    page.get_by_label("Plan file (JSON or YAML)").set_input_files(str(EXAMPLE))
    shot("review-01-upload")
    page.get_by_role("button", name="Run the review").click()
    page.get_by_role("heading", name="Standards").wait_for()
    text = page.locator("main").inner_text()
    for part in ("Overall: Pass", "Peak discharge, 2-year 24-hour storm, DP1", "Retention volume",
                 "Total phosphorus removal", "Drawdown (time to empty), TRENCH-1", "Not assessable", "provisional"):
        assert part in text, part
    shot("review-02-report")
    with page.expect_download() as dl:
        page.get_by_role("link", name="Plan file as uploaded").click()
    assert Path(dl.value.path()).read_text() == EXAMPLE.read_text()
