"""Imports into the database: assessor records, dated surveys with history, ERU, change report, fee path."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from stormwater.audit.models import AuditEvent
from stormwater.gis import assessor
from stormwater.gis.models import ImperviousPiece, ParcelShape, SurveyParcelFacts
from stormwater.gis.selectors import eru_determination, parcel_geojson, survey_changes
from stormwater.gis.services import LayerSpec, SurveySpec, assessor_records_import, survey_import
from stormwater.imports.pipeline import ImportRefused
from stormwater.parcels.models import Owner, Parcel, ParcelImpervious
from stormwater.parcels.selectors import parcel_impervious
from stormwater.utility.selectors import parcel_fee

from .conftest import ASSESSOR_MAP


def _import_assessor(path, user=None, dry_run=False):
    cols, rows = assessor.read_table(str(path))
    records, problems = assessor.map_rows(rows, ASSESSOR_MAP)
    return assessor_records_import(records=records, problems=problems, source=path.name, acting_user=user,
                                   dry_run=dry_run)


def _spec(path, *layers):
    return SurveySpec(parcels=LayerSpec(str(path), "parcels"), id_field="PID",
                      impervious=[LayerSpec(str(path), lyr) for lyr in layers],
                      right_of_way=[LayerSpec(str(path), "row")])


@pytest.fixture
def imported(db, personas, synthetic_assessor_csv):
    _import_assessor(synthetic_assessor_csv, personas["assessor"])
    return Parcel.objects.in_bulk(field_name="parcel_id")


def test_assessor_import_creates_parcels_and_owners_with_audit_rows(db, personas, synthetic_assessor_csv):
    res = _import_assessor(synthetic_assessor_csv, personas["assessor"])
    assert sorted(res.created) == ["P-1", "P-2", "P-3"] and res.owners_created == 2
    p1 = Parcel.objects.get(parcel_id="P-1")
    assert (p1.address, p1.land_use_code, p1.dwelling_units, p1.lot_sqft) == ("1 Test St", "101", 1, Decimal("10000.00"))
    assert p1.owner.mailing_address == "1 Test St\nLongmeadow, MA 01106"
    assert Parcel.objects.get(parcel_id="P-3").dwelling_units == 2  # 0 on a 104 row: from the code, said so
    codes = {p.code: p.ids for p in res.problems}
    assert codes["missing_id"] == ["row 5"] and codes["units_from_use_code"] == ["P-3"]
    ev = AuditEvent.objects.filter(action="parcel.import")
    assert ev.count() == 3 and ev.first().actor == personas["assessor"]


def test_a_dry_run_writes_nothing_and_a_rerun_changes_only_what_changed(db, synthetic_assessor_csv, tmp_path):
    assert _import_assessor(synthetic_assessor_csv, dry_run=True).created == ["P-1", "P-2", "P-3"]
    assert Parcel.objects.count() == 0 and Owner.objects.count() == 0
    _import_assessor(synthetic_assessor_csv)
    changed = tmp_path / "assessor2.csv"
    changed.write_text(synthetic_assessor_csv.read_text().replace("P-2,3 Test St,Shops LLC,PO Box 1,\"Springfield, MA 01101\",325,,10000",
                                                                  "P-2,3 Test St,Shops LLC,PO Box 1,\"Springfield, MA 01101\",340,,12000"))
    res = _import_assessor(changed)
    assert res.updated == ["P-2"] and res.unchanged == 2
    ev = AuditEvent.objects.filter(action="parcel.import", object_id=str(Parcel.objects.get(parcel_id="P-2").pk)).order_by("id").last()
    assert ev.data["changes"]["land_use_code"] == ["325", "340"]


def test_condominium_unit_rows_are_combined_into_their_parcel():
    rows = [{"ML": "1-1", "Location": "73 Pemberton St", "UseCode": "199", "LandArea": "4210"},
            *[{"ML": "1-1", "Location": f"71 Pemberton St #{i}", "UseCode": "102", "LandArea": "0"} for i in (1, 2, 3)],
            {"ML": "1-2", "Location": "5 Main", "UseCode": "325", "LandArea": "100"},
            {"ML": "1-2", "Location": "5 Main rear", "UseCode": "325", "LandArea": "50"}]
    records, problems = assessor.map_rows(rows, assessor.PRESETS["Cambridge assessing"])
    by = {r.parcel_id: r for r in records}
    assert (by["1-1"].land_use_code, by["1-1"].dwelling_units, by["1-1"].address) == ("102", 3, "73 Pemberton St")
    assert by["1-2"].lot_sqft == Decimal("100.00")
    codes = {p.code: p.ids for p in problems}
    assert codes["condominium_combined"] == ["1-1 (3 units)"]
    assert codes["duplicate_id"] == ["1-2: kept row 6, not imported rows 7"]


def test_a_survey_import_stores_areas_by_layer_pieces_and_shapes(imported, personas, synthetic_gpkg):
    out = survey_import(spec=_spec(synthetic_gpkg, "buildings", "patios", "driveways"), name="2026 flyover",
                        surveyed_on=date(2026, 4, 1), acting_user=personas["staff"])
    s = out.survey
    a1 = ParcelImpervious.objects.get(survey=s, parcel__parcel_id="P-1")
    a2 = ParcelImpervious.objects.get(survey=s, parcel__parcel_id="P-2")
    assert a1.impervious_sqft == Decimal("800.00")  # 400 + 400 − 100 overlap + 100 of the split driveway
    assert a1.by_layer == {"buildings": 400.0, "patios": 400.0, "driveways": 100.0}
    assert a2.impervious_sqft == Decimal("200.00") and a2.by_layer == {"driveways": 200.0}  # 100 of D2 was ROW
    assert ImperviousPiece.objects.filter(survey=s).count() == 5
    assert ParcelShape.objects.get(survey=s, parcel__parcel_id="P-1").area_sqft == Decimal("10000.00")
    assert SurveyParcelFacts.objects.get(survey=s, parcel__parcel_id="P-2").property_class == "nonresidential"
    codes = {p["code"]: p["ids"] for p in out.report["problems"]}
    assert codes["parcel_without_polygon"] == ["P-3"]   # assessor parcel, no polygon: reported
    assert codes["outside_parcels"] == ["3"]             # D3 in the street gap
    assert out.report["row_removed_sqft"]["driveways"] == 100.0
    ev = AuditEvent.objects.get(action="gis.survey_import")
    assert ev.actor == personas["staff"] and ev.object_id == str(s.pk)


def test_polygons_without_an_assessor_record_are_reported_not_stored(db, synthetic_gpkg):
    out = survey_import(spec=_spec(synthetic_gpkg, "buildings"), name="x", surveyed_on=date(2026, 4, 1),
                        acting_user=None, dry_run=True)
    codes = {p["code"]: p["ids"] for p in out.report["problems"]}
    assert codes["polygon_without_parcel"] == ["P-1", "P-2"]
    # none on record: an empty survey is refused (issue 26), not stored
    assert "no_parcel_matches" in codes
    with pytest.raises(ImportRefused, match="none of the layer's 2 parcel ids"):
        survey_import(spec=_spec(synthetic_gpkg, "buildings"), name="x", surveyed_on=date(2026, 4, 1), acting_user=None)
    assert ParcelImpervious.objects.count() == 0


def test_a_dry_run_survey_writes_nothing(imported, synthetic_gpkg):
    out = survey_import(spec=_spec(synthetic_gpkg, "buildings"), name="x", surveyed_on=date(2026, 4, 1),
                        acting_user=None, dry_run=True)
    assert out.survey is None and out.report["parcels_matched"] == 2 and ParcelImpervious.objects.count() == 0


def test_surveys_keep_history_and_the_fee_uses_the_one_in_force(imported, resolution, synthetic_gpkg,
                                                                synthetic_gpkg_later, at):
    at(date(2027, 8, 1))  # a survey is never dated in the future (issue 26)
    survey_import(spec=_spec(synthetic_gpkg, "buildings", "patios", "driveways"), name="2026",
                  surveyed_on=date(2026, 4, 1), acting_user=None)
    survey_import(spec=_spec(synthetic_gpkg_later, "buildings", "driveways"), name="2027",
                  surveyed_on=date(2027, 4, 1), acting_user=None)
    p2 = imported["P-2"]
    assert parcel_impervious(p2, as_of=date(2026, 12, 1)).impervious_sqft == Decimal("200.00")
    assert parcel_impervious(p2, as_of=date(2027, 12, 1)).impervious_sqft == Decimal("600.00")  # + 400 garage
    assert ParcelImpervious.objects.filter(parcel=p2).count() == 2  # history kept
    # The fee engine reads the survey in force: 600 ft² / 3,400 → 1 ERU (nonresidential, code 325).
    assert parcel_fee(p2, as_of=date(2027, 12, 1)).fee.erus == 1


def test_eru_is_the_median_of_single_family_areas(db, personas):
    from stormwater.parcels.models import ImperviousSurvey

    s = ImperviousSurvey.objects.create(name="s", surveyed_on=date(2026, 4, 1))
    areas = [2000, 2600, 3000, 3400, 3800, 9000, 0]  # single family; median of 7 = 3000
    for i, a in enumerate(areas):
        p = Parcel.objects.create(parcel_id=f"SF-{i}", address=f"{i} Elm", land_use_code="1010", dwelling_units=1,
                                  lot_sqft=Decimal(8000))
        ParcelImpervious.objects.create(survey=s, parcel=p, impervious_sqft=Decimal(a))
    other = Parcel.objects.create(parcel_id="C-1", address="Mall", land_use_code="325", lot_sqft=Decimal(1))
    ParcelImpervious.objects.create(survey=s, parcel=other, impervious_sqft=Decimal(500000))  # not single family
    Parcel.objects.create(parcel_id="SF-X", address="no polygon", land_use_code="101", dwelling_units=1)
    det = eru_determination(survey=s)
    assert det.stats.n == 7 and det.stats.median_sqft == Decimal("3000") and det.stats.eru_sqft == Decimal("3000")
    # Tukey hinges: Q1 = median(0, 2000, 2600) = 2000, Q3 = median(3400, 3800, 9000) = 3800; fences −700 … 6500
    assert (det.stats.q1_sqft, det.stats.q3_sqft) == (Decimal("2000"), Decimal("3800"))
    why = {o["parcel_id"]: o["why"] for o in det.outliers}
    assert why == {"SF-5": "outside Tukey's fences; more than the lot size", "SF-6": "no impervious area mapped"}
    assert "9000" in str(det.as_json()["outliers"]) and det.excluded == [{"parcel_id": "SF-X", "address": "no polygon"}]
    assert sum(b["count"] for b in det.as_json()["histogram"]) == 7


def test_the_change_report_lists_ground_and_fee_changes(imported, resolution, synthetic_gpkg, synthetic_gpkg_later,
                                                         at):
    at(date(2027, 8, 1))  # a survey is never dated in the future (issue 26)
    a = survey_import(spec=_spec(synthetic_gpkg, "buildings", "patios", "driveways"), name="2026",
                      surveyed_on=date(2026, 4, 1), acting_user=None).survey
    b = survey_import(spec=_spec(synthetic_gpkg_later, "buildings", "driveways"), name="2027",
                      surveyed_on=date(2027, 4, 1), acting_user=None).survey
    rep = survey_changes(survey_from=a, survey_to=b, as_of=date(2027, 7, 1))
    # P-1 is small residential (flat fee: the patio removal changes no ERU and no fee); P-2 stays at 1 ERU.
    assert rep.rows == [] or all(r.fee_delta == 0 for r in rep.rows)
    # Make P-2 big enough to cross an ERU: a 20x20 garage → 600 ft²; with an ERU of 400 ft² 200 → 1, 600 → 2 ERUs.
    # A resolution is never edited (append-only): the Select Board's change is a new resolution in force by then.
    from stormwater.rules.fees import TABLE_1_BLOCKS
    from stormwater.utility.services import resolution_adopt

    resolution_adopt(label="ERU of 400 ft²", adopted_on=date(2027, 6, 1), effective_from=date(2027, 7, 1),
                     eru_sqft=Decimal("400"), rate_per_eru=resolution.rate_per_eru,
                     small_residential_rate=resolution.small_residential_rate, installments=resolution.installments,
                     interest_rate_percent=resolution.interest_rate_percent, demand_charge=resolution.demand_charge,
                     blocks=list(TABLE_1_BLOCKS), acting_user=None)
    rep = survey_changes(survey_from=a, survey_to=b, as_of=date(2027, 7, 1))
    (row,) = rep.rows
    assert (row.parcel_id, row.erus_from, row.erus_to) == ("P-2", 1, 2)
    assert (row.fee_from, row.fee_to, row.fee_delta) == (Decimal("53.16"), Decimal("106.32"), Decimal("53.16"))
    gj = __import__("stormwater.gis.selectors", fromlist=["x"]).changes_geojson(report=rep)
    kinds = sorted(f["properties"]["kind"] for f in gj["features"])
    assert kinds == ["added", "parcel"]
    added = next(f for f in gj["features"] if f["properties"]["kind"] == "added")
    assert added["properties"]["area_sqft"] == "400.00"


def test_parcel_geojson_is_in_lon_lat_with_pieces_by_layer(imported, synthetic_gpkg):
    survey_import(spec=_spec(synthetic_gpkg, "buildings", "patios", "driveways"), name="2026",
                  surveyed_on=date(2026, 4, 1), acting_user=None)
    gj = parcel_geojson(parcel=imported["P-1"])
    assert gj["layers"] == ["buildings", "driveways", "patios"]
    lon, lat = gj["features"][0]["geometry"]["coordinates"][0][0]
    assert -73.5 < lon < -69.9 and 41.2 < lat < 42.9  # Massachusetts
    assert len(gj["features"]) == 4
