"""Issue 6 in a real browser: the public questionnaire, an applicant filing, staff reading the clocks."""
import re
from datetime import date, timedelta

import pytest
from menuhelp import menu

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def _rest_of_the_package(number, personas):
    from permits.conftest import complete_package
    from stormwater.permits.models import PermitApplication

    complete_package(PermitApplication.objects.get(case__number=number), personas["staff"])


def test_questionnaire_then_an_applicant_files_and_staff_see_the_clock(page, live_server, personas, town, shot,
                                                                       tmp_path, login):
    page.goto(f"{live_server.url}/permits/applicability/")
    page.get_by_label("Land disturbance").fill("30000")
    page.get_by_label("When the work is to start").fill("2026-05-01")
    page.get_by_role("button", name="Check").click()
    page.locator("#result").wait_for()
    assert "No permit is required" in page.locator("#result").inner_text()
    assert "Low-impact development guidance" in page.locator("#result").inner_text()
    shot("permit-01-applicability")

    login("owner")
    menu(page, "Permits")
    page.get_by_role("link", name="New application").click()
    page.get_by_label("Permittee: the owner of the site").fill("Olivia Owner")
    page.get_by_label("Owner's mailing address").fill("1 Elm St\nLongmeadow, MA 01106")
    page.get_by_label("Site address").fill("1 Elm St")
    page.get_by_label("Assessors' parcel ids").fill("01-01-1")
    page.get_by_label("Project description").fill("Eight-lot subdivision with a new road")
    page.get_by_label("Land disturbance (ft²)").fill("87120")
    page.get_by_role("button", name="Open draft").click()
    page.get_by_role("heading", name=re.compile(r"^SWP-\d{4}-\d{4}")).wait_for()
    pdf = tmp_path / "form.pdf"
    pdf.write_bytes(b"%PDF-1.4\n%%EOF\n")
    page.get_by_label("Upload: Completed application form with the original signatures of all owners").set_input_files(str(pdf))
    page.locator("#checklist form").first.get_by_role("button", name="Upload", exact=True).click()
    page.locator(".messages").get_by_text("form.pdf added to the file").wait_for()
    # Issue 30: before filing, the page lists what is missing and the fee due; filing is refused until the package is
    # complete and the fees are paid (staff take them at the counter).
    before = page.locator("#before-filing").inner_text()
    assert "Stormwater management plan" in before and "The application fees" in before and "not paid" in before
    page.get_by_role("button", name="File the application").click()
    page.get_by_text("The application cannot be filed yet").first.wait_for()
    assert "Draft" in page.locator("#status").inner_text()
    number = page.locator("h1").inner_text().split(" ")[0]
    _rest_of_the_package(number, personas)
    page.goto(f"{live_server.url}/permits/{number}/")  # (not reload: that would send the refused filing again)
    assert "can be filed" in page.locator("#before-filing").inner_text()
    page.get_by_role("button", name="File the application").click()
    page.locator(".messages").get_by_text("Application filed").wait_for()
    assert "Filed: completeness to be determined" in page.locator("#status").inner_text()
    shot("permit-02-filed-applicant")

    number = page.locator("h1").inner_text().split(" ")[0]
    page.get_by_role("button", name="Sign out").click()
    login("staff")
    page.goto(f"{live_server.url}/permits/{number}/")
    page.get_by_label("Incomplete: items due by").fill(str(date.today() + timedelta(days=20)))
    page.locator("form[action$='/incomplete/'] input[name=note]").fill("The O&M plan names no party responsible for maintenance.")
    page.get_by_role("button", name="Determine incomplete").click()
    page.locator(".messages").get_by_text("Determined incomplete").wait_for()
    clocks = page.locator("#clocks").inner_text()
    assert "stopped since" in clocks and "calendar days remain" in clocks
    shot("permit-03-incomplete-staff")
    menu(page, "Permits")
    shot("permit-04-list")
