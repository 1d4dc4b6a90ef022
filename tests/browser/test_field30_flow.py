"""Issue 30 (field30), what needs a browser: the permit page's sections fold (<details class="fold" open>, the heading
in the <summary>): open as served on a desktop, folded and opened again from the keyboard, a contents link still
reaches its section, axe-core clean (the ``axe`` fixture); and the field map's own base draws the town's roads (the
survey's right-of-way layer) beside its parcels, from this origin."""
from datetime import date
from decimal import Decimal

import numpy as np
import pytest
import shapely

from test_field_flow import field_data  # noqa: F401  (the fixture: four sites, a storm pending on 1 Elm St)
from test_field_phone import _parcel_near

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def test_the_permit_page_sections_fold_from_the_keyboard(page, live_server, personas, town, login, axe):
    from stormwater.parcels.models import Owner
    from stormwater.permits.services import permit_application_start
    from stormwater.rules.applicability import determine

    owner = Owner.objects.get(user=personas["owner"])
    app = permit_application_start(
        acting_user=personas["owner"], owner=owner, owner_name=owner.name, owner_address=owner.mailing_address,
        site_address="1 Elm St", parcels=[town["house"]], description="Eight-lot subdivision",
        disturbance_sqft=Decimal(87120), determination=determine(disturbance_sqft=Decimal(87120), on=date(2026, 3, 2)))
    login("owner")
    page.goto(f"{live_server.url}/permits/{app.case.number}/")
    folds = page.locator("details.fold")
    n = folds.count()
    assert n >= 8 and page.locator("details.fold[open]").count() == n  # all open on a desktop
    # the marker beside the heading, one line (a later `details > summary {display: list-item}` put it on its own line)
    assert page.locator("details.fold > summary").first.evaluate("s => getComputedStyle(s).display") == "flex"
    axe("permit page, sections open")
    fees = page.locator("#fees details.fold")
    summary = fees.locator("summary")
    summary.focus()
    page.keyboard.press("Enter")
    assert fees.get_attribute("open") is None and not fees.locator("table, p").first.is_visible()
    assert summary.evaluate("s => document.activeElement === s")
    axe("permit page, a section folded")
    page.keyboard.press("Space")
    assert fees.get_attribute("open") == ""
    page.keyboard.press("Enter")  # folded again: the contents link still shows its section's heading
    page.get_by_role("navigation", name="On this page").get_by_role("link", name="Fees").click()
    assert page.locator("#fees h2").is_visible()


def test_the_field_base_draws_the_towns_roads_beside_its_parcels(page, live_server, field_data, login, at,  # noqa: F811
                                                               axe):
    from stormwater.gis.models import RightOfWayShape
    from stormwater.gis.overlay import to_target_crs
    from stormwater.parcels.models import ImperviousSurvey

    _parcel_near(42.0512, -72.5792)
    road = to_target_crs(np.array([shapely.box(-72.5800, 42.0503, -72.5784, 42.0507)]), "EPSG:4326")[0]
    x0, y0, x1, y1 = road.bounds
    RightOfWayShape.objects.create(survey=ImperviousSurvey.objects.latest("id"), layer="roads", source_fid="1",
                                   geom_wkb=shapely.to_wkb(road), minx=x0, miny=y0, maxx=x1, maxy=y1)
    at(date(2026, 7, 6), 8)
    page.set_viewport_size({"width": 390, "height": 844})
    login("inspector")
    elsewhere = []
    page.context.on("request", lambda r: elsewhere.append(r.url) if not r.url.startswith(live_server.url) else None)
    page.goto(f"{live_server.url}/field/today/")
    page.locator("#daymap[data-base-ready='2']").wait_for()
    fills = page.locator("#daymap .leaflet-ownbase-pane path").evaluate_all(
        "ps => ps.map(p => p.getAttribute('fill')).sort()")
    assert fills == ["#eef1f2", "#fffdf5"]  # the parcel grey, the road light
    assert elsewhere == []
    axe("field today with roads on the base")
