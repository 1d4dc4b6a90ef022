"""Benchmark: per-parcel impervious area, stormwater.gis.overlay vs geopandas.overlay on the same data.

    .venv/bin/python benchmarks/gis_overlay.py --parcels 100000 --impervious 300000 [--partitions 8]

Generated town: a grid of square parcels (100 ft), impervious rectangles of 5–40 ft placed at
random, a share of them across parcel lines (--crossing, default 0.15), none overlapping another
(so the union per parcel equals geopandas.overlay's sum of intersections and the two can be
compared to 0.01 ft² per parcel). Both run in the same process; prints both times, the speed-up
and the largest per-parcel difference. No database, no Django.
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import shapely


def generate(n_parcels: int, n_imp: int, crossing: float, seed: int = 1):
    side = int(np.ceil(np.sqrt(n_parcels)))
    ii, jj = np.divmod(np.arange(n_parcels), side)
    x0, y0 = 700000.0 + ii * 100.0, 2900000.0 + jj * 100.0
    parcels = shapely.box(x0, y0, x0 + 100, y0 + 100)
    rng = np.random.default_rng(seed)
    per = max(1, n_imp // n_parcels)
    # Per parcel `per` slots in a row of disjoint cells; a crossing feature sits on the parcel's east line.
    owner = np.repeat(np.arange(n_parcels), per)[:n_imp]
    slot = np.tile(np.arange(per), n_parcels)[:n_imp]
    w = rng.uniform(5, 20, n_imp)
    h = rng.uniform(5, 20, n_imp)
    cell = 80.0 / per
    px, py = x0[owner], y0[owner]
    x = px + 5 + slot * cell
    y = py + 5 + rng.uniform(0, 60, n_imp)
    w = np.minimum(w, cell - 1)
    cross = rng.random(n_imp) < crossing
    last = slot == per - 1
    cross &= last  # only the last slot may cross the east line (so nothing overlaps)
    w = np.where(cross, np.minimum(w, 9.0), w)  # reaches < 5 ft into the neighbour: clear of its first cell
    x = np.where(cross, px + 100 - w / 2, x)
    imp = shapely.box(x, y, x + w, y + h)
    return parcels, imp


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--parcels", type=int, default=100_000)
    ap.add_argument("--impervious", type=int, default=300_000)
    ap.add_argument("--crossing", type=float, default=0.15)
    ap.add_argument("--partitions", type=int, default=1)
    args = ap.parse_args()
    import geopandas as gpd
    import pandas as pd

    from stormwater.gis import overlay

    parcels, imp = generate(args.parcels, args.impervious, args.crossing)
    ids = np.array([f"P{i}" for i in range(len(parcels))], dtype=object)
    print(f"{len(parcels):,} parcels, {len(imp):,} impervious polygons", file=sys.stderr)

    t = time.perf_counter()
    play = overlay.Layer("parcels", ids, parcels.copy())
    ilay = overlay.Layer("imp", np.arange(len(imp)).astype(str).astype(object), imp.copy())
    ours = overlay.impervious_partitioned(play, [ilay], [], partitions=args.partitions, keep_pieces=False)
    t_ours = time.perf_counter() - t

    t = time.perf_counter()
    pg = gpd.GeoDataFrame({"parcel_id": ids}, geometry=parcels, crs=2249)
    ig = gpd.GeoDataFrame({"k": np.arange(len(imp))}, geometry=imp, crs=2249)
    ref = gpd.overlay(pg, ig, how="intersection", keep_geom_type=True)
    ref_area = ref.assign(a=ref.area).groupby("parcel_id")["a"].sum().reindex(ids, fill_value=0.0)
    t_ref = time.perf_counter() - t

    diff = np.abs(ours.areas["impervious_sqft"].to_numpy() - pd.Series(ref_area).to_numpy())
    print(f"stormwater.gis.overlay: {t_ours:8.2f} s   (partitions={args.partitions})")
    print(f"geopandas.overlay:      {t_ref:8.2f} s")
    print(f"speed-up: {t_ref / t_ours:.2f}x   largest per-parcel difference: {diff.max():.6f} ft²")
    return 0 if diff.max() <= 0.01 else 1


if __name__ == "__main__":
    raise SystemExit(main())
