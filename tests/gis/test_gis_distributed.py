"""The overlay as Dask tasks over dask-geopandas partitions gives the one-process answer
(Ch. 295 Art. IV ¶E impervious area per parcel, ¶F right-of-way not attributed).

The real North Cambridge data (features straddling parcel lines, invalid ones repaired, roads and
sidewalks as right-of-way, polygons on no parcel) runs on Dask's synchronous scheduler; a small
town runs on a real LocalCluster of two worker processes, as a statewide run would on a cluster.
"""
from __future__ import annotations

import numpy as np
import pytest

from stormwater.gis import distributed, overlay

from .conftest import CAMBRIDGE, box, need
from .test_gis_overlay import layer, parcels, random_town
from .test_gis_reference_data import CAMBRIDGE_IMPERVIOUS

pytest.importorskip("dask_geopandas")


def same(a: overlay.OverlayResult, b: overlay.OverlayResult):
    assert list(a.areas.index) == list(b.areas.index)
    assert list(a.areas.columns) == list(b.areas.columns)
    assert np.allclose(a.areas.to_numpy(), b.areas.to_numpy(), atol=1e-6)
    for lyr in a.layer_names:
        assert a.row_removed_sqft[lyr] == pytest.approx(b.row_removed_sqft[lyr], abs=1e-6)
        assert a.outside_sqft[lyr] == pytest.approx(b.outside_sqft[lyr], abs=1e-6)
    outside = {(p.layer, tuple(sorted(p.ids))) for p in a.problems if p.code == "outside_parcels"}
    assert outside == {(p.layer, tuple(sorted(p.ids))) for p in b.problems if p.code == "outside_parcels"}
    fa = a.features.sort_values(["layer", "fid"]).reset_index(drop=True)
    fb = b.features.sort_values(["layer", "fid"]).reset_index(drop=True)
    assert list(fa["fid"].astype(str)) == list(fb["fid"].astype(str))
    assert np.allclose(fa["area_sqft"], fb["area_sqft"], atol=1e-6)


def test_cambridge_on_dask_partitions_matches_the_one_process_run():
    import dask

    g = str(need(CAMBRIDGE))
    inp = overlay.load_inputs(parcels=f"{g}:parcels_fy2014", id_field="ML",
                              impervious=[f"{g}:{x}" for x in CAMBRIDGE_IMPERVIOUS],
                              right_of_way=[f"{g}:roads", f"{g}:sidewalks"])
    one = overlay.impervious_by_parcel(inp.parcels, inp.layers, inp.row)
    assert any(p.code == "outside_parcels" for p in one.problems)  # the data has polygons on no parcel
    with dask.config.set(scheduler="synchronous"):
        for n in (1, 4, 9):
            same(one, distributed.impervious_dask(inp.parcels, inp.layers, inp.row, npartitions=n, keep_pieces=True))


def test_a_town_on_a_local_cluster_of_worker_processes():
    grid, imp = random_town(seed=11, n=15, features=900)
    far = layer("far", box(5000, 5000, 5010, 5010), box(30, 52, 40, 60))  # one on no parcel at all
    row = [layer("row", box(0, 745, 1500, 755))]
    one = overlay.impervious_by_parcel(grid, [imp, far], row, keep_pieces=False)
    on_cluster = distributed.run(grid, [imp, far], row, address="local", workers=2, npartitions=6)
    same(one, on_cluster)
    assert one.outside_sqft["far"] == pytest.approx(100.0)


def test_frames_without_spatial_partitions_are_refused():
    import dask_geopandas

    grid = parcels(("P-1", box(0, 0, 100, 100)))
    frame = distributed._frame(grid.fids, grid.geoms)
    dd = dask_geopandas.from_geopandas(frame, npartitions=1)
    with pytest.raises(ValueError, match="spatial_partitions"):
        distributed.impervious_dask_frames(dd, dd, ["imp"])
