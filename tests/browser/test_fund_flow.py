"""Issue 3, enterprise fund and rate setting, in a real browser: Finance enters the FY budget, the
rate model balances it, the Select Board clerk adopts the rate; the reports open."""
import re

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
DEMO_PASSWORD = "stormwater-demo"  # demo_load's users


@pytest.fixture
def demo_town(transactional_db):
    from stormwater.demo import demo_load

    demo_load(parcels=120, issue_run=True)


def test_finance_budgets_the_model_balances_the_clerk_adopts(page, live_server, demo_town, shot, login):
    login("collector", DEMO_PASSWORD)
    page.goto(f"{live_server.url}/fund/2028/")
    for cat, use, desc, amount in (("Direct cost", "D", "Catch basin cleaning and street sweeping", "182000"),
                                   ("Indirect cost", "K", "Collector's office and billing", "24000"),
                                   ("Capital", "E", "Culvert replacement, Bliss Road", "95000"),
                                   ("Reserve", "B", "Operating reserve", "10000")):
        page.get_by_role("link", name="Add a budget line").click()
        page.get_by_label("Category").select_option(label=cat)
        page.get_by_label("Allowed use of the fee").select_option(value=use)
        page.get_by_label("Description").fill(desc)
        page.get_by_label("Amount ($)").fill(amount)
        page.get_by_role("button", name="Save").click()
        page.get_by_text("Budget line added.").wait_for()
    page.get_by_role("link", name="Add other revenue").click()
    page.get_by_label("Kind").select_option(label="Grant")
    page.get_by_label("Source").fill("MassDEP 604(b) water quality grant")
    page.get_by_label("Amount ($)").fill("30000")
    page.get_by_label("Date (awarded or received)").fill("2027-08-15")
    page.get_by_role("button", name="Save").click()
    text = page.locator("main").inner_text()
    assert "$311,000.00" in text and "$281,000.00" in text  # budget; to raise from fees
    shot("fund-01-overview")

    page.goto(f"{live_server.url}/fund/rate-model/")
    page.get_by_label("Fiscal year (FY)").fill("2028")
    page.get_by_label("Expected collection rate (%)").fill("97")
    page.get_by_role("button", name="Solve").click()
    page.get_by_role("heading", name=re.compile(r"FY2028: \$[\d,.]+ per ERU")).wait_for()
    assert "one cent less" in page.locator("main").inner_text()
    shot("fund-02-rate-model")

    page.get_by_role("button", name="Sign out").click()
    login("clerk", DEMO_PASSWORD)
    page.goto(f"{live_server.url}/fund/rate-model/?fiscal_year=2028&collection_rate_percent=97"
              "&credit_allowance_percent=0&flat_ratio=1&base_as_of=2026-12-01&sample_erus=5,20,60,200")
    page.get_by_label("Label").fill("FY2028 stormwater rates")
    page.get_by_label("Effective from").fill("2027-07-01")
    page.get_by_role("button", name="Adopt resolution").click()
    page.get_by_role("heading", name="Rate resolutions").wait_for()
    assert "FY2028 stormwater rates" in page.locator("main").inner_text()
    shot("fund-03-adopted")

    page.goto(f"{live_server.url}/fund/reports/revenue-vs-budget/?fy=2028")
    shot("fund-04-revenue-vs-budget")
    page.goto(f"{live_server.url}/fund/reports/receipts/")
    page.get_by_role("heading", name="Fee receipts by period").wait_for()
    shot("fund-05-receipts")
