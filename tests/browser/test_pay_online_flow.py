"""Issue 25's "Done when", paying online as shipped, on a phone (390 px): the town has no processor configured, so
the built-in TEST payment page takes the payment. A resident opens her bill, confirms the amount on the Town's page,
pays on the TEST page with the test card, comes back through the signed return and sees "Paid online, pending
settlement"; the Collector downloads the TEST processor's settlement file and posts it as the processor's daily
file; the bill is then "Paid". axe-core on every page shot; nothing wider than the screen."""
import re
from datetime import date

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def billed_house(transactional_db, town, resolution, at, town_toml):
    from stormwater.utility.models import Bill
    from stormwater.utility.services import bill_run_issue, fiscal_year

    town_toml()  # as shipped: no payment processor configured
    at(date(2027, 3, 15))  # both installments issued (Sep 10 and Mar 10): the whole bill is due now
    label, start, end = fiscal_year(2027)
    bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2026, 9, 10),
                   acting_user=None)
    return Bill.objects.get(parcel=town["house"])


def _fits(page):
    return page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1")


def test_a_resident_pays_on_the_test_page_and_the_collector_posts_the_settlement(
        page, live_server, billed_house, shot, login, tmp_path):
    bill, url = billed_house, live_server.url
    page.set_viewport_size({"width": 390, "height": 844})
    login("owner")
    page.goto(f"{url}/bills/{bill.number}/")
    badge = page.locator("#bill-standing .badge")
    assert badge.inner_text() == "Unpaid"
    page.get_by_role("link", name=re.compile(r"^Pay \$[\d,.]+ online$")).click()

    # the Town's confirmation: amount, account, what happens
    page.get_by_role("heading", name=re.compile("Confirm your online payment")).wait_for()
    main = page.locator("main").inner_text()
    assert "TEST" in main and bill.account.number in main and "pending settlement" in main
    amount = page.locator("dd.fee").inner_text()
    shot("25-pay-confirm-390")
    assert _fits(page)
    page.get_by_role("button", name="Continue to the payment page").click()

    # the TEST processor's page: a real card number is refused, the test card pays
    page.get_by_role("heading", name=re.compile("TEST page")).wait_for()
    page.get_by_label("Card number (TEST)").fill("4242 4242 4242 4242")
    shot("25-pay-test-page-390")
    assert _fits(page)
    page.get_by_role("button", name=f"Pay {amount} (TEST)").click()

    # back on the bill through the signed return: paid online, pending settlement (the ledger has not moved)
    page.wait_for_url(f"{url}/bills/{bill.number}/")
    assert badge.inner_text() == "Paid online, pending settlement"
    assert page.get_by_text(re.compile(r"Paid online \(TEST: no money moved\)")).count() == 1
    assert page.get_by_role("link", name=re.compile(r"^Pay .* online$")).count() == 0
    shot("25-pay-pending-390")
    assert _fits(page)

    # the Collector posts the TEST processor's settlement file
    login("collector")
    page.goto(f"{url}/collections/")
    with page.expect_download() as dl:
        page.get_by_role("link", name="Download the TEST processor's settlement file").click()
    settlement = tmp_path / "settlement.csv"
    dl.value.save_as(settlement)
    page.get_by_label(re.compile("Lockbox / bank file")).set_input_files(str(settlement))
    page.get_by_label("Kind of file").select_option("processor")
    page.get_by_role("button", name="Post file").click()
    page.get_by_text(re.compile(rf"Posted 1 payments?, {re.escape(amount)}")).first.wait_for()
    shot("25-pay-settlement-posted-390")

    page.goto(f"{url}/bills/{bill.number}/")
    assert badge.inner_text() == "Paid"
    assert "Nothing is owed on this bill" in page.locator("#bill-standing").inner_text()
