"""Map labels are text, never HTML (issue 14: a BMP's name went into the stewardship map's tooltip as raw HTML; only
the Content-Security-Policy stopped the script). This browser context bypasses the CSP, so an unescaped label would
create its element here."""
from datetime import date

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NAME = '<img src="x" id="injected-name" onerror="document.title=\'pwned\'">'
CATEGORY = '<b id="injected-category">bold</b>'


@pytest.fixture
def site(transactional_db, personas):
    from stormwater.stewardship import services as ss
    from stormwater.stewardship.models import Bmp

    s = ss.site_open(name="Elm Court basin", address="1 Elm St", owner_user=personas["owner"],
                     acting_user=personas["staff"])
    Bmp.objects.create(site=s, name=NAME, source_type="Bioretention", region1_category=CATEGORY,
                       latitude=42.05, longitude=-72.57, added_on=date(2026, 5, 1))
    Bmp.objects.create(site=s, name="Basin B", source_type="Detention Pond", latitude=42.051, longitude=-72.571,
                       added_on=date(2026, 5, 1))
    return s


def test_bmp_names_and_categories_are_shown_as_text_on_the_stewardship_map(page, live_server, login, site):
    login("staff")
    page.goto(f"{live_server.url}/stewardship/{site.case.number}/")
    page.locator("#bmpmap path.leaflet-interactive").first.wait_for()
    markers = page.locator("#bmpmap path.leaflet-interactive")
    assert markers.count() == 2
    markers.first.hover()
    tip = page.locator(".leaflet-tooltip")
    tip.wait_for()
    assert NAME in tip.inner_text() and CATEGORY in tip.inner_text()
    assert CATEGORY in page.locator("#bmpmap .legend").inner_text()
    assert page.locator("#injected-name, #injected-category").count() == 0
    assert page.title() != "pwned"
