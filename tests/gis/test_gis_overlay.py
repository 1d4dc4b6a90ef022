"""The pure overlay (no Django): hand-computed areas of synthetic squares, validation, partitions.

Ch. 295 Art. IV ¶E (impervious area of a parcel from GIS layers) and ¶F (right-of-way excluded).
"""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import shapely

from stormwater.gis import overlay

from .conftest import X0, Y0, box


def layer(name, *geoms):
    return overlay.clean_polygons(np.arange(1, len(geoms) + 1), list(geoms), layer=name)[0]


def parcels(*pairs):
    return overlay.Layer("parcels", np.array([p for p, _ in pairs], dtype=object),
                         np.array([g for _, g in pairs], dtype=object))


TOWN = parcels(("P-1", box(0, 0, 100, 100)), ("P-2", box(100, 0, 200, 100)))


def test_a_polygon_wholly_inside_a_parcel_counts_whole():
    r = overlay.impervious_by_parcel(TOWN, [layer("buildings", box(10, 10, 30, 30))])
    assert r.areas.loc["P-1", "impervious_sqft"] == pytest.approx(400.0)
    assert r.areas.loc["P-2", "impervious_sqft"] == 0.0


def test_overlaps_between_layers_count_once_in_the_total_but_fully_in_each_layer():
    r = overlay.impervious_by_parcel(TOWN, [layer("buildings", box(10, 10, 30, 30)),
                                            layer("patios", box(20, 20, 40, 40))])
    assert r.areas.loc["P-1", "buildings_sqft"] == pytest.approx(400.0)
    assert r.areas.loc["P-1", "patios_sqft"] == pytest.approx(400.0)
    assert r.areas.loc["P-1", "impervious_sqft"] == pytest.approx(700.0)  # 400 + 400 − 100 shared


def test_overlaps_within_one_layer_count_once():
    r = overlay.impervious_by_parcel(TOWN, [layer("driveways", box(0, 0, 20, 10), box(10, 0, 30, 10))])
    assert r.areas.loc["P-1", "driveways_sqft"] == pytest.approx(300.0)
    assert r.areas.loc["P-1", "impervious_sqft"] == pytest.approx(300.0)


def test_a_polygon_crossing_a_parcel_line_is_split_by_area():
    r = overlay.impervious_by_parcel(TOWN, [layer("driveways", box(90, 40, 110, 50))])
    assert r.areas.loc["P-1", "driveways_sqft"] == pytest.approx(100.0)
    assert r.areas.loc["P-2", "driveways_sqft"] == pytest.approx(100.0)
    assert sorted(r.pieces["parcel_id"]) == ["P-1", "P-2"]


def test_a_split_that_is_not_half_and_half():
    r = overlay.impervious_by_parcel(TOWN, [layer("driveways", box(70, 0, 110, 10))])  # 30 ft on P-1, 10 on P-2
    assert r.areas.loc["P-1", "impervious_sqft"] == pytest.approx(300.0)
    assert r.areas.loc["P-2", "impervious_sqft"] == pytest.approx(100.0)


def test_right_of_way_is_removed():
    row = layer("row", box(150, -10, 260, 110))
    r = overlay.impervious_by_parcel(TOWN, [layer("driveways", box(140, 0, 160, 10))], [row])
    assert r.areas.loc["P-2", "impervious_sqft"] == pytest.approx(100.0)
    assert r.row_removed_sqft["driveways"] == pytest.approx(100.0)


def test_impervious_on_no_parcel_is_reported_not_attributed():
    r = overlay.impervious_by_parcel(TOWN, [layer("driveways", box(300, 0, 310, 10))])
    assert r.areas["impervious_sqft"].sum() == 0.0
    p = next(p for p in r.problems if p.code == "outside_parcels")
    assert p.ids == ["1"] and r.outside_sqft["driveways"] == pytest.approx(100.0)


def test_the_whole_synthetic_town():
    r = overlay.impervious_by_parcel(
        TOWN, [layer("buildings", box(10, 10, 30, 30)), layer("patios", box(20, 20, 40, 40)),
               layer("driveways", box(90, 40, 110, 50), box(140, 0, 160, 10), box(300, 0, 310, 10))],
        [layer("row", box(150, -10, 260, 110))])
    got = r.areas.round(6).to_dict("index")
    assert got["P-1"] == {"impervious_sqft": 800.0, "buildings_sqft": 400.0, "patios_sqft": 400.0,
                          "driveways_sqft": 100.0}
    assert got["P-2"] == {"impervious_sqft": 200.0, "buildings_sqft": 0.0, "patios_sqft": 0.0,
                          "driveways_sqft": 200.0}


def random_town(seed=7, n=12, features=600):
    """An n×n grid of 100 ft parcels and ``features`` random 5–40 ft boxes (overlapping, crossing lines)."""
    rng = np.random.default_rng(seed)
    grid = parcels(*[(f"{i}-{j}", box(i * 100, j * 100, i * 100 + 100, j * 100 + 100))
                     for i in range(n) for j in range(n)])
    xs, ys = rng.uniform(0, n * 100 - 20, features), rng.uniform(0, n * 100 - 20, features)
    imp = layer("imp", *[box(x, y, x + rng.uniform(5, 40), y + rng.uniform(5, 40)) for x, y in zip(xs, ys)])
    return grid, imp


def test_partitioned_runs_give_the_same_areas():
    grid, imp = random_town()
    row = [layer("row", box(0, 595, 1200, 605))]
    one = overlay.impervious_by_parcel(grid, [imp], row)
    many = overlay.impervious_partitioned(grid, [imp], row, partitions=7)
    assert np.allclose(one.areas.to_numpy(), many.areas.to_numpy(), atol=1e-6)
    assert many.row_removed_sqft["imp"] == pytest.approx(one.row_removed_sqft["imp"])
    assert many.outside_sqft["imp"] == pytest.approx(one.outside_sqft["imp"], abs=1e-6)


def test_a_polygon_drawn_up_to_the_parcel_line_goes_whole_to_its_parcel():
    # A zero-lot-line building on P-1 whose east wall is the P-1/P-2 line: wholly P-1's, nothing on P-2.
    r = overlay.impervious_by_parcel(TOWN, [layer("buildings", box(80, 20, 100, 40))])
    assert r.areas.loc["P-1", "impervious_sqft"] == pytest.approx(400.0)
    assert r.areas.loc["P-2", "impervious_sqft"] == 0.0
    assert list(r.pieces["parcel_id"]) == ["P-1"] and not r.problems


def test_threads_split_by_parcel_give_the_same_answer(monkeypatch):
    grid, imp = random_town()
    row = [layer("row", box(0, 595, 1200, 605))]
    one = overlay.impervious_by_parcel(grid, [imp], row, threads=1)
    monkeypatch.setattr(overlay, "MIN_PAIRS_PER_THREAD", 1)  # force the split even on this small town
    calls = []
    real = overlay._by_parcel

    def spy(func, idx, threads, *arrays):
        calls.append(min(threads, len(idx)))
        return real(func, idx, threads, *arrays)

    monkeypatch.setattr(overlay, "_by_parcel", spy)
    many = overlay.impervious_by_parcel(grid, [imp], row, threads=3)
    assert calls and max(calls) == 3
    assert np.allclose(one.areas.to_numpy(), many.areas.to_numpy(), atol=1e-9)
    key = ["parcel_id", "fid"]
    a, b = one.pieces.sort_values(key).reset_index(drop=True), many.pieces.sort_values(key).reset_index(drop=True)
    assert list(a["parcel_id"]) == list(b["parcel_id"]) and np.allclose(a["area_sqft"], b["area_sqft"])


def test_threads_default_from_the_environment(monkeypatch):
    monkeypatch.setenv("STORMWATER_GIS_THREADS", "3")
    assert overlay.default_threads() == 3
    monkeypatch.setenv("STORMWATER_GIS_THREADS", "")
    assert 1 <= overlay.default_threads() <= 8


def test_overlap_pairs_found_in_small_and_large_parcels_alike(monkeypatch):
    """The pairs of pieces tested for overlap: every same-parcel pair whose envelopes overlap,
    whether the parcel's pieces are enumerated pairwise or (many pieces) through a tree."""
    rng = np.random.default_rng(3)
    key = rng.integers(0, 6, 300)
    lo = rng.uniform(0, 100, (300, 2))
    bounds = np.column_stack([lo, lo + rng.uniform(0, 15, (300, 2))])
    bx = bounds
    brute = {(i, j) for i in range(300) for j in range(i + 1, 300) if key[i] == key[j]
             and bx[i, 0] < bx[j, 2] and bx[j, 0] < bx[i, 2] and bx[i, 1] < bx[j, 3] and bx[j, 1] < bx[i, 3]}
    for small in (64, 10):  # 300 pieces in 6 parcels: ~50 each, so 10 sends every parcel to the tree
        monkeypatch.setattr(overlay, "SMALL_GROUP", small)
        a, b = overlay._same_group_pairs(key, bounds)
        assert {(min(i, j), max(i, j)) for i, j in zip(a.tolist(), b.tolist())} == brute


def test_same_areas_as_geopandas_overlay_where_nothing_overlaps():
    import geopandas as gpd

    grid = parcels(*[(f"{i}-{j}", box(i * 100, j * 100, i * 100 + 100, j * 100 + 100))
                     for i in range(6) for j in range(6)])
    geoms = [box(x, y, x + 30, y + 30) for x in range(5, 600, 45) for y in range(5, 600, 45)]  # disjoint
    r = overlay.impervious_by_parcel(grid, [layer("imp", *geoms)])
    p = gpd.GeoDataFrame({"parcel_id": grid.fids}, geometry=list(grid.geoms), crs=2249)
    i = gpd.GeoDataFrame({"k": range(len(geoms))}, geometry=geoms, crs=2249)
    ref = gpd.overlay(p, i, how="intersection", keep_geom_type=True)
    ref = ref[ref.area > 0]
    ref_areas = ref.assign(a=ref.area).groupby("parcel_id")["a"].sum()
    for pid, area in ref_areas.items():
        assert r.areas.loc[pid, "impervious_sqft"] == pytest.approx(area, abs=0.01)


# ---- validation -------------------------------------------------------------------------------

def test_invalid_polygons_are_repaired_and_reported():
    bowtie = shapely.Polygon([(X0, Y0), (X0 + 10, Y0 + 10), (X0 + 10, Y0), (X0, Y0 + 10)])  # two 25 ft² triangles
    lyr, problems = overlay.clean_polygons(["a"], [bowtie], layer="patios")
    assert lyr.geoms[0].is_valid and lyr.geoms[0].area == pytest.approx(50.0)
    p = next(p for p in problems if p.code == "invalid_repaired")
    assert p.ids == ["a"] and "Self-intersection" in p.message


def test_points_lines_empty_and_collapsed_features_are_reported_never_silently_dropped():
    flat = shapely.Polygon([(X0, Y0), (X0 + 10, Y0), (X0 + 20, Y0)])  # invalid, no area
    lyr, problems = overlay.clean_polygons(
        ["pt", "ln", "none", "flat", "ok"],
        [shapely.Point(X0, Y0), shapely.LineString([(X0, Y0), (X0 + 1, Y0)]), None, flat, box(0, 0, 1, 1)],
        layer="other")
    assert list(lyr.fids) == ["ok"]
    by = {p.code: p.ids for p in problems}
    assert by["not_polygon"] == ["pt", "ln"]
    assert by["empty_geometry"] == ["none"]
    assert by["invalid_no_area"] == ["flat"]


def test_duplicate_parcel_ids_are_combined_and_reported():
    import pandas as pd

    df = pd.DataFrame({"PID": ["A", "A", "B", None],
                       "geometry": [box(0, 0, 10, 10), box(10, 0, 20, 10), box(50, 0, 60, 10), box(80, 0, 90, 10)]})
    lyr, row, problems = overlay.prepare_parcels(df, id_field="PID")
    assert list(lyr.fids) == ["A", "B"] and lyr.geoms[0].area == pytest.approx(200.0)
    by = {p.code: p.ids for p in problems}
    assert by["duplicate_id"] == ["A (×2)"]
    assert by["missing_id"] == ["feature 4"]


def test_right_of_way_rows_in_the_parcel_layer_become_right_of_way():
    import pandas as pd

    df = pd.DataFrame({"MBL": ["1-1", "ROW-1"], "PolyType": ["PARCEL", "ROW"],
                       "geometry": [box(0, 0, 100, 100), box(100, 0, 120, 100)]})
    lyr, row, problems = overlay.prepare_parcels(df, id_field="MBL", row_where={"PolyType": ["ROW", "RR ROW"]})
    assert list(lyr.fids) == ["1-1"] and list(row.fids) == ["ROW-1"]
    assert any(p.code == "row_in_parcels" and p.ids == ["ROW-1"] for p in problems)


def test_a_file_without_crs_is_an_error_unless_a_source_crs_is_given(tmp_path):
    path = tmp_path / "nocrs.geojson"
    path.write_text('{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"id":"1"},'
                    '"geometry":{"type":"Polygon","coordinates":[[[0,0],[10,0],[10,10],[0,10],[0,0]]]}}]}')
    import pyogrio

    gdf = pyogrio.read_dataframe(path)
    target = tmp_path / "nocrs.gpkg"
    pyogrio.write_dataframe(gdf.set_crs(None, allow_override=True), target)
    with pytest.raises(overlay.LayerError, match="no coordinate reference system"):
        overlay.read_layer(str(target))
    df, problems = overlay.read_layer(str(target), source_crs="EPSG:2249")
    assert df["geometry"][0].area == pytest.approx(100.0)
    assert problems[0].code == "crs_assumed"


def test_an_engineering_crs_is_refused():
    with pytest.raises(overlay.LayerError, match="unknown coordinate reference system"):
        overlay.check_crs('ENGCRS["local",EDATUM["x"],CS[Cartesian,2],AXIS["x",east],AXIS["y",north],'
                          'LENGTHUNIT["metre",1]]', layer="x")


def test_metres_are_reprojected_to_state_plane_feet():
    # A 10 m × 10 m square in EPSG:26986 (MA Mainland, metres) is 1,076.39 US survey ft².
    sq = shapely.box(240000, 880000, 240010, 880010)
    out = overlay.to_target_crs(np.array([sq], dtype=object), "EPSG:26986")[0]
    assert out.area == pytest.approx(100 / 0.3048006096**2, rel=1e-6)


def test_parse_source_splits_path_and_layer(tmp_path):
    assert overlay.parse_source("a/b.gpkg:parcels") == ("a/b.gpkg", "parcels")
    assert overlay.parse_source("a/b.geojson") == ("a/b.geojson", None)


def test_the_overlay_module_imports_no_django():
    code = ("import sys; import stormwater.gis.overlay, stormwater.gis.stats, stormwater.gis.assessor; "
            "bad=[m for m in sys.modules if m=='django' or m.startswith('django.')]; print(bad); assert not bad")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
