"""The impervious overlay as Dask tasks over dask-geopandas partitions (Ch. 295 Art. IV ¶E, ¶F).

For a statewide run (351 municipalities, millions of parcels) one process is not enough. Here the
parcels and the impervious polygons are each a dask-geopandas GeoDataFrame, spatially shuffled
along a Hilbert curve so a partition holds neighbouring features and has a small convex hull
(``spatial_partitions``). Then:

* one task per parcel partition takes its parcels, only the impervious partitions whose hulls
  meet its hull, and the right-of-way partitions meeting those, and runs the very same
  ``overlay.impervious_by_parcel`` (right-of-way removed, polygons inside one parcel taken whole,
  the rest cut, overlaps counted once) on them;
* one task per impervious partition finds its polygons that touch no parcel at all (streets,
  gaps) so they are reported as not attributed, exactly as the one-process run reports them;
* ``overlay.merge_results`` puts the pieces together. Each parcel is in exactly one partition,
  so the per-parcel areas are those of the one-process run.

Nothing here imports Django; dask, distributed and dask-geopandas are imported when called
(requirements-dask.txt). Any Dask scheduler runs it: a ``distributed.Client`` made current by the
caller (a LocalCluster on this machine, or a real cluster's scheduler address).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import shapely

from stormwater.gis.overlay import Layer, OverlayResult, TARGET_CRS, _hilbert, _leftovers, impervious_by_parcel, \
    merge_results, subset_for, touching

ROW_NAME = "right-of-way"


def _frame(fids: np.ndarray, geoms: np.ndarray, layer_index: np.ndarray | None = None):
    import geopandas as gpd

    cols = {"fid": np.asarray(fids, dtype=object)}
    if layer_index is not None:
        cols["layer"] = layer_index
    return gpd.GeoDataFrame(cols, geometry=list(geoms) if len(geoms) else [], crs=TARGET_CRS)


def _stacked(layers: Sequence[Layer]):
    """All layers in one GeoDataFrame with a ``layer`` column (index into ``layers``)."""
    if not layers:
        return _frame(np.array([], dtype=object), np.array([], dtype=object), np.array([], dtype=int))
    return _frame(np.concatenate([lyr.fids for lyr in layers]), np.concatenate([lyr.geoms for lyr in layers]),
                  np.concatenate([np.full(len(lyr), k) for k, lyr in enumerate(layers)]))


def _unstack(frames: Sequence, names: Sequence[str]) -> list[Layer]:
    """Partitions of a stacked frame → one Layer per name (in order)."""
    frames = [f for f in frames if len(f)]
    if not frames:
        return [Layer(n, np.array([], dtype=object), np.array([], dtype=object)) for n in names]
    df = pd.concat(frames, ignore_index=True)
    k = df["layer"].to_numpy()
    fids, geoms = df["fid"].to_numpy(dtype=object), np.asarray(df.geometry.array, dtype=object)
    return [Layer(n, fids[k == i], geoms[k == i]) for i, n in enumerate(names)]


def _parcel_task(parcels, imp_parts, row_parts, names, keep_pieces):
    """One parcel partition: the one-process overlay on it and the features near it."""
    plyr = Layer("parcels", parcels["fid"].to_numpy(dtype=object), np.asarray(parcels.geometry.array, dtype=object))
    layers = _unstack(imp_parts, names)
    row = [r for r in _unstack(row_parts, [ROW_NAME]) if len(r)]
    sub, near, near_row = subset_for(plyr, np.arange(len(plyr)), layers, row)
    return impervious_by_parcel(sub, near, near_row, keep_pieces=keep_pieces, threads=1)  # workers are the parallelism


def _leftover_task(imp, parcel_parts, row_parts, names):
    """One impervious partition: its polygons on no parcel (reported), the rest left to the parcel tasks."""
    layers = _unstack([imp], names)
    row = [r for r in _unstack(row_parts, [ROW_NAME]) if len(r)]
    pgeoms = [np.asarray(p.geometry.array, dtype=object) for p in parcel_parts]
    tree = shapely.STRtree(np.concatenate(pgeoms) if pgeoms else np.array([], dtype=object))
    return _leftovers(layers, row, [[touching(lyr, tree) for lyr in layers]])


def _meeting(hulls_a, hulls_b) -> list[list[int]]:
    """For each hull in ``a``, the indices of the hulls in ``b`` it meets (empty partitions meet none)."""
    a = np.asarray(hulls_a, dtype=object)
    b = np.asarray(hulls_b, dtype=object)
    ok_b = np.flatnonzero(~(shapely.is_missing(b) | shapely.is_empty(b))) if len(b) else np.array([], int)
    out: list[list[int]] = [[] for _ in range(len(a))]
    if not len(ok_b):
        return out
    ia, ib = shapely.STRtree(b[ok_b]).query(a, predicate="intersects")
    for i, j in zip(ia.tolist(), ok_b[ib].tolist()):
        out[i].append(j)
    return out


def impervious_dask_frames(parcels, impervious, names: Sequence[str], row=None, *,
                           keep_pieces: bool = False, order: np.ndarray | None = None) -> OverlayResult:
    """The overlay over dask-geopandas frames, on the current Dask scheduler.

    ``parcels``: dask GeoDataFrame with ``fid`` (unique parcel id) and geometry in EPSG:2249;
    ``impervious``: one with ``fid``, ``layer`` (index into ``names``) and geometry; ``row``: the
    right-of-way polygons (``fid``, ``layer`` 0) or None. Each must have ``spatial_partitions``
    (``spatial_shuffle`` or ``calculate_spatial_partitions``). ``order``: parcel ids in the order
    of the result (default: as the partitions hold them).
    """
    import dask
    from dask import delayed

    for name, ddf in (("parcels", parcels), ("impervious", impervious), ("right-of-way", row)):
        if ddf is not None and ddf.spatial_partitions is None:
            raise ValueError(f"{name}: no spatial_partitions; call spatial_shuffle() or calculate_spatial_partitions()")
    p_parts, i_parts = parcels.to_delayed(), impervious.to_delayed()
    r_parts = row.to_delayed() if row is not None else []
    p_hull, i_hull = list(parcels.spatial_partitions), list(impervious.spatial_partitions)
    r_hull = list(row.spatial_partitions) if row is not None else []
    imp_for_parcels = _meeting(p_hull, i_hull)
    parcels_for_imp = _meeting(i_hull, p_hull)
    row_for_imp = _meeting(i_hull, r_hull)
    tasks = []
    for i, js in enumerate(imp_for_parcels):
        rs = sorted({r for j in js for r in row_for_imp[j]})
        tasks.append(delayed(_parcel_task)(p_parts[i], [i_parts[j] for j in js], [r_parts[r] for r in rs],
                                           list(names), keep_pieces))
    for j, ps in enumerate(parcels_for_imp):
        tasks.append(delayed(_leftover_task)(i_parts[j], [p_parts[i] for i in ps],
                                             [r_parts[r] for r in row_for_imp[j]], list(names)))
    results = list(dask.compute(*tasks))
    if order is None:
        order = np.concatenate([r.areas.index.to_numpy(dtype=object) for r in results[:len(p_parts)]])
    return merge_results(results, list(names), np.asarray(order, dtype=object))


def impervious_dask(parcels: Layer, layers: Sequence[Layer], row: Sequence[Layer] = (), *, npartitions: int,
                    keep_pieces: bool = False) -> OverlayResult:
    """``overlay.impervious_by_parcel`` of in-memory layers, run as Dask tasks (same result).

    The layers are already in memory, so they are put in Hilbert order here (no distributed
    shuffle needed) and handed to dask-geopandas in ``npartitions`` contiguous, spatially compact
    chunks with their hulls (``calculate_spatial_partitions``); ``impervious_dask_frames`` runs
    them on the current scheduler. Data read lazily (``dask_geopandas.read_file`` /
    ``read_parquet``) goes to ``impervious_dask_frames`` after ``spatial_shuffle()``.
    """
    import dask_geopandas

    def dd(frame):
        n = max(1, min(npartitions, len(frame)))
        if len(frame) > 1:
            c = shapely.centroid(np.asarray(frame.geometry.array, dtype=object))
            frame = frame.iloc[np.argsort(_hilbert(shapely.get_x(c), shapely.get_y(c)), kind="stable")]
        out = dask_geopandas.from_geopandas(frame, npartitions=n, sort=False)
        out.calculate_spatial_partitions()
        return out

    names = [lyr.name for lyr in layers]
    row = [r for r in row if len(r)]
    row_frame = _stacked([Layer(ROW_NAME, np.concatenate([r.fids for r in row]),
                                np.concatenate([r.geoms for r in row]))]) if row else None
    return impervious_dask_frames(dd(_frame(parcels.fids, parcels.geoms)), dd(_stacked(layers)), names,
                                  dd(row_frame) if row_frame is not None else None, keep_pieces=keep_pieces,
                                  order=parcels.fids)


def run(parcels: Layer, layers: Sequence[Layer], row: Sequence[Layer] = (), *, address: str = "local",
        npartitions: int | None = None, keep_pieces: bool = False, workers: int | None = None) -> OverlayResult:
    """Start (``address="local"``: a LocalCluster of ``workers`` processes on 127.0.0.1) or join a
    cluster (a scheduler address) and run ``impervious_dask`` there."""
    import logging
    import warnings

    from distributed import Client, LocalCluster

    logging.getLogger("distributed").setLevel(logging.WARNING)  # the cluster's chatter is not the user's news

    def go(client):
        n = npartitions or 4 * max(1, len(client.scheduler_info()["workers"]))
        with warnings.catch_warnings():
            # The layers are in this process's memory, so they travel in the task graph; Dask
            # warns about large graphs, which here is expected (lazily read frames avoid it).
            warnings.filterwarnings("ignore", message="Sending large graph", category=UserWarning)
            return impervious_dask(parcels, layers, row, npartitions=n, keep_pieces=keep_pieces)

    if address == "local":
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                          dashboard_address=None, silence_logs=logging.WARNING) as cluster, Client(cluster) as client:
            return go(client)
    with Client(address) as client:
        return go(client)
