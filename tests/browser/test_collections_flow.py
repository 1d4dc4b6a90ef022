"""Issue 15's set-based reports in a real browser, at a desk and on a phone: the Collector opens the aging
(paged, totals over every account), the delinquency list, the demand and commitment candidates and the
billing problems; every page passes axe-core and a wide table scrolls inside its box, not the page."""
import re

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
DEMO_PASSWORD = "stormwater-demo"  # demo_load's users

PAGES = [
    ("aging", "/collections/aging/?as_of=2027-01-15", "Accounts receivable aging"),
    ("aging-p2", "/collections/aging/?as_of=2027-01-15&page=2", "Accounts receivable aging"),
    ("delinquency", "/collections/delinquency/?as_of=2027-01-15", "Delinquency list"),
    ("demands", "/collections/demands/?as_of=2026-12-01", "Demands"),
    ("commitments", "/collections/commitments/?as_of=2026-12-01", "Commitment to the tax bill"),
    ("problems", "/billing-problems/", "Parcels that cannot be billed"),
    ("collections", "/collections/", "Collections"),
]


@pytest.fixture
def demo_town(transactional_db):
    from stormwater.demo import demo_load

    demo_load(parcels=700)  # bills issued, most paid, some late, demands served Nov 2, 2026


def test_the_collectors_reports_at_a_desk_and_on_a_phone(page, live_server, demo_town, shot, login):
    """Both widths in one demo town of 700 parcels (it was one town per width: 2 × 30 s of set-up; issue 24)."""
    login("collector", DEMO_PASSWORD)
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        _the_reports_at(page, live_server, shot, width)


def _the_reports_at(page, live_server, shot, width):
    for name, url, heading in PAGES:
        page.goto(f"{live_server.url}{url}")
        page.get_by_role("heading", name=re.compile(heading)).first.wait_for()
        shot(f"15-{name}-{width}")
        # Nothing wider than the screen: wide tables scroll inside their box.
        assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1"), (name, width)
    page.goto(f"{live_server.url}/collections/aging/?as_of=2027-01-15")
    text = page.locator("main").inner_text()
    assert re.search(r"in \d{3} accounts", text) and "Page 1 of" in text
    page.get_by_role("link", name="Next page").click()  # the list mechanism's pager (issue 16)
    assert "as_of=2027-01-15" in page.url and "page=2" in page.url
