"""Issue 2's "done when", in a real browser: log in as staff, find a nonresidential parcel, see why its
fee is what it is, issue a bill run, open a PDF bill."""
import re

import pytest
from menuhelp import menu

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
DEMO_PASSWORD = "stormwater-demo"  # demo_load's users


@pytest.fixture
def demo_town(transactional_db):
    from stormwater.demo import demo_load

    demo_load(parcels=120, issue_run=False)


def test_staff_find_a_parcel_see_why_issue_a_run_open_a_pdf(page, live_server, demo_town, shot, login, run_worker):
    login("staff", DEMO_PASSWORD)
    shot("01-home")
    page.get_by_label("Find a parcel").fill("Longmeadow Shops")
    page.get_by_role("button", name="Search").click()
    shot("02-search")
    page.get_by_role("link", name=re.compile(r"^\d\d-\d\d-\d+$")).first.click()
    page.get_by_role("heading", name="Why the fee is what it is").wait_for()
    text = page.locator("main").inner_text()
    assert "ERUs 1–10" in text and "× 0.9" in text and "Nonresidential property" in text and "demo values" in text
    shot("03-parcel")

    menu(page, "Bill runs")
    page.get_by_role("link", name="Prepare a bill run").click()
    page.get_by_label("Fiscal year (FY)").fill("2027")
    page.get_by_label("Issue date").fill("2026-09-15")
    page.get_by_role("button", name="Prepare the proof").click()
    page.get_by_role("heading", name=re.compile("Bill run FY2027")).wait_for()
    # The proof is prepared by a background job (issue 15): the worker runs it, the page offers the result.
    page.locator("section.job").get_by_text("Waiting for a worker").first.wait_for()
    run_worker()
    page.get_by_role("link", name="The preparation has finished: show the result").click()
    page.get_by_role("heading", name="Proof: bills by class and ERU band").wait_for()
    # Staff prepare the proof (issue 16); a Collector approves it (tests/browser/test_bill_run_flow.py).
    assert "Not billed: needs staff" in page.locator("main").inner_text()
    assert "This is a proof" in page.locator("main").inner_text()
    shot("04-run")
    page.get_by_role("link", name=re.compile(r"^FY2027-")).first.click()
    page.get_by_role("heading", name=re.compile("^Bill FY2027-")).wait_for()
    shot("05-bill")
    pdf_url = page.get_by_role("link", name="Open PDF").get_attribute("href")
    resp = page.request.get(f"{live_server.url}{pdf_url}")
    assert resp.status == 200 and resp.body()[:5] == b"%PDF-"


def test_an_owner_sees_their_own_bill_only(page, live_server, demo_town, shot, login):
    from datetime import date

    from stormwater.utility.services import bill_run_issue, fiscal_year

    label, start, end = fiscal_year(2027)
    bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2026, 9, 15),
                   acting_user=None)
    login("owner", DEMO_PASSWORD)
    text = page.locator("main").inner_text()
    assert "Your parcels" in text and "Your bills" in text
    shot("06-owner-home")
    menu(page, "Parcels")
    page.wait_for_url(re.compile(r"/parcels/"))
    page.locator("tbody tr").first.wait_for()
    rows = page.locator("tbody tr").count()
    assert rows == 2
