"""Issue 16 "one list mechanism", in a real browser at 1366 px and at 390 px: search, filter, sort by a header
(aria-sort), page, download exactly what is shown (the same filters and order, every matching row), the query in
the URL; on a phone the table stacks inside the page (never wider than the screen) and "Sort by" sorts; axe-core
finds nothing on each page."""
import csv
import io
import re
from datetime import date

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
DEMO_PASSWORD = "stormwater-demo"


@pytest.fixture
def demo_town(transactional_db, settings, tmp_path):
    from stormwater.demo import demo_load
    from stormwater.receivables.services import payment_post
    from stormwater.utility.models import Bill

    settings.MEDIA_ROOT = tmp_path / "media"
    demo_load(parcels=160)
    # Some bills paid in full, some in part, on the day after the demo run's issue date.
    for n, b in enumerate(Bill.objects.order_by("number")[:30]):
        payment_post(account=b.account, amount=b.amount if n % 2 else b.amount / 2, received_on=date(2026, 9, 16),
                     acting_user=None)


def _csv(page, link):
    with page.expect_download() as dl:
        link.click()
    return list(csv.reader(io.StringIO(open(dl.value.path(), encoding="utf-8").read())))


def _count(page) -> int:
    return int(re.match(r"([\d,]+) ", page.locator("table.list caption").inner_text()).group(1).replace(",", ""))


def _fits(page, width):
    sw = page.evaluate("() => document.documentElement.scrollWidth")
    assert sw <= width, f"{page.url}: the page is {sw} px wide at {width} px"


def test_bills_search_filter_sort_page_and_export_at_a_desk(page, live_server, demo_town, shot, login):
    page.set_viewport_size({"width": 1366, "height": 900})
    login("clerk", DEMO_PASSWORD)
    page.goto(f"{live_server.url}/bills/")
    total = _count(page)
    assert total > 100 and "Page 1 of" in page.locator(".list-pager").inner_text()
    shot("lists-01-bills-1366")
    page.get_by_label("Paid?", exact=True).select_option("partly")
    page.get_by_role("button", name="Show").click()
    page.wait_for_url(re.compile(r"status=partly"))
    assert "q=" not in page.url and "overdue=" not in page.url  # only what was chosen is in the URL
    partly = _count(page)
    assert partly >= 15
    # Sort by the amount column's header, then the other way round.
    page.get_by_role("link", name=re.compile("^Amount")).click()
    page.wait_for_url(re.compile(r"sort=amount"))
    assert page.locator("th[aria-sort]").get_attribute("aria-sort") == "ascending"
    page.get_by_role("link", name=re.compile("^Amount")).click()
    page.wait_for_url(re.compile(r"sort=-amount"))
    assert page.locator("th[aria-sort]").get_attribute("aria-sort") == "descending"
    shown = page.locator("tbody tr td:first-child").all_inner_texts()
    rows = _csv(page, page.get_by_role("link", name="CSV (.csv)"))
    assert [r[0] for r in rows[1:]] == shown and len(rows) - 1 == partly
    amounts = [float(r[6]) for r in rows[1:]]
    assert amounts == sorted(amounts, reverse=True)
    # The URL is the list: opened afresh (a bookmark) it shows the same.
    url = page.url
    page.goto(url)
    assert page.locator("tbody tr td:first-child").all_inner_texts() == shown
    shot("lists-02-bills-partly-sorted-1366")
    # Paging: every row of the unfiltered list is on some page, and the download has them all.
    page.goto(f"{live_server.url}/bills/?per_page=25")
    page.get_by_role("link", name="Next page").click()
    page.wait_for_url(re.compile(r"page=2"))
    assert "Page 2 of" in page.locator(".list-pager").inner_text()
    rows = _csv(page, page.get_by_role("link", name="CSV (.csv)"))
    assert len(rows) - 1 == total


def test_parcels_and_permits_lists_at_a_desk(page, live_server, demo_town, shot, login):
    page.set_viewport_size({"width": 1366, "height": 900})
    login("staff", DEMO_PASSWORD)
    page.goto(f"{live_server.url}/parcels/")
    page.get_by_label("Class", exact=True).select_option("small_residential")
    page.get_by_label("Search (address, parcel id or owner)").fill("Rd")
    page.get_by_role("button", name="Show").click()
    page.wait_for_url(re.compile(r"property_class=small_residential"))
    n = _count(page)
    assert 0 < n and all(t == "Small residential" for t in page.locator("td[data-label='Class']").all_inner_texts())
    shot("lists-03-parcels-1366")
    page.goto(f"{live_server.url}/permits/")
    page.get_by_text("More filters").click()
    page.get_by_role("combobox", name=re.compile("Final action due")).select_option("running")
    page.get_by_role("button", name="Show").click()
    page.wait_for_url(re.compile(r"clock=running"))
    assert _count(page) >= 1
    shot("lists-04-permits-1366")


def test_collections_aging_and_bill_runs_at_a_desk(page, live_server, demo_town, shot, login):
    """The set-based reports behind the same list: search by address, sort by a bucket's header (in SQL), the
    download is what is shown; the bill runs list with its states."""
    page.set_viewport_size({"width": 1366, "height": 900})
    login("collector", DEMO_PASSWORD)
    page.goto(f"{live_server.url}/collections/aging/?as_of=2026-12-31")
    everyone = _count(page)
    assert everyone > 50 and "Page 1 of" in page.locator(".list-pager").inner_text()
    shot("lists-07-aging-1366")
    page.get_by_role("link", name=re.compile("^Total")).click()
    page.wait_for_url(re.compile(r"sort=total"))
    page.get_by_role("link", name=re.compile("^Total")).click()
    page.wait_for_url(re.compile(r"sort=-total"))
    assert page.locator("th[aria-sort]").get_attribute("aria-sort") == "descending"
    shown = page.locator("td[data-label='Account']").all_inner_texts()
    rows = _csv(page, page.get_by_role("link", name="CSV (.csv)"))
    assert len(rows) - 1 == everyone and [r[0] for r in rows[1:len(shown) + 1]] == shown
    total_at, address_at = rows[0].index("Total"), rows[0].index("Address")  # by header: columns may be chosen
    totals = [float(r[total_at]) for r in rows[1:]]
    assert totals == sorted(totals, reverse=True)
    street = rows[1][address_at].split(" ", 1)[1]
    page.get_by_role("searchbox").fill(street)
    page.get_by_role("button", name="Show").click()
    page.wait_for_url(re.compile(r"q="))
    n = _count(page)
    assert 0 < n < everyone and all(street in a for a in page.locator("td[data-label='Address']").all_inner_texts())
    assert len(_csv(page, page.get_by_role("link", name="CSV (.csv)"))) - 1 == n
    shot("lists-08-aging-search-1366")
    page.goto(f"{live_server.url}/bill-runs/")
    assert _count(page) >= 1 and "Issued" in page.locator("table.list").inner_text()
    shot("lists-09-bill-runs-1366")


PHONE_LISTS = [("clerk", "/bills/?status=unpaid"), ("staff", "/parcels/"), ("director", "/users/?role=all"),
               ("staff", "/relief/"), ("collector", "/payments/"), ("director", "/jobs/"),
               ("collector", "/collections/aging/?as_of=2026-12-31"),
               ("collector", "/collections/demands/?as_of=2026-11-20"), ("collector", "/bill-runs/")]


def test_lists_on_a_phone_stack_inside_the_screen(page, live_server, demo_town, shot, login):
    """Every list at 390 px, in one demo town (it was one town per list: 9 × 20 s of set-up; issue 24). Each list is
    checked whatever the one before it did; the failures are reported together, each with its list."""
    page.set_viewport_size({"width": 390, "height": 844})
    failures = []
    for who, path in PHONE_LISTS:
        try:
            _a_list_on_a_phone(page, live_server, shot, login, who, path)
        except AssertionError as e:
            failures.append(f"{who} {path}: {e}")
    assert failures == [], "\n".join(failures)


def _a_list_on_a_phone(page, live_server, shot, login, who, path):
    login(who, DEMO_PASSWORD)
    page.goto(f"{live_server.url}{path}")
    _fits(page, 390)
    assert not page.locator("table.list thead").first.is_visible()  # rows stack as cards of "label: value"
    name = re.sub(r"\W+", "-", path.strip("/?"))
    shot(f"lists-05-{name}-390")
    sort = page.get_by_label("Sort by").first  # the page's first list (a second list has its own)
    values = [o for o in sort.locator("option").evaluate_all("os => os.map(o => o.value)") if o.startswith("-")]
    sort.select_option(values[0])
    page.get_by_role("button", name="Show").first.click()
    page.wait_for_url(re.compile(r"sort=" + re.escape(values[0])))
    _fits(page, 390)
    axe_name = f"lists-06-{name}-sorted-390"
    shot(axe_name)
