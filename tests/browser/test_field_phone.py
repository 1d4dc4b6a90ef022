"""Issue 30, the inspector's phone, in a real browser at 390 px: the day's map drawn on the town's own parcel
outlines (no tile server; nothing from another origin) with a Directions hand-off per stop; on a weak connection a
large photo is made smaller on the phone before it is sent, keeping the camera's time and position, with its
caption; an HEIC photo this browser cannot convert is refused on the phone by name.

The weak connection is the phone's own report (``navigator.connection``: 3G), set before the page's scripts run."""
import io
from datetime import date

import numpy as np
import pytest
import shapely
from PIL import Image

from test_field_flow import field_data, jpeg  # noqa: F401  (the fixture: four sites, a storm pending on 1 Elm St)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WEAK = """Object.defineProperty(navigator, 'connection', {configurable: true,
  value: {effectiveType: '3g', saveData: false, addEventListener() {}, removeEventListener() {}}});"""


def big_jpeg() -> bytes:
    """A 4000 × 3000 phone photo with EXIF time and GPS (the fixture's maker, larger)."""
    small = Image.open(io.BytesIO(jpeg((60, 110, 60), "2026:07:06 07:52:10", 42.05105, -72.57893)))
    exif = small.getexif()
    buf = io.BytesIO()
    small.resize((4000, 3000)).save(buf, "JPEG", exif=exif, quality=80)
    return buf.getvalue()


def _parcel_near(lat, lon, d=0.0004):
    from stormwater.gis.models import ParcelShape
    from stormwater.gis.overlay import to_target_crs
    from stormwater.parcels.models import ImperviousSurvey, Parcel

    g = to_target_crs(np.array([shapely.box(lon - d, lat - d, lon + d, lat + d)]), "EPSG:4326")[0]
    x0, y0, x1, y1 = g.bounds
    s = ImperviousSurvey.objects.create(name="2026 flyover", surveyed_on=date(2026, 4, 1))
    p = Parcel.objects.create(parcel_id="ELM-3", address="3 Elm St", land_use_code="101")
    ParcelShape.objects.create(survey=s, parcel=p, geom_wkb=shapely.to_wkb(g), minx=x0, miny=y0, maxx=x1, maxy=y1,
                               area_sqft=round(g.area, 2))


def test_the_phone_map_directions_and_photos_on_a_weak_connection_at_390px(page, live_server, field_data, shot, login,
                                                                           at):
    from stormwater.construction.models import Inspection

    _parcel_near(42.0512, -72.5792)
    at(date(2026, 7, 6), 8)
    elm = field_data["elm"]
    page.set_viewport_size({"width": 390, "height": 844})
    page.context.add_init_script(WEAK)
    login("inspector")
    elsewhere = []
    page.context.on("request", lambda r: elsewhere.append(r.url) if not r.url.startswith(live_server.url) else None)

    page.goto(f"{live_server.url}/field/today/")
    page.locator("#daymap[data-base-ready='1']").wait_for()
    assert page.locator("#daymap .leaflet-ownbase-pane path").count() == 1   # the town's own parcel outline
    # ... and seen: the base's drawing has the map's size on the screen (the site's `svg {max-width: 100%}` gave the
    # drawing of this pane, which has no width of its own, a width of 0: drawn, counted, and invisible)
    width = page.locator("#daymap .leaflet-ownbase-pane svg").evaluate("s => s.getBoundingClientRect().width")
    assert width >= page.locator("#daymap").evaluate("m => m.getBoundingClientRect().width") - 2
    directions = page.locator(f"#stop-{elm.case.number} a.directions")
    assert directions.get_attribute("href") == "geo:42.051,-72.579?q=42.051,-72.579"
    assert "town.toml" not in page.locator("main").inner_text()
    shot("phone-01-today-own-base-390")

    page.goto(f"{live_server.url}/field/{elm.case.number}/report/?kind=erosion_storm&storm={field_data['storm'].pk}")
    page.get_by_label("[e] Weather at the time").fill("Clearing, 68 °F")
    page.get_by_label("[g] Evaluation").select_option("compliant")
    page.locator("#row-0").get_by_label("In place").check()
    page.locator("#row-1").get_by_label("In place").check()
    page.get_by_label("Type my name to attest it").check()
    page.get_by_label("I attest that this report is true and complete.").check()
    # an HEIC photo Chromium cannot read: refused here, by name, nothing kept
    page.locator("#photos").set_input_files([{"name": "IMG_0001.HEIC", "mimeType": "image/heic",
                                              "buffer": b"\0\0\0\x18ftypheic\0\0\0\0mif1heic" + b"\0" * 200}])
    page.get_by_role("button", name="Save and send the report").click()
    page.get_by_text("“IMG_0001.HEIC” is an HEIC photo and this browser cannot convert it").wait_for()
    # the large photo, with its caption: made smaller before it is sent
    page.locator("#photos").set_input_files([{"name": "fence.jpg", "mimeType": "image/jpeg", "buffer": big_jpeg()}])
    page.get_by_label("Caption").fill("Silt fence at the outlet, looking east")
    shot("phone-02-photo-caption-390")
    page.get_by_role("button", name="Save and send the report").click()
    page.wait_for_url(f"{live_server.url}/construction/{elm.case.number}/inspections/*/")
    filed = Inspection.objects.get(project=elm, kind="erosion_storm")
    ph = filed.photos.get()
    assert (ph.width, ph.height) == (2048, 1536)
    assert ph.caption == "Silt fence at the outlet, looking east"
    assert ph.taken_at is not None and ph.latitude == pytest.approx(42.05105, abs=1e-4)
    assert ph.longitude == pytest.approx(-72.57893, abs=1e-4)
    assert "Silt fence at the outlet, looking east" in page.locator("main").inner_text()
    assert elsewhere == []
    shot("phone-03-report-390")
