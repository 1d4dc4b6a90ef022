"""Issue 26 "Every file a town sends: a cut, mis-formatted or wrong-place file changes nothing and says why" — the
assessor, water/sewer and GIS files (each written failing first). Payment files: tests/receivables/
test_issue26_payment_files.py. Nothing in the database changes: tests/dbunchanged.py."""
from __future__ import annotations

import pytest
from dbunchanged import nothing_changed
from django.core.management import CommandError, call_command

from stormwater.parcels.models import Parcel

pytestmark = pytest.mark.django_db


def test_a_water_sewer_file_cut_inside_its_last_account_changes_nothing(assessed, tmp_path):
    Parcel.objects.filter(parcel_id="P-3").update(water_sewer_account="W000011")
    f = tmp_path / "accounts.csv"
    f.write_text("parcel_id,water_sewer_account\nP-1,W000101\nP-2,W000102\nP-3,W000")  # W000011 cut
    with nothing_changed(), pytest.raises(CommandError, match=r"accounts.csv: row 4 \(water_sewer_account\).*cut off"):
        call_command("imports", "water-sewer", str(f))
    assert Parcel.objects.get(parcel_id="P-3").water_sewer_account == "W000011"


MAP = ["--map", "parcel_id=PID", "--map", "address=ADDR", "--map", "land_use_code=LUC", "--map", "lot_size=LOT",
       "--lot-unit", "sqft"]


def assessor_file(tmp_path, rows: str, name="assessor.csv"):
    f = tmp_path / name
    f.write_text("PID,ADDR,LUC,LOT\n" + rows)
    return f


@pytest.mark.parametrize("rows, match", [
    # a decimal comma: 15589,5 used to be stored as 155,895 ft²
    ('P-1,1 Test St,101,"15589,5"\nP-2,3 Test St,325,10000\n', r"assessor.csv.*decimal comma.*row 2 \(LOT\): 15589,5"),
    # lot sizes in acres under a square-feet column: a units factor off the last value (10,000 ft² = 0.2296 acres)
    ("P-1,1 Test St,101,0.23\nP-2,3 Test St,325,0.23\nP-3,5 Test St,104,0.18\n",
     r"units factor off.*row 2 \(lot_size\): P-1 0.23 ft² against the last value 10,000.00 ft² — acres"),
    # …and a new parcel's 0.36 (acres) as square feet
    ("P-4,7 Test St,101,0.36\n", r"lot sizes under 100 ft².*row 2 \(lot_size\): P-4 0.36 ft²"),
    # Excel stripped the leading zeros: 1-02-66 is 01-02-66 on record and would be a second parcel
    ("1-02-66,9 Test St,101,10000\n", r"leading zeros.*row 2 \(parcel_id\): 1-02-66 is parcel 01-02-66 on record"),
])
def test_an_assessor_file_with_wrong_lots_or_ids_is_refused_before_anything_is_written(assessed, tmp_path, rows, match):
    Parcel.objects.create(parcel_id="01-02-66", address="9 Test St", land_use_code="101", lot_sqft=10000)
    f = assessor_file(tmp_path, rows)
    with nothing_changed(), pytest.raises(CommandError, match=match):
        call_command("gis", "assessor", str(f), *MAP)


def test_a_lot_against_its_polygon_is_checked_and_a_large_change_is_flagged_with_its_effect(assessed, tmp_path,
                                                                                              capsys):
    import json

    from stormwater.gis.models import ParcelShape
    from stormwater.parcels.models import ImperviousSurvey

    s = ImperviousSurvey.objects.create(name="s", surveyed_on="2026-01-01")
    p3 = Parcel.objects.get(parcel_id="P-3")
    Parcel.objects.filter(pk=p3.pk).update(lot_sqft=None)
    ParcelShape.objects.create(survey=s, parcel=p3, area_sqft=8000, geom_wkb=b"", minx=0, miny=0, maxx=1, maxy=1)
    with nothing_changed(), pytest.raises(CommandError, match=r"row 2 \(lot_size\): P-3 743.22 ft² against the "
                                                             r"parcel's polygon 8,000.00 ft² — m²"):
        call_command("gis", "assessor", str(assessor_file(tmp_path, "P-3,5 Test St,104,743.22\n")), *MAP)
    f = assessor_file(tmp_path, "P-1,1 Test St,101,30000\nP-2,3 Test St,325,11000\n", name="grown.csv")
    with nothing_changed():
        call_command("gis", "assessor", str(f), *MAP, "--dry-run")
    cap = capsys.readouterr()
    out = json.loads(cap.out)
    assert out["lot_effect"] == {"parcels_created": 0, "lots_changed": 2, "lot_change_sqft": "21000.00",
                                 "lots_flagged": 1}
    assert "[warning] assessor.csv: lot sizes more than 2× larger or smaller" not in cap.err  # the file's own name
    assert "grown.csv: lot sizes more than 2× larger or smaller than on record" in cap.err
    assert "row 2 (lot_size): P-1 10,000.00 → 30,000.00 ft²" in cap.err


def gis_import(path, *, parcels=None, impervious="buildings", on="2026-05-01", extra=()):
    call_command("gis", "import", "--parcels", f"{parcels or path}:parcels", "--id", "PID",
                 "--impervious", f"{path}:{impervious}", "--right-of-way", f"{path}:row", "--name", "Survey",
                 "--surveyed-on", on, *extra)


def test_state_plane_feet_labelled_wgs84_is_refused_not_a_crash(assessed, tmp_path):
    from .conftest import write_town

    p = write_town(tmp_path / "feet-as-degrees.gpkg", crs="EPSG:4326")
    with nothing_changed(), pytest.raises(CommandError, match=r"parcels: coordinates x 740,000 to 740,200, y "
                                                             r"2,930,000 to 2,930,100 cannot be degrees.*WGS 84"):
        gis_import(p)


def test_a_geojson_in_feet_with_no_crs_is_refused_through_the_api_with_400(assessed, tmp_path, client_for, personas):
    import json

    ring = [[740000, 2930000], [740100, 2930000], [740100, 2930100], [740000, 2930000]]
    gj = {"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {"PID": "P-1"}, "geometry": {"type": "Polygon", "coordinates": [ring]}}]}
    data = json.dumps(gj).encode()
    from django.core.files.uploadedfile import SimpleUploadedFile

    c = client_for(personas["staff"])
    with nothing_changed():
        r = c.post("/api/gis/layers/?dry_run=0", {
            "file": [SimpleUploadedFile("parcels.geojson", data), SimpleUploadedFile("roofs.geojson", data)],
            "parcels": "parcels.geojson", "id_field": "PID", "impervious": "roofs.geojson", "name": "S",
            "surveyed_on": "2026-05-01"})
    assert r.status_code == 400, r.content
    assert "parcels: coordinates x 740,000 to 740,100, y 2,930,000 to 2,930,100 cannot be degrees" in r.json()["error"]


@pytest.mark.parametrize("kw, where", [
    ({"scale": 0.3048}, r"latitude 36\.69"),                       # metres labelled EPSG:2249: the Atlantic
    ({"crs": "EPSG:2250"}, r"latitude 48\.96"),                    # mainland feet labelled as the Island zone
])
def test_a_layer_landing_outside_the_town_is_refused_naming_the_layer_and_where(assessed, tmp_path, kw, where):
    from .conftest import write_town

    p = write_town(tmp_path / "away.gpkg", **kw)
    with nothing_changed(), pytest.raises(CommandError, match=r"parcels: the layer lands at longitude .*" + where
                                          + r".*outside the town"):
        gis_import(p)


def test_a_survey_no_parcel_of_which_is_on_record_is_refused(db, tmp_path):
    from .conftest import write_town

    p = write_town(tmp_path / "town.gpkg")
    with nothing_changed(), pytest.raises(CommandError, match=r"none of the layer's 2 parcel ids \(field PID\) is a "
                                                             r"parcel on record \(e.g. P-1, P-2\)"):
        gis_import(p)


def test_a_survey_dated_in_the_future_is_refused(assessed, tmp_path):
    from .conftest import write_town

    p = write_town(tmp_path / "town.gpkg")
    with nothing_changed(), pytest.raises(CommandError, match=r"surveyed_on: 2099-05-01 is in the future"):
        gis_import(p, on="2099-05-01")


def test_an_impervious_layer_entirely_outside_the_parcels_is_refused(assessed, tmp_path):
    from .conftest import write_town

    p = write_town(tmp_path / "town.gpkg", elsewhere=[(1000, 1000, 1020, 1020), (2000, 2000, 2010, 2010)])
    with nothing_changed(), pytest.raises(CommandError, match=r"entirely outside the parcels \(500 ft² on no parcel"):
        gis_import(p, impervious="elsewhere")


def test_the_same_areas_under_other_layer_names_make_no_second_survey(assessed, tmp_path):
    from stormwater.parcels.models import ImperviousSurvey

    from .conftest import write_town

    p = write_town(tmp_path / "town.gpkg", roofs=[(10, 10, 30, 30), (110, 60, 130, 80)])
    gis_import(p)
    with nothing_changed(exclude=("imports.importrecord", "audit.auditevent")):
        gis_import(p, impervious="roofs")
    assert ImperviousSurvey.objects.count() == 1


def test_a_shapefile_without_its_dbf_says_so(assessed, tmp_path):
    import geopandas as gpd

    from .conftest import write_town

    town = write_town(tmp_path / "town.gpkg")
    shp = tmp_path / "shp"
    shp.mkdir()
    gpd.read_file(town, layer="parcels").to_file(shp / "parcels.shp")
    (shp / "parcels.dbf").unlink()
    with nothing_changed(), pytest.raises(CommandError, match=r"parcels.shp: the shapefile's parcels.dbf is missing "
                                                             r"\(the attribute table"):
        call_command("gis", "import", "--parcels", str(shp / "parcels.shp"), "--id", "PID", "--impervious",
                     f"{town}:buildings", "--name", "S", "--surveyed-on", "2026-05-01")
