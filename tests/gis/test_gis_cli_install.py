"""The GIS command line as a town installs it (issue 14).

`stormwater gis impervious ... --gpkg FILE` crashed on the North Cambridge sample with ``FieldError: Error
adding field 'fid'``: the GeoPackage driver keeps ``fid`` for its own integer feature id, and the overlay's
pieces carried the source feature id, a string, under that name. And ``--dask`` without the optional Dask
extra installed says how to get it instead of an ImportError."""
from __future__ import annotations

import csv

import importlib.util

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from stormwater.demo import DEMO_GIS_IMPERVIOUS, DEMO_GPKG


def _cambridge_args(out, gpkg):
    g = str(DEMO_GPKG)
    args = ["gis", "impervious", "--parcels", f"{g}:parcels_fy2014", "--id", "ML"]
    for layer in DEMO_GIS_IMPERVIOUS:
        args += ["--impervious", f"{g}:{layer}"]
    return [*args, "--right-of-way", f"{g}:roads", "--right-of-way", f"{g}:sidewalks", "--out", str(out),
            "--gpkg", str(gpkg)]


def test_gis_impervious_writes_a_geopackage_for_the_north_cambridge_sample(tmp_path):
    import pyogrio

    out, gpkg = tmp_path / "out.csv", tmp_path / "out.gpkg"
    call_command(*_cambridge_args(out, gpkg))

    rows = {r["parcel_id"]: r for r in csv.DictReader(out.open())}
    assert {name for name, _ in pyogrio.list_layers(gpkg)} == {"parcels", "impervious_pieces"}
    parcels = pyogrio.read_dataframe(gpkg, layer="parcels")
    pieces = pyogrio.read_dataframe(gpkg, layer="impervious_pieces")
    # Every parcel of the CSV is in the GeoPackage with the same area; 198-16 is the one docs/gis.md quotes.
    assert len(parcels) == len(rows) == 149  # 150 polygons, 199-175 in two pieces
    by_id = dict(zip(parcels["parcel_id"], parcels["impervious_sqft"]))
    assert {k: f"{v:.2f}" for k, v in by_id.items()} == {k: r["impervious_sqft"] for k, r in rows.items()}
    assert rows["198-16"]["impervious_sqft"] == "2357.34"
    # The pieces keep the source layer's feature id (as `stormwater gis export` names it: source_fid).
    assert {"parcel_id", "layer", "source_fid", "area_sqft"} <= set(pieces.columns)
    assert set(pieces["layer"]) <= set(DEMO_GIS_IMPERVIOUS) and len(pieces) > 149
    one = pieces[pieces["parcel_id"] == "198-16"]
    assert one["area_sqft"].sum() >= 2357.34 - 0.01  # overlapping layers count once in the parcel's total


def test_gis_impervious_geopackage_on_the_synthetic_town(synthetic_gpkg, tmp_path):
    import pyogrio

    g = str(synthetic_gpkg)
    call_command("gis", "impervious", "--parcels", f"{g}:parcels", "--id", "PID", "--impervious", f"{g}:buildings",
                 "--impervious", f"{g}:patios", "--impervious", f"{g}:driveways", "--right-of-way", f"{g}:row",
                 "--out", str(tmp_path / "o.csv"), "--gpkg", str(tmp_path / "o.gpkg"))
    parcels = pyogrio.read_dataframe(tmp_path / "o.gpkg", layer="parcels")
    assert dict(zip(parcels["parcel_id"], parcels["impervious_sqft"])) == pytest.approx({"P-1": 800.0, "P-2": 200.0})
    pieces = pyogrio.read_dataframe(tmp_path / "o.gpkg", layer="impervious_pieces")
    assert sorted(pieces["source_fid"].astype(str)) == ["1", "1", "1", "1", "2"]


def test_dask_without_the_optional_extra_says_how_to_install_it(synthetic_gpkg, tmp_path, monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "distributed" else real(name, *a))
    g = str(synthetic_gpkg)
    with pytest.raises(CommandError, match=r"--dask needs the optional Dask packages.*longmeadow-stormwater\[dask\]"):
        call_command("gis", "impervious", "--parcels", f"{g}:parcels", "--id", "PID", "--impervious",
                     f"{g}:buildings", "--dask", "local", "--out", str(tmp_path / "o.csv"))
