"""GIS layers by API (issue 20 "Every importer … by CLI, web and API"): POST /api/gis/layers/ takes the files
(multipart) and the layer choices, runs the one pipeline (services.survey_import) as a dry run unless
?dry_run=0, and answers every unusable file with a 400 naming the file, the layer or the field — nothing changed."""
from __future__ import annotations

import io
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from stormwater.imports.models import ImportRecord
from stormwater.parcels.models import ImperviousSurvey, ParcelImpervious

from .conftest import write_town

pytestmark = pytest.mark.django_db
URL = "/api/gis/layers/"


def upload(path, name=None):
    return SimpleUploadedFile(name or path.name, path.read_bytes())


def post(c, files, q="", **fields):
    data = {"file": files, "parcels": "town.gpkg:parcels", "id_field": "PID", "impervious": "town.gpkg:buildings",
            "right_of_way": "town.gpkg:row", "name": "API survey", "surveyed_on": "2026-05-01"}
    data.update({k: v for k, v in fields.items() if v is not None})
    for k in [k for k, v in fields.items() if v is None]:
        data.pop(k)
    return c.post(URL + q, data)


def nothing_changed():
    assert ImperviousSurvey.objects.count() == 0 and ParcelImpervious.objects.count() == 0
    assert not ImportRecord.objects.filter(kind="gis_layers").exclude(outcome="refused").exists()


def test_a_dry_run_by_default_then_the_import(assessed, personas, client_for, tmp_path):
    c = client_for(personas["staff"])
    gpkg = write_town(tmp_path / "town.gpkg")
    r = post(c, [upload(gpkg)])
    assert r.status_code == 200, r.content
    body = r.json()
    assert body["dry_run"] is True and body["parcels_matched"] == 2
    assert body["comparison"]["parcels_impervious_changed"] == 2  # what it does to the bill, before it does it
    nothing_changed()
    r = post(c, [upload(gpkg)], q="?dry_run=0")
    assert r.status_code == 201, r.content
    survey = ImperviousSurvey.objects.get()
    assert r.json()["survey_id"] == survey.pk and survey.name == "API survey"
    assert ParcelImpervious.objects.get(survey=survey, parcel__parcel_id="P-1").impervious_sqft == 400
    rec = ImportRecord.objects.get(kind="gis_layers")
    assert rec.outcome == "applied" and rec.counts["survey_id"] == survey.pk
    r = post(c, [upload(gpkg)], q="?dry_run=0")  # the same areas again: nothing changes
    assert r.status_code == 200 and r.json()["unchanged"] is True and ImperviousSurvey.objects.count() == 1


def test_a_layer_named_alone_when_one_file_is_sent(assessed, personas, client_for, tmp_path):
    gpkg = write_town(tmp_path / "town.gpkg")
    r = post(client_for(personas["assessor"]), [upload(gpkg)], parcels="parcels", impervious="buildings",
             right_of_way="row")
    assert r.status_code == 200 and r.json()["parcels_matched"] == 2, r.content


def test_a_zipped_shapefile_set(assessed, personas, client_for, tmp_path):
    import geopandas as gpd

    gpkg = write_town(tmp_path / "town.gpkg")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for layer in ("parcels", "buildings"):
            gpd.read_file(gpkg, layer=layer).to_file(tmp_path / f"{layer}.shp")
            for ext in ("shp", "shx", "dbf", "prj"):
                z.write(tmp_path / f"{layer}.{ext}", f"{layer}.{ext}")
    r = post(client_for(personas["staff"]), [SimpleUploadedFile("town-shp.zip", buf.getvalue())],
             parcels="parcels.shp", impervious="buildings.shp", right_of_way=None)
    assert r.status_code == 200 and r.json()["layers"] == ["buildings"], r.content


def test_a_truncated_geojson_is_a_400_naming_the_file_and_nothing_changes(assessed, personas, client_for, tmp_path):
    import geopandas as gpd

    good = write_town(tmp_path / "town.gpkg")
    gj = tmp_path / "parcels.geojson"
    gpd.read_file(good, layer="parcels").to_file(gj, driver="GeoJSON")
    gj.write_bytes(gj.read_bytes()[: len(gj.read_bytes()) // 2])
    c = client_for(personas["staff"])
    for q in ("", "?dry_run=0"):
        r = post(c, [upload(gj), upload(good)], q=q, parcels="parcels.geojson")
        assert r.status_code == 400, r.content
        err = r.json()["error"]
        assert err.startswith("parcels.geojson: the file cannot be read as GIS data"), err
        assert str(tmp_path) not in err and "/tmp" not in err  # never the server's temporary path
    nothing_changed()


@pytest.mark.parametrize("kw, message, layer", [
    ({"scale": 0.3048}, "10.76× smaller than the Assessors", "parcels"),
    ({"scale": 0.0001, "origin": (-725800.0, 420500.0)}, "look like degrees", "parcels"),
    ({"buildings": False}, "no features with area", "buildings"),
    ({"parcels": False}, "no features with area (parcel polygons)", "parcels"),
    ({"parcel_copy": [(0, 0, 100, 100), (100, 0, 200, 100)]}, "polygons match the parcels", "parcel_copy"),
])
def test_a_survey_the_pipeline_refuses_is_a_400_with_every_finding(assessed, personas, client_for, tmp_path, kw,
                                                                    message, layer):
    gpkg = write_town(tmp_path / "town.gpkg", **kw)
    c = client_for(personas["staff"])
    extra = ["town.gpkg:buildings", "town.gpkg:parcel_copy"] if "parcel_copy" in kw else "town.gpkg:buildings"
    for q in ("", "?dry_run=0"):
        r = post(c, [upload(gpkg)], q=q, impervious=extra)
        assert r.status_code == 400, r.content
        errors = [p for p in r.json()["problems"] if p["severity"] == "error"]
        assert any(message in p["message"] and p["layer"] == layer for p in errors), errors
    nothing_changed()
    assert ImportRecord.objects.get(kind="gis_layers").outcome == "refused"  # the applied attempt is on record


@pytest.mark.parametrize("fields, message", [
    ({"parcels": "nope.gpkg:parcels"}, "parcels: 'nope.gpkg:parcels' is not an uploaded layer file"),
    ({"parcels": "town.gpkg:lots"}, "parcels: town.gpkg has no layer 'lots'"),
    ({"impervious": "town.gpkg"}, "impervious: town.gpkg holds several layers"),
    ({"id_field": "LOC_ID"}, "LOC_ID"),
    ({"id_field": None}, "id_field: required"),
    ({"impervious": None}, "impervious: required"),
    ({"surveyed_on": "2026-13-01"}, "surveyed_on: '2026-13-01' is not a date"),
    ({"row_where": "PolyType"}, "row_where: 'PolyType': use FIELD=VALUE"),
    ({"colour": "red"}, "unknown field: colour"),
])
def test_bad_choices_are_a_400_naming_the_field(assessed, personas, client_for, tmp_path, fields, message):
    gpkg = write_town(tmp_path / "town.gpkg")
    r = post(client_for(personas["staff"]), [upload(gpkg)], **fields)
    assert r.status_code == 400 and message in r.json()["error"], r.content
    nothing_changed()


def test_bad_uploads_are_a_400(assessed, personas, client_for, tmp_path):
    c = client_for(personas["staff"])
    gpkg = write_town(tmp_path / "town.gpkg")
    r = c.post(URL, {"parcels": "parcels", "id_field": "PID", "impervious": "buildings"})
    assert r.status_code == 400 and r.json()["error"].startswith("file: required")
    r = post(c, [SimpleUploadedFile("records.csv", b"PID\nP-1\n")])
    assert r.status_code == 400 and "/api/imports/assessor/" in r.json()["error"]
    pdf = SimpleUploadedFile("town.gpkg", b"%PDF-1.4\n" + b"x" * 2000)
    r = post(c, [pdf])
    assert r.status_code == 400 and r.json()["error"].startswith("town.gpkg: the file cannot be read as GIS data")
    r = post(c, [SimpleUploadedFile("layers.zip", b"PK\x03\x04 not really")])
    assert r.status_code == 400 and "layers.zip: not a readable zip file" in r.json()["error"]
    r = post(c, [upload(gpkg), upload(gpkg)])
    assert r.status_code == 400 and "both named 'town.gpkg'" in r.json()["error"]
    r = c.post(URL, b"{}", content_type="application/json")
    assert r.status_code == 400 and "multipart/form-data" in r.json()["error"]
    nothing_changed()


def test_who_may_import_layers(assessed, personas, client_for, tmp_path):
    gpkg = write_town(tmp_path / "town.gpkg")
    assert post(client_for(personas["clerk"]), [upload(gpkg)]).status_code == 403
    assert post(client_for(personas["owner"]), [upload(gpkg)]).status_code == 403
    nothing_changed()
