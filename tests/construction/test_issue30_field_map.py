"""Issue 30, the inspector's phone: a base map that works on the phone (the town's tile URL where set, else the
town's own parcel outlines served from this origin and kept offline), a "Directions" hand-off per stop, and no
administrator advice on the inspector's screens (it is on the Director's settings page)."""
import json
from datetime import date

import numpy as np
import pytest
import shapely

from stormwater.gis.models import ParcelShape
from stormwater.gis.overlay import to_target_crs

from .test_field_web import day  # noqa: F401  (the fixture: 1 Elm St at 42.0505, -72.5826, Mon 07-06 07:00)


def _offline_urls(html: str) -> list[str]:
    return json.loads(html.split('id="offline-urls" type="application/json">')[1].split("</script>")[0])


def _square(lat, lon, d=0.0005):
    """A parcel polygon around (lat, lon), stored as the GIS import stores it (EPSG:2249, with its envelope)."""
    g = to_target_crs(np.array([shapely.box(lon - d, lat - d, lon + d, lat + d)]), "EPSG:4326")[0]
    x0, y0, x1, y1 = g.bounds
    return {"geom_wkb": shapely.to_wkb(g), "minx": x0, "miny": y0, "maxx": x1, "maxy": y1, "area_sqft": round(g.area, 2)}


def test_each_stop_hands_off_to_the_phones_maps_app(day, client_for, personas):
    project, _ = day
    html = client_for(personas["inspector"]).get("/field/today/").content.decode()
    stop = html.split(f'id="stop-{project.case.number}"')[1].split("</li>\n</ol>")[0]
    assert 'href="geo:42.0505,-72.5826?q=42.0505,-72.5826"' in stop
    assert 'data-apple="https://maps.apple.com/?daddr=42.0505,-72.5826"' in stop
    assert ">Directions<" in stop
    week = client_for(personas["inspector"]).get("/field/week/").content.decode()
    assert 'href="geo:42.0505,-72.5826?q=42.0505,-72.5826"' in week


def test_a_stop_without_a_position_has_no_directions(day, client_for, personas):
    project, _ = day
    project.latitude = project.longitude = None
    project.save(update_fields=["latitude", "longitude"])
    html = client_for(personas["inspector"]).get("/field/today/").content.decode()
    assert "geo:" not in html and "This site has no position" in html


def test_no_administrator_advice_on_the_inspectors_screens(day, client_for, personas):
    c = client_for(personas["inspector"])
    for url in ("/field/today/", "/field/week/", f"/field/{day[0].case.number}/report/"):
        html = c.get(url).content.decode()
        for hint in ("town.toml", "field_start_", "GIS_TILE_URL", "map_tile_url"):
            assert hint not in html, (url, hint)


def test_the_directors_settings_page_says_how_to_set_the_start_and_the_base_map(day, client_for, personas,
                                                                              town_toml):
    assert client_for(personas["inspector"]).get("/settings/").status_code == 403
    html = client_for(personas["director"]).get("/settings/").content.decode()
    assert "field_start_name" in html and "field_start_latitude" in html and "not set" in html
    assert "map_tile_url" in html and "the town's own parcel outlines" in html
    assert 'href="/settings/"' in html  # in the Director's menu (Admin)
    town_toml(field_start_name="DPW yard", field_start_latitude=42.07, field_start_longitude=-72.54,
              map_tile_url="https://gis.longmeadow.example/tiles/{z}/{x}/{y}.png")
    html = client_for(personas["director"]).get("/settings/").content.decode()
    assert "DPW yard" in html and "42.07" in html and "https://gis.longmeadow.example/tiles/{z}/{x}/{y}.png" in html


def test_without_a_tile_url_the_base_is_the_towns_parcels_served_here_and_kept_offline(day, client_for, personas,
                                                                                     town):
    project, _ = day
    from stormwater.parcels.models import ImperviousSurvey, Parcel

    s = ImperviousSurvey.objects.create(name="2026 flyover", surveyed_on=date(2026, 4, 1))
    near = Parcel.objects.create(parcel_id="NEAR-1", address="3 Elm St", land_use_code="101")
    far = Parcel.objects.create(parcel_id="FAR-1", address="9 Far Rd", land_use_code="101")
    ParcelShape.objects.create(survey=s, parcel=near, **_square(42.0510, -72.5830))
    ParcelShape.objects.create(survey=s, parcel=far, **_square(42.1500, -72.4000))   # ~ 10 miles away
    c = client_for(personas["inspector"])
    html = c.get("/field/today/").content.decode()
    assert 'data-tile-url=""' in html and 'data-base="/field/base.geojson"' in html
    assert "/field/base.geojson" in _offline_urls(html)
    r = c.get("/field/base.geojson")
    assert r.status_code == 200 and r["Content-Type"] == "application/json"
    fc = r.json()
    assert [f["properties"]["parcel_id"] for f in fc["features"]] == ["NEAR-1"]
    lon, lat = fc["features"][0]["geometry"]["coordinates"][0][0]
    assert abs(lat - 42.0505) < 0.002 and abs(lon + 72.5826) < 0.002
    assert client_for(personas["assessor"]).get("/field/base.geojson").status_code == 403


def test_with_the_towns_tile_url_the_map_uses_it(day, client_for, personas, town_toml):
    town_toml(map_tile_url="https://gis.longmeadow.example/tiles/{z}/{x}/{y}.png", map_tile_attribution="Town GIS")
    html = client_for(personas["inspector"]).get("/field/today/").content.decode()
    assert 'data-tile-url="https://gis.longmeadow.example/tiles/{z}/{x}/{y}.png"' in html
    assert "data-base=" not in html and "/field/base.geojson" not in _offline_urls(html)
