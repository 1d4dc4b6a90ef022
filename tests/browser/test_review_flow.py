"""Issue 7's "done when", in a real browser: a reviewer uploads the 5-acre commercial plan and reads
the compliance report with a result per standard."""
from pathlib import Path

import pytest
from menuhelp import menu

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "commercial-5-acre.yaml"


def _all_plots_loaded(page):
    """The hydrograph plots load lazily: bring each into view, then every image must have drawn."""
    for img in page.locator("main img").all():
        img.scroll_into_view_if_needed()
        # one at a time, until it has loaded or failed (each plot is drawn on request: slow on a busy machine)
        img.evaluate("i => i.complete || new Promise(done => { i.addEventListener('load', done); "
                     "i.addEventListener('error', done); })")
    assert page.evaluate("() => [...document.querySelectorAll('main img')].filter(i => !i.naturalWidth).length") == 0
    # 3 storms × (4 subcatchments + 4 BMPs + 1 design point) hydrographs + 3 × 2 routed BMPs' water levels (issue 31)
    assert page.locator("main img").count() == 3 * 9 + 3 * 2


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
    page.get_by_role("heading", name="Standards, in the order of MassDEP").wait_for()
    text = page.locator("main").inner_text()
    for part in ("Overall: Fail", "Rainfall data for the site", "Peak discharge, 2-year 24-hour storm, DP1", "Retention volume",
                 "Total phosphorus removal", "Drawdown (time to empty), TRENCH-1", "Not assessable", "provisional"):
        assert part in text, part
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        _all_plots_loaded(page)
        assert page.evaluate("document.documentElement.scrollWidth") <= width  # wide tables scroll in their region
        shot(f"review-02-report-{width}")
    with page.expect_download() as dl:
        page.get_by_role("link", name="Plan file as uploaded").click()
    assert Path(dl.value.path()).read_text() == EXAMPLE.read_text()
    # Issue 31: the applicant's HydroCAD figures typed on a phone, then shown beside the review's numbers.
    page.set_viewport_size({"width": 390, "height": 900})
    page.get_by_role("link", name="Enter the applicant's HydroCAD/SWMM figures").click()
    page.get_by_role("heading", name="The applicant's figures for review").wait_for()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.locator("input[name$='-peak_cfs']").first.fill("99")
    shot("review-03-applicant-390")
    page.get_by_role("button", name="Keep the figures and compare").click()
    page.get_by_role("heading", name="The applicant's figures beside the review").wait_for()
    assert "Flagged" in page.locator("#rv-applicant ~ .rv-scroll").first.inner_text()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
