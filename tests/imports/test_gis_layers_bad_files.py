"""GIS layers through the import pipeline (issue 20 "Wrong today: GIS layers"): unreadable files are a message
naming the file (CLI and web, never a traceback or a 500, never vanishing from the mapping page); metres or degrees
labelled as feet, empty layers and the parcel layer given as impervious are refused before a survey exists; a new
survey's report compares it with the areas in force (parcels changed, fee effect in dollars, town total)."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from django.core.management import CommandError, call_command

from stormwater.parcels.models import ImperviousSurvey, ParcelImpervious

from .conftest import write_town

pytestmark = pytest.mark.django_db


def gis_import(path, *, impervious="buildings", parcels=None, extra=(), on="2026-05-01", dry_run=False):
    call_command("gis", "import", "--parcels", f"{parcels or path}:parcels", "--id", "PID",
                 "--impervious", f"{path}:{impervious}", "--right-of-way", f"{path}:row", "--name", "Survey",
                 "--surveyed-on", on, *extra, *(["--dry-run"] if dry_run else []))


def refused(match, **kw):
    with pytest.raises(CommandError, match=match):
        gis_import(**kw)
    assert ImperviousSurvey.objects.count() == 0 and ParcelImpervious.objects.count() == 0


def test_a_truncated_geojson_is_a_message_naming_the_file(assessed, tmp_path):
    good = write_town(tmp_path / "town.geojson.gpkg")
    import geopandas as gpd

    gj = tmp_path / "parcels.geojson"
    gpd.read_file(good, layer="parcels").to_file(gj, driver="GeoJSON")
    gj.write_bytes(gj.read_bytes()[: len(gj.read_bytes()) // 2])
    with pytest.raises(CommandError, match=r"parcels\.geojson: .*cannot be read"):
        call_command("gis", "import", "--parcels", str(gj), "--id", "PID", "--impervious", f"{good}:buildings",
                     "--name", "S", "--surveyed-on", "2026-05-01")
    assert ImperviousSurvey.objects.count() == 0


def test_a_truncated_geopackage_is_a_message_naming_the_file(assessed, tmp_path):
    p = write_town(tmp_path / "town.gpkg")
    p.write_bytes(p.read_bytes()[:3000])
    refused(r"town\.gpkg: .*cannot be read", path=p)


def test_a_pdf_named_gpkg_is_a_message_naming_the_file(assessed, tmp_path):
    p = tmp_path / "town.gpkg"
    p.write_bytes(b"%PDF-1.4\n" + b"x" * 2000)
    refused(r"town\.gpkg: .*cannot be read", path=p)


def test_a_corrupt_file_geodatabase_is_a_message_naming_it(assessed, tmp_path):
    gdb = tmp_path / "Town.gdb"
    gdb.mkdir()
    (gdb / "a00000001.gdbtable").write_bytes(b"\x00garbage" * 50)
    (gdb / "gdb").write_bytes(b"\x05\x00")
    refused(r"Town\.gdb: .*cannot be read", path=gdb)


def test_metres_labelled_as_feet_are_refused_naming_the_factor(assessed, tmp_path):
    p = write_town(tmp_path / "metres.gpkg", scale=0.3048)
    refused(r"parcels: parcel areas are 10\.76× smaller than the Assessors' lot sizes", path=p)


def test_degrees_labelled_as_feet_are_refused(assessed, tmp_path):
    # the town scaled down to degree-sized numbers (x ≈ -72.58, y ≈ 42.05), labelled EPSG:2249 feet
    p = write_town(tmp_path / "deg.gpkg", scale=0.0001, origin=(-725800.0, 420500.0))
    refused(r"degrees", path=p)


def test_an_empty_impervious_layer_is_refused(assessed, tmp_path):
    p = write_town(tmp_path / "town.gpkg", buildings=False)
    refused(r"buildings: .*no features", path=p)


def test_an_empty_parcel_layer_is_refused(assessed, tmp_path):
    p = write_town(tmp_path / "town.gpkg", parcels=False)
    refused(r"parcels: .*no features", path=p)


def test_the_parcel_layer_given_as_impervious_is_refused(assessed, tmp_path):
    p = write_town(tmp_path / "town.gpkg")
    refused(r"polygons match the parcels", path=p, impervious="parcels")


def test_a_second_survey_reports_its_effect_on_the_bill_before_it_is_imported(assessed, tmp_path):
    from stormwater.gis.selectors import survey_changes
    from stormwater.gis.services import LayerSpec, SurveySpec, survey_import

    from stormwater.parcels.models import Parcel

    Parcel.objects.filter(parcel_id="P-1").update(land_use_code="340")  # billed by its impervious area
    first = write_town(tmp_path / "first.gpkg")
    gis_import(first, on="2026-01-01")
    later = write_town(tmp_path / "later.gpkg", more=[(0, 0, 100, 90)])  # P-1 paved over: 400 → 9,000 ft²

    def spec():
        return SurveySpec(parcels=LayerSpec(str(later), "parcels"), id_field="PID",
                          impervious=[LayerSpec(str(later), "buildings"), LayerSpec(str(later), "more")],
                          right_of_way=[LayerSpec(str(later), "row")])

    dry = survey_import(spec=spec(), name="Later", surveyed_on=date(2026, 6, 1), acting_user=None, dry_run=True)
    cmp = dry.report["comparison"]
    assert ImperviousSurvey.objects.count() == 1
    assert cmp["previous_survey"]["name"] == "Survey" and cmp["parcels_impervious_changed"] == 1
    assert [r["parcel_id"] for r in cmp["rows"]] == ["P-1"] and cmp["parcels_erus_changed"] == 1
    out = survey_import(spec=spec(), name="Later", surveyed_on=date(2026, 6, 1), acting_user=None)
    real = survey_changes(survey_from=ImperviousSurvey.objects.get(name="Survey"), survey_to=out.survey,
                          as_of=date(2026, 6, 1))
    assert Decimal(cmp["annual_fee_change"]) == real.fee_delta != 0
    assert Decimal(cmp["town_total_after"]) - Decimal(cmp["town_total_before"]) == real.fee_delta


def test_the_same_layers_imported_again_change_nothing(assessed, tmp_path):
    p = write_town(tmp_path / "town.gpkg")
    gis_import(p)
    gis_import(p)
    assert ImperviousSurvey.objects.count() == 1


def test_an_unreadable_upload_is_shown_on_the_mapping_page(assessed, personas, client_for, tmp_path):
    from stormwater.gis.models import GisImport

    c = client_for(personas["assessor"])
    pdf = tmp_path / "layers.gpkg"
    pdf.write_bytes(b"%PDF-1.4\n" + b"x" * 2000)
    good = write_town(tmp_path / "town.gpkg")
    with pdf.open("rb") as a, good.open("rb") as b:
        r = c.post("/gis/imports/new/", {"kind": "layers", "files": [a, b]})
    assert r.status_code == 302
    gi = GisImport.objects.get()
    page = c.get(f"/gis/imports/{gi.pk}/")
    assert page.status_code == 200 and "layers.gpkg" in page.content.decode()
    assert "cannot be read" in page.content.decode()


def test_the_same_layers_imported_again_on_the_web_say_nothing_changed(assessed, personas, client_for, run_worker,
                                                                        tmp_path):
    from stormwater.gis.models import GisImport
    from stormwater.gis.selectors import upload_sources

    p = write_town(tmp_path / "town.gpkg")
    gis_import(p)
    c = client_for(personas["staff"])
    with p.open("rb") as f:
        c.post("/gis/imports/new/", {"kind": "layers", "files": f})
    gi = GisImport.objects.get()
    names = [s["layer"] for s in upload_sources(gi) if s["geometry_type"]]
    post = {"parcels": "town.gpkg|parcels", "id_field": "PID", "name": "Again", "surveyed_on": "2026-05-01"}
    for i, n in enumerate(names):
        post[f"role_{i}"] = {"row": "right_of_way", "parcels": ""}.get(n, "impervious")
    c.post(f"/gis/imports/{gi.pk}/", post)
    run_worker()
    c.post(f"/gis/imports/{gi.pk}/commit/")
    run_worker()
    gi.refresh_from_db()
    assert gi.status == "imported" and gi.survey is None and ImperviousSurvey.objects.count() == 1
    page = c.get(f"/gis/imports/{gi.pk}/")
    assert page.status_code == 200 and "Nothing changed" in page.content.decode()
