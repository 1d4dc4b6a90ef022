"""Issue 17's "Done when", the Collector's day in a real browser at a desk and on a phone: find an owner by name,
post a check, print the receipt, close the batch, post a lockbox file, reconcile the deposit with the bank, record
and issue a municipal lien certificate. axe-core on every page shot; nothing wider than the screen."""
import re
from datetime import date

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def billed_town(transactional_db, town, resolution, at):
    from stormwater.utility.services import bill_run_issue, fiscal_year

    at(date(2026, 11, 2))  # Mon Nov 2, 2026, noon in Longmeadow
    label, start, end = fiscal_year(2027)
    bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2026, 9, 10),
                   acting_user=None)
    return town


def _fits(page):
    return page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1")


@pytest.mark.parametrize("width", [1366, 390])
def test_a_collectors_day(page, live_server, billed_town, shot, login, width, tmp_path):
    from stormwater.utility.models import Account

    page.set_viewport_size({"width": width, "height": 900})
    login("collector")
    url = live_server.url
    house = Account.objects.get(parcel=billed_town["house"], unit=None)

    # Find the owner by name: her house and her condominium unit; the house
    page.goto(f"{url}/cashier/")
    page.get_by_label(re.compile("Owner name")).fill("Olivia")
    page.get_by_role("button", name="Find").click()
    page.get_by_role("heading", name="Accounts found").wait_for()
    shot(f"17-window-{width}")
    assert _fits(page)
    page.get_by_role("link", name=house.number).click()
    page.get_by_role("heading", name=re.compile(r"Due today: \$26\.75")).wait_for()

    # Post a check
    page.get_by_label("Amount ($)").fill("26.75")
    page.get_by_label("Tender").select_option("check")
    page.get_by_label("Check number / reference").fill("4417")
    shot(f"17-take-payment-{width}")
    assert _fits(page)
    page.get_by_role("button", name="Post payment").click()
    page.get_by_role("heading", name=re.compile(r"Receipt R-\d+")).wait_for()
    shot(f"17-receipt-{width}")
    assert _fits(page)

    # Print the receipt
    pdf = page.request.get(url + page.get_by_role("link", name="Print the receipt (PDF)").get_attribute("href"))
    assert pdf.ok and pdf.body()[:5] == b"%PDF-" and 'filename="receipt-R-' in pdf.headers["content-disposition"]

    # Close the batch with the counted checks
    page.get_by_role("link", name=re.compile(r"^B-\d+$")).click()
    page.get_by_label("Checks counted ($)").fill("26.75")
    page.get_by_role("button", name="Close batch").click()
    page.get_by_text(re.compile(r"closed: counted \$26\.75\.")).wait_for()
    shot(f"17-batch-{width}")

    # A lockbox file arrives and is posted
    lockbox = tmp_path / "lockbox-1102.csv"
    shops = Account.objects.get(parcel=billed_town["shops"], unit=None)
    lockbox.write_text(f"account,amount,received_on,reference\n{shops.number},1423.36,2026-11-02,L-77\n")
    page.goto(f"{url}/collections/")
    page.get_by_label(re.compile("Lockbox / bank file")).set_input_files(str(lockbox))
    page.get_by_role("button", name="Post file").click()
    page.get_by_text(re.compile(r"Posted 1 payments?, \$1,423\.36")).first.wait_for()

    # Reconcile the deposit: the batch and the file against the bank's figure
    page.goto(f"{url}/cashier/deposits/")
    page.get_by_label(re.compile(r"B-\d+ · collector")).check()
    page.get_by_label(re.compile("lockbox-1102.csv")).check()
    page.get_by_label("Bank deposit amount ($)").fill("1450.11")
    page.get_by_label("Bank reference").fill("DEP-1102")
    page.get_by_role("button", name="Record deposit").click()
    page.get_by_text(re.compile(r"it reconciles \(\$1,450\.11\)")).wait_for()
    shot(f"17-deposits-{width}")
    assert _fits(page)

    # The daily cash report
    page.goto(f"{url}/cashier/daily/")
    page.get_by_text("Total received: $1,450.11").wait_for()
    shot(f"17-daily-{width}")
    assert _fits(page)

    # A closing attorney's request for a municipal lien certificate, issued the same day
    page.goto(f"{url}/cashier/lien-certificates/")
    page.get_by_label("Parcel id").fill("02-01-2")
    page.get_by_label("Requested by (name)").fill("Dana Attorney")
    page.get_by_label(re.compile("As \\(buyer")).fill("closing attorney")
    page.get_by_label(re.compile("Fee paid")).fill("check 881")
    page.get_by_role("button", name="Record the request").click()
    page.get_by_role("heading", name=re.compile(r"Municipal lien certificate MLC-2026-")).wait_for()
    assert "Nov 12, 2026" in page.locator("main").inner_text() or "2026-11-12" in page.locator("main").inner_text()
    page.get_by_role("button", name="Issue").click()
    page.get_by_role("link", name="The certificate (PDF)").wait_for()
    shot(f"17-lien-certificate-{width}")
    assert _fits(page)
    pdf = page.request.get(url + page.get_by_role("link", name="The certificate (PDF)").get_attribute("href"))
    assert pdf.ok and pdf.body()[:5] == b"%PDF-" and 'filename="MLC-2026-' in pdf.headers["content-disposition"]
