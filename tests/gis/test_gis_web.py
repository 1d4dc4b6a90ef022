"""Pages, API and CLI of the GIS app: roles, the upload → mapping → check → import flow, the map."""
from __future__ import annotations

import csv
import io
import zipfile
from datetime import date
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from stormwater.gis.models import GisImport
from stormwater.gis.services import LayerSpec, SurveySpec, survey_import
from stormwater.parcels.models import ImperviousSurvey, Parcel, ParcelImpervious


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def surveyed(town, synthetic_gpkg):
    """The shared test town plus P-1/P-2 with polygons; the owner persona owns P-1."""
    from stormwater.parcels.models import Owner

    mine = Owner.objects.get(name="Olivia Owner")
    Parcel.objects.create(parcel_id="P-1", address="1 Test St", owner=mine, land_use_code="101", dwelling_units=1)
    Parcel.objects.create(parcel_id="P-2", address="3 Test St", land_use_code="325", lot_sqft=Decimal(10000))
    spec = SurveySpec(parcels=LayerSpec(str(synthetic_gpkg), "parcels"), id_field="PID",
                      impervious=[LayerSpec(str(synthetic_gpkg), x) for x in ("buildings", "patios", "driveways")],
                      right_of_way=[LayerSpec(str(synthetic_gpkg), "row")])
    return survey_import(spec=spec, name="2026 flyover", surveyed_on=date(2026, 4, 1), acting_user=None).survey


@pytest.mark.parametrize("role,status", [("owner", 403), ("consultant", 403), ("inspector", 403), ("collector", 403),
                                         ("clerk", 200), ("assessor", 200), ("staff", 200), ("director", 200)])
def test_gis_pages_are_for_gis_roles(client_for, personas, surveyed, role, status):
    c = client_for(personas[role])
    for url in ("/gis/", f"/gis/surveys/{surveyed.pk}/", f"/gis/surveys/{surveyed.pk}/eru/",
                f"/gis/surveys/{surveyed.pk}/export.csv"):
        assert c.get(url).status_code == status, url
    assert c.get(f"/api/gis/surveys/{surveyed.pk}/eru").status_code == status


@pytest.mark.parametrize("role,status", [("clerk", 403), ("collector", 403), ("staff", 200), ("assessor", 200)])
def test_only_importers_may_import(client_for, personas, db, role, status):
    assert client_for(personas[role]).get("/gis/imports/new/").status_code == status


def test_the_parcel_map_api_uses_parcel_access(client_for, personas, surveyed):
    owner = client_for(personas["owner"])
    r = owner.get("/api/gis/parcels/P-1/geojson")
    assert r.status_code == 200 and r.json()["layers"] == ["buildings", "driveways", "patios"]
    assert owner.get("/api/gis/parcels/P-2/geojson").status_code == 404  # not theirs: same as no such parcel
    assert client_for(personas["outsider"]).get("/api/gis/parcels/P-1/geojson").status_code == 404


def test_the_parcel_page_shows_the_map_only_with_geometry(client_for, personas, surveyed):
    c = client_for(personas["staff"])
    page = c.get("/parcels/P-1/").content.decode()
    assert 'id="parcel-map"' in page and "/static/gis/leaflet/leaflet.js" in page and "unpkg" not in page
    assert 'data-tile-url=""' in page  # no tile server by default: works offline
    assert 'id="parcel-map"' not in c.get("/parcels/01-01-1/").content.decode()


def test_the_tile_url_setting_reaches_the_map(client_for, personas, surveyed, settings):
    settings.GIS_TILE_URL = "https://tiles.example/{z}/{x}/{y}.png"
    page = client_for(personas["staff"]).get("/parcels/P-1/").content.decode()
    assert 'data-tile-url="https://tiles.example/{z}/{x}/{y}.png"' in page


def test_the_eru_page_draws_the_histogram_server_side(client_for, personas, surveyed):
    page = client_for(personas["clerk"]).get(f"/gis/surveys/{surveyed.pk}/eru/").content.decode()
    assert "<svg" in page and "<rect" in page and "median" in page


def test_csv_and_geopackage_exports(client_for, personas, surveyed, tmp_path, settings):
    c = client_for(personas["staff"])
    before = sorted(p.name for p in settings.DATA_DIR.iterdir())
    rows = list(csv.DictReader(io.StringIO(c.get(f"/gis/surveys/{surveyed.pk}/export.csv").content.decode())))
    p1 = next(r for r in rows if r["parcel_id"] == "P-1")
    assert (p1["impervious_sqft"], p1["buildings_sqft"], p1["patios_sqft"]) == ("800.00", "400.00", "400.00")
    r = c.get(f"/gis/surveys/{surveyed.pk}/export.gpkg")
    path = tmp_path / "out.gpkg"
    path.write_bytes(r.content)
    # Issue 27: each export left its temporary folder in the data folder.
    assert sorted(p.name for p in settings.DATA_DIR.iterdir()) == before
    assert r["Content-Disposition"] == f'attachment; filename="impervious-survey-{surveyed.pk}-{surveyed.surveyed_on}.gpkg"'
    import pyogrio

    assert sorted(n for n, _ in pyogrio.list_layers(path)) == ["impervious_pieces", "parcels"]
    df = pyogrio.read_dataframe(path, layer="parcels")
    assert df.crs.to_epsg() == 2249 and float(df.set_index("parcel_id").loc["P-1", "impervious_sqft"]) == 800.0


def test_upload_map_check_and_import_a_survey_on_the_web(client_for, personas, town, synthetic_gpkg, run_worker):
    Parcel.objects.create(parcel_id="P-1", address="1 Test St", land_use_code="101", dwelling_units=1)
    Parcel.objects.create(parcel_id="P-2", address="3 Test St", land_use_code="325")
    c = client_for(personas["staff"])
    with synthetic_gpkg.open("rb") as f:
        r = c.post("/gis/imports/new/", {"kind": "layers", "files": f})
    gi = GisImport.objects.get()
    assert r.status_code == 302 and r.url == f"/gis/imports/{gi.pk}/"
    page = c.get(r.url).content.decode()
    assert "town.gpkg : buildings" in page
    from stormwater.gis.selectors import upload_sources

    names = [s["layer"] for s in upload_sources(gi) if s["geometry_type"]]
    post = {"parcels": "town.gpkg|parcels", "id_field": "PID", "name": "Web survey", "surveyed_on": "2026-05-01"}
    for i, n in enumerate(names):
        post[f"role_{i}"] = {"row": "right_of_way", "parcels": ""}.get(n, "impervious")
        post[f"name_{i}"] = n
    assert c.post(f"/gis/imports/{gi.pk}/", post).status_code == 302
    run_worker()  # the check runs as a background job (issue 15)
    gi.refresh_from_db()
    assert gi.status == "checked" and gi.report["parcels_matched"] == 2
    page = c.get(f"/gis/imports/{gi.pk}/").content.decode()
    assert "parcel_without_polygon" not in page and "on no parcel" in page.lower()
    r = c.post(f"/gis/imports/{gi.pk}/commit/")
    assert r.url == f"/gis/imports/{gi.pk}/"  # the import runs as a background job, shown live on this page
    assert "/api/jobs/" in c.get(r.url).content.decode()
    run_worker()
    gi.refresh_from_db()
    assert gi.status == "imported" and f"/gis/surveys/{gi.survey_id}/" in c.get(r.url).content.decode()
    assert ParcelImpervious.objects.get(survey=gi.survey, parcel__parcel_id="P-1").impervious_sqft == Decimal("800.00")
    assert c.post(f"/gis/imports/{gi.pk}/commit/").status_code == 302  # a second commit is refused, not repeated
    assert ImperviousSurvey.objects.filter(name="Web survey").count() == 1


def test_upload_and_import_assessor_records_on_the_web(client_for, personas, db, synthetic_assessor_csv, run_worker):
    c = client_for(personas["assessor"])
    with synthetic_assessor_csv.open("rb") as f:
        r = c.post("/gis/imports/new/", {"kind": "assessor", "files": f})
    gi = GisImport.objects.get()
    assert "Owner mailing address" in c.get(r.url).content.decode()
    post = {"source": "assessor.csv|", "map_parcel_id": "PID", "map_address": "ADDR", "map_owner_name": "OWNER",
            "map_owner_address": ["OWN_ST", "OWN_CITY"], "map_land_use_code": "LUC", "map_dwelling_units": "UNITS",
            "map_lot_size": "LOT", "lot_unit": "sqft"}
    c.post(f"/gis/imports/{gi.pk}/", post)
    run_worker()
    gi.refresh_from_db()
    assert gi.status == "checked" and gi.report["created"] == 3 and Parcel.objects.count() == 0
    c.post(f"/gis/imports/{gi.pk}/commit/")
    run_worker()
    assert sorted(Parcel.objects.values_list("parcel_id", flat=True)) == ["P-1", "P-2", "P-3"]


def test_a_zipped_shapefile_upload_is_unpacked(client_for, personas, db, tmp_path):
    import geopandas as gpd

    from .conftest import box

    shp = tmp_path / "shp"
    shp.mkdir()
    gpd.GeoDataFrame({"PID": ["A"]}, geometry=[box(0, 0, 10, 10)], crs=2249).to_file(shp / "parcels.shp")
    z = tmp_path / "parcels.zip"
    with zipfile.ZipFile(z, "w") as zf:
        for p in shp.iterdir():
            zf.write(p, p.name)
    with z.open("rb") as f:
        client_for(personas["staff"]).post("/gis/imports/new/", {"kind": "layers", "files": f})
    assert GisImport.objects.get().files == ["parcels.shp"]


def test_cli_impervious_file_to_file(synthetic_gpkg, tmp_path):
    out = tmp_path / "out.csv"
    g = str(synthetic_gpkg)
    call_command("gis", "impervious", "--parcels", f"{g}:parcels", "--id", "PID", "--impervious", f"{g}:buildings",
                 "--impervious", f"{g}:patios", "--impervious", f"{g}:driveways", "--right-of-way", f"{g}:row",
                 "--out", str(out))
    rows = list(csv.DictReader(out.open()))
    assert rows[0] == {"parcel_id": "P-1", "impervious_sqft": "800.00", "buildings_sqft": "400.00",
                       "patios_sqft": "400.00", "driveways_sqft": "100.00"}
    assert rows[1]["impervious_sqft"] == "200.00"


def test_cli_impervious_on_a_local_dask_cluster_writes_the_same_csv(synthetic_gpkg, tmp_path):
    pytest.importorskip("dask_geopandas")
    g = str(synthetic_gpkg)
    args = ["gis", "impervious", "--parcels", f"{g}:parcels", "--id", "PID", "--impervious", f"{g}:buildings",
            "--impervious", f"{g}:patios", "--impervious", f"{g}:driveways", "--right-of-way", f"{g}:row"]
    call_command(*args, "--out", str(tmp_path / "one.csv"))
    call_command(*args, "--dask", "local", "--partitions", "2", "--out", str(tmp_path / "dask.csv"))
    assert (tmp_path / "dask.csv").read_text() == (tmp_path / "one.csv").read_text()


def test_cli_refuses_an_input_without_crs_and_says_so(tmp_path):
    import geopandas as gpd

    from .conftest import box

    p = tmp_path / "nocrs.gpkg"
    gpd.GeoDataFrame({"PID": ["A"]}, geometry=[box(0, 0, 10, 10)]).to_file(p, layer="parcels")
    with pytest.raises(CommandError, match="no coordinate reference system"):
        call_command("gis", "impervious", "--parcels", f"{p}:parcels", "--id", "PID", "--impervious", f"{p}:parcels",
                     "--out", str(tmp_path / "o.csv"))
    call_command("gis", "impervious", "--parcels", f"{p}:parcels", "--id", "PID", "--impervious", f"{p}:parcels",
                 "--source-crs", "EPSG:2249", "--out", str(tmp_path / "o.csv"))
    assert (tmp_path / "o.csv").read_text().splitlines()[1] == "A,100.00,100.00"


def test_cli_eru_prints_json(surveyed, capsys):
    call_command("gis", "eru", "--survey", str(surveyed.pk))
    import json

    out = json.loads(capsys.readouterr().out)
    assert out["n"] >= 1 and "median_sqft" in out


def test_the_town_configures_the_basemap(client_for, personas, surveyed, settings, town_toml):
    """Issue 16: the basemap is the town's choice (town.toml map_tile_url), its origin allowed by the CSP; "none"
    turns it off even where the installation has one; anything else is refused by name."""
    town_toml(map_tile_url="https://gis.longmeadow.example/tiles/{z}/{x}/{y}.png", map_tile_attribution="Town GIS")
    r = client_for(personas["staff"]).get("/parcels/P-1/")
    page = r.content.decode()
    assert 'data-tile-url="https://gis.longmeadow.example/tiles/{z}/{x}/{y}.png"' in page
    assert 'data-tile-attribution="Town GIS"' in page
    assert "https://gis.longmeadow.example" in r["Content-Security-Policy"]

    settings.GIS_TILE_URL = "https://tiles.example/{z}/{x}/{y}.png"
    town_toml(map_tile_url="none")
    r = client_for(personas["staff"]).get("/parcels/P-1/")
    assert 'data-tile-url=""' in r.content.decode() and "tiles.example" not in r["Content-Security-Policy"]

    with pytest.raises(RuntimeError, match="map_tile_url"):
        town_toml(map_tile_url="http://plain.example/{z}/{x}/{y}.png")


def test_the_import_page_names_a_file_gdal_cannot_open_without_the_servers_path(client_for, personas, town, settings):
    """Issue 27: GDAL's message carried the server's full path of the stored upload (the media folder)."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    c = client_for(personas["staff"])
    r = c.post("/gis/imports/new/", {"kind": "layers", "files": SimpleUploadedFile("broken.geojson", b"{not json")})
    gi = GisImport.objects.get()
    assert r.status_code == 302
    page = c.get(f"/gis/imports/{gi.pk}/").content.decode()
    assert "broken.geojson" in page
    assert str(settings.MEDIA_ROOT) not in page and str(settings.DATA_DIR) not in page and "/gis/import-" not in page
