"""Impervious area per parcel from GIS layers (Ch. 295 Art. IV ¶E, ¶F). Imports no Django.

One module because it is one pipeline, the five steps below, over one ``Layer`` type and one list of ``Problem``:
reading and validation, cleaning, the overlay and its partitioned run, and the command's inputs and outputs each use
the others' types, and its many callers reach it as ``overlay.*``. Splitting would scatter the steps this docstring
walks through.

Ch. 295 Art. IV ¶E: the fee of a nonresidential parcel rests on "the total area of impervious
surface on a parcel ... utilizing available GIS data layers"; ¶E and ¶F: impervious area inside
the (Town, county, state, federal) right-of-way "will not be attributed to the parcel".

How an area is computed (docs/gis.md):

1. Every layer is read with pyogrio and reprojected to Massachusetts State Plane Mainland,
   NAD83, US survey feet (EPSG:2249); areas are planar areas there [ft²].
2. Validation, never a silent drop: a missing CRS (unless a source CRS is given for inputs that
   carry none), an unknown CRS, empty geometries, points and lines in a polygon layer, invalid
   polygons (repaired with ``shapely.make_valid`` keeping the polygonal parts; a polygon that
   collapses to a line or point has no area and is reported), duplicate parcel ids (the features
   are combined into one multi-part parcel, and that is reported).
3. Right-of-way polygons (separate layers, or rows of the parcel layer selected by a field
   value) are subtracted from every impervious polygon (¶F).
4. What is left of each impervious polygon is split by the parcel lines: a polygon wholly inside
   one parcel goes to it whole (no intersection needed — most do); one that crosses a line is
   cut, each part to the parcel it lies in. Parts outside every parcel are reported, not
   attributed.
5. Per parcel and layer the area is that of the union of the layer's pieces, and the parcel's
   ``impervious_sqft`` is the area of the union of every layer's pieces: a deck over a patio,
   or a driveway mapped twice, counts once. So the layer columns can add up to more than the
   total; the difference is the overlap.

The work is partitioned spatially (``partition_parcels``): each parcel belongs to exactly one
partition and a partition reads only the impervious polygons that touch its parcels, so the same
``impervious_by_parcel`` runs in one process, in a pool, or as Dask tasks (dask-geopandas) and the
results concatenate.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import shapely
from pyproj import CRS
from pyproj.exceptions import CRSError

TARGET_CRS = "EPSG:2249"  # NAD83 / Massachusetts Mainland (ftUS)
AREA_TOLERANCE_SQFT = 1e-6  # below this an intersection is a shared edge, not an overlap [ft²]

ERR_NO_CRS = ("{layer}: the file carries no coordinate reference system; give the source CRS "
              "(--source-crs EPSG:NNNN, or the field on the import form)")
ERR_UNKNOWN_CRS = "{layer}: unknown coordinate reference system {crs!r}; cannot reproject to EPSG:2249"
ERR_NO_FIELD = "{layer}: no field {field!r} (fields: {fields})"
ERR_NOT_FOUND = "{path}: no such file or folder"
ERR_NO_LAYER = "{path}: no layer {layer!r} (layers: {layers})"
ERR_UNREADABLE = ("{name}: the file cannot be read as GIS data ({why}); it may be truncated or damaged, or not the "
                  "format its name says: export the layer again and upload the new file")
ERR_DEGREES = ("coordinates look like degrees of longitude and latitude (x {x0:.4f} to {x1:.4f}, y {y0:.4f} to "
               "{y1:.4f}) but the layer says {crs}: give the layer its real CRS (EPSG:4326 for lon/lat); not imported")


ERR_NOT_DEGREES = ("{layer}: coordinates x {x0:,.0f} to {x1:,.0f}, y {y0:,.0f} to {y1:,.0f} cannot be degrees of "
                   "longitude and latitude, but the layer says {crs}{assumed}: feet or metres labelled as WGS84? give "
                   "the layer its real CRS (e.g. EPSG:2249, Massachusetts State Plane feet); not imported")
ERR_OUTSIDE_TOWN = ("{layer}: the layer lands at {where}, outside the town (longitude {w} to {e}, latitude {s} to {n}, "
                    "plus {m:g} miles: town configuration town_extent_*): a wrong CRS (metres labelled as feet, the "
                    "wrong State Plane zone, feet labelled as degrees) or another place's data; not imported")


OUTSIDE_MESSAGE = "impervious polygons on no parcel (streets, gaps between parcels): not attributed"


class LayerError(ValueError):
    """An input that cannot be used at all (the message says why and what to do)."""


@dataclass
class Problem:
    """One validation finding: what, in which layer, the feature ids, and what was done."""

    code: str
    layer: str
    message: str
    ids: list[str] = field(default_factory=list)
    severity: str = "warning"  # "info" | "warning" | "error"

    def as_json(self) -> dict:
        return {"code": self.code, "layer": self.layer, "severity": self.severity, "message": self.message,
                "count": len(self.ids), "ids": self.ids}

    def summary(self, max_ids: int = 10) -> str:
        ids = ", ".join(self.ids[:max_ids]) + (f", … ({len(self.ids)} in all)" if len(self.ids) > max_ids else "")
        return f"[{self.severity}] {self.layer}: {self.message}" + (f" — ids: {ids}" if ids else "")


@dataclass
class Layer:
    """A layer ready for the overlay: ``fids`` (str) and ``geoms`` (shapely, EPSG:2249) aligned."""

    name: str
    fids: np.ndarray
    geoms: np.ndarray

    def __len__(self) -> int:
        return len(self.geoms)


# ---------------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------------

def parse_source(spec: str) -> tuple[str, str | None]:
    """``PATH[:LAYER]`` → (path, layer). A colon that is part of an existing path is kept."""
    if os.path.exists(spec):
        return spec, None
    path, sep, layer = spec.rpartition(":")
    if sep and path and layer:
        return path, layer
    return spec, None


def list_layers(path: str) -> list[tuple[str, str | None]]:
    """(layer name, geometry type or None for a table) of every layer in a file or FileGDB."""
    import pyogrio

    if not os.path.exists(path):
        raise LayerError(ERR_NOT_FOUND.format(path=path))
    with gdal_errors(path):
        return [(str(n), (str(g) if g is not None else None)) for n, g in pyogrio.list_layers(path)]


class gdal_errors:
    """``with gdal_errors(path):`` turns what GDAL raises on a damaged, truncated or mislabelled file (pyogrio's
    DataSourceError, DataLayerError, FieldError, GeometryError…) into a ``LayerError`` naming the file (issue 20:
    never a traceback or a 500)."""

    def __init__(self, path: str):
        self.name = Path(str(path).rstrip("/")).name

    def __enter__(self):
        return self

    def __exit__(self, et, e, tb):
        if e is None or isinstance(e, LayerError):
            return False
        from pyogrio import errors as pe

        gdal = (pe.DataSourceError, pe.DataLayerError, pe.FieldError, pe.GeometryError, pe.CRSError)
        if isinstance(e, gdal) or (isinstance(e, (RuntimeError, OSError, ValueError))
                                   and type(e).__module__.startswith(("pyogrio", "shapely"))):
            why = " ".join(str(e).split())[:300]
            raise LayerError(ERR_UNREADABLE.format(name=self.name, why=why)) from None
        return False


def layer_info(path: str, layer: str | None = None) -> dict:
    """Fields, CRS, geometry type and feature count of one layer (for the field-mapping step)."""
    import pyogrio

    with gdal_errors(path):
        info = pyogrio.read_info(path, layer=layer)
    return {"fields": [str(f) for f in info["fields"]], "crs": info.get("crs"),
            "geometry_type": info.get("geometry_type"), "features": int(info.get("features") or 0)}


def check_crs(crs, *, layer: str, source_crs: str | None = None) -> tuple[CRS, list[Problem]]:
    """The layer's CRS, or ``source_crs`` when it carries none. LayerError when neither is usable."""
    problems: list[Problem] = []
    if crs is None or crs == "":
        if not source_crs:
            raise LayerError(ERR_NO_CRS.format(layer=layer))
        problems.append(Problem("crs_assumed", layer, f"no CRS in the file; {source_crs} assumed as given",
                                severity="info"))
        crs = source_crs
    try:
        c = CRS.from_user_input(crs)
    except CRSError:
        raise LayerError(ERR_UNKNOWN_CRS.format(layer=layer, crs=str(crs))) from None
    if c.is_engineering or not (c.is_projected or c.is_geographic):
        raise LayerError(ERR_UNKNOWN_CRS.format(layer=layer, crs=c.name))
    return c, problems


def read_layer(path: str, layer: str | None = None, *, name: str | None = None, source_crs: str | None = None,
               fields: Sequence[str] = ()) -> tuple[pd.DataFrame, list[Problem]]:
    """Read one layer → DataFrame with the asked ``fields`` and ``geometry`` (shapely, EPSG:2249).

    ``name`` (default: LAYER or the file's stem) names the layer in reports and results.
    """
    import pyogrio

    if not os.path.exists(path):
        raise LayerError(ERR_NOT_FOUND.format(path=path))
    name = name or layer or Path(path.rstrip("/")).stem
    check_shapefile_parts(path)
    if layer is not None:
        names = [n for n, _ in list_layers(path)]
        if layer not in names:
            raise LayerError(ERR_NO_LAYER.format(path=path, layer=layer, layers=", ".join(names)))
    with gdal_errors(path):
        info = pyogrio.read_info(path, layer=layer)
    have = [str(f) for f in info["fields"]]
    for f in fields:
        if f not in have:
            raise LayerError(ERR_NO_FIELD.format(layer=name, field=f, fields=", ".join(have)))
    crs, problems = check_crs(info.get("crs"), layer=name, source_crs=source_crs)
    with gdal_errors(path):
        meta, _, geom_wkb, field_data = pyogrio.raw.read(path, layer=layer, columns=list(fields))
        df = pd.DataFrame({f: field_data[i] for i, f in enumerate(meta["fields"])})
        geoms = shapely.from_wkb(geom_wkb) if geom_wkb is not None else np.full(len(df), None, dtype=object)
    problems += check_not_degrees(geoms, crs, layer=name)
    check_degrees(geoms, crs, layer=name, assumed=not info.get("crs"))
    df["geometry"] = to_target_crs(np.asarray(geoms, dtype=object), crs)
    problems += check_inside_town(df["geometry"].to_numpy(), TARGET_CRS, layer=name)
    df.attrs["crs"] = crs.to_string()
    return df, problems


def check_not_degrees(geoms, crs, *, layer: str) -> list[Problem]:
    """A projected CRS (feet or metres) whose every coordinate lies within ±180 / ±90: lon/lat labelled as feet,
    which would give every parcel an area of almost nothing (issue 20). An error: the import is refused."""
    geoms = np.asarray(geoms, dtype=object)
    ok = ~(shapely.is_missing(geoms) | shapely.is_empty(geoms)) if len(geoms) else np.array([], dtype=bool)
    if not ok.any() or not CRS.from_user_input(crs).is_projected:
        return []
    x0, y0, x1, y1 = shapely.total_bounds(geoms[ok])
    if -180 <= x0 <= x1 <= 180 and -90 <= y0 <= y1 <= 90:
        return [Problem("degrees_as_projected", layer, ERR_DEGREES.format(x0=x0, x1=x1, y0=y0, y1=y1,
                                                                          crs=CRS.from_user_input(crs).name),
                        severity="error")]
    return []


def _valid_bounds(geoms) -> tuple[float, float, float, float] | None:
    geoms = np.asarray(geoms, dtype=object)
    if not len(geoms):
        return None
    ok = ~(shapely.is_missing(geoms) | shapely.is_empty(geoms))
    if not ok.any():
        return None
    return tuple(float(v) for v in shapely.total_bounds(geoms[ok]))


ERR_SHAPEFILE_PART = ("{name}: the shapefile's {missing} {are} missing ({what}); a shapefile is several files with "
                      "one name — .shp, .shx, .dbf, and .prj for its CRS: zip them all together and upload the zip")
SHAPEFILE_PARTS = {".shx": "the shape index", ".dbf": "the attribute table: parcel ids and every other field"}


def check_shapefile_parts(path: str) -> None:
    """A ``.shp`` without its ``.shx`` or ``.dbf`` (issue 26: the refusal did not say what was wrong). LayerError
    naming the missing files."""
    p = Path(path)
    if p.suffix.lower() != ".shp" or not p.is_file():
        return
    have = {q.name.lower() for q in p.parent.iterdir()}
    missing = [(p.stem + ext, what) for ext, what in SHAPEFILE_PARTS.items() if (p.stem + ext).lower() not in have]
    if missing:
        raise LayerError(ERR_SHAPEFILE_PART.format(name=p.name, missing=" and ".join(m for m, _ in missing),
                                                   are="is" if len(missing) == 1 else "are",
                                                   what="; ".join(w for _, w in missing)))


def check_degrees(geoms, crs, *, layer: str, assumed: bool = False) -> None:
    """A geographic CRS (WGS84 …, or a GeoJSON with none, which means WGS84) whose coordinates are not longitude
    and latitude: State Plane feet labelled EPSG:4326 crashed the overlay with "GEOSException: Shell empty after
    removing invalid points" (issue 26). ``LayerError`` naming the layer and its coordinates."""
    b = _valid_bounds(geoms)
    c = CRS.from_user_input(crs)
    if b is None or not c.is_geographic:
        return
    x0, y0, x1, y1 = b
    if not (-180 <= x0 <= x1 <= 180 and -90 <= y0 <= y1 <= 90):
        raise LayerError(ERR_NOT_DEGREES.format(layer=layer, x0=x0, x1=x1, y0=y0, y1=y1, crs=c.name,
                                                assumed=" (a file with no CRS is read as WGS84)" if assumed else ""))


def town_extent() -> tuple[float, float, float, float, float]:
    """(west, south, east, north, margin miles) of the town configuration (``TownConfig.town_extent_*``); the
    defaults where Django is not configured (a worker process reading layers)."""
    try:
        from stormwater.townconfig import town_config

        cfg = town_config()
    except Exception:  # noqa: BLE001 — no settings: the installation's defaults
        from stormwater.rules.town import TownConfig

        cfg = TownConfig()
    return (cfg.town_extent_west, cfg.town_extent_south, cfg.town_extent_east, cfg.town_extent_north,
            cfg.town_extent_margin_miles)


def check_inside_town(geoms, crs, *, layer: str) -> list[Problem]:
    """The one "inside the town" check of every geometry imported (issue 26): parcels, impervious and right-of-way
    layers (``read_layer``) and BMP inventories (``stewardship.inventory``). The layer's bounds, in WGS84, must
    fall inside the configured box widened by its margin (1 mile ≈ 1/69 degree of latitude, 1/(69 cos φ) of
    longitude); else an error finding naming the layer and where it landed (the import is refused)."""
    import math

    b = _valid_bounds(geoms)
    if b is None:
        return []
    c = CRS.from_user_input(crs)
    if not c.is_geographic:
        from pyproj import Transformer

        tr = Transformer.from_crs(c, "EPSG:4326", always_xy=True)
        xs, ys = tr.transform([b[0], b[2], b[0], b[2]], [b[1], b[1], b[3], b[3]])
        b = (min(xs), min(ys), max(xs), max(ys))
    w, s, e, n, m = town_extent()
    dlat = m / 69.0
    dlon = m / (69.0 * max(math.cos(math.radians((s + n) / 2)), 0.1))
    x0, y0, x1, y1 = b
    finite = all(math.isfinite(v) for v in b)
    if finite and w - dlon <= x0 and x1 <= e + dlon and s - dlat <= y0 and y1 <= n + dlat:
        return []
    where = (f"longitude {x0:.4f} to {x1:.4f}, latitude {y0:.4f} to {y1:.4f}" if finite
             else "coordinates that cannot be placed on Earth")
    return [Problem("outside_town", layer, ERR_OUTSIDE_TOWN.format(layer=layer, where=where, w=w, e=e, s=s, n=n, m=m),
                    severity="error")]


def to_target_crs(geoms: np.ndarray, crs) -> np.ndarray:
    """Reproject shapely geometries from ``crs`` to EPSG:2249 (a no-op when already there)."""
    from pyproj import Transformer

    src = CRS.from_user_input(crs)
    dst = CRS.from_user_input(TARGET_CRS)
    if src.equals(dst, ignore_axis_order=True):
        return geoms
    tr = Transformer.from_crs(src, dst, always_xy=True)
    return shapely.transform(geoms, lambda xy: np.column_stack(tr.transform(xy[:, 0], xy[:, 1])))


def from_target_crs(geoms: np.ndarray, crs: str = "EPSG:4326") -> np.ndarray:
    """Reproject shapely geometries from EPSG:2249 to ``crs`` (default WGS84 lon/lat, for the map)."""
    from pyproj import Transformer

    tr = Transformer.from_crs(TARGET_CRS, crs, always_xy=True)
    return shapely.transform(geoms, lambda xy: np.column_stack(tr.transform(xy[:, 0], xy[:, 1])))


# ---------------------------------------------------------------------------------------------
# Validation and repair
# ---------------------------------------------------------------------------------------------

def _ids(fids: np.ndarray, mask: np.ndarray) -> list[str]:
    return [str(x) for x in fids[mask]]


def clean_polygons(fids: Sequence, geoms: Sequence, *, layer: str) -> tuple[Layer, list[Problem]]:
    """Keep the polygonal area of each feature; report every feature that is changed or has none.

    Invalid polygons are repaired with ``shapely.make_valid`` (method "structure": rings are
    rebuilt, the area enclosed is kept), and only the polygonal parts are kept; that repair is
    "safe" when the result still has area, and it is reported either way.
    """
    fids = np.asarray([str(f) for f in fids], dtype=object)
    geoms = np.array(geoms, dtype=object)  # a copy: repairs must not write into the caller's array
    problems: list[Problem] = []
    missing = shapely.is_missing(geoms) | shapely.is_empty(geoms)
    if missing.any():
        problems.append(Problem("empty_geometry", layer, "features with no geometry: no area counted",
                                _ids(fids, missing)))
    tid = np.full(len(geoms), -1)
    tid[~missing] = shapely.get_type_id(geoms[~missing])
    polygonal = np.isin(tid, (3, 6))  # Polygon, MultiPolygon
    collection = tid == 7
    other = ~missing & ~polygonal & ~collection
    if other.any():
        problems.append(Problem("not_polygon", layer, "points or lines in a polygon layer: no area, not counted",
                                _ids(fids, other)))
    if collection.any():  # keep only the polygonal members of a GeometryCollection
        geoms[collection] = [_polygonal_part(g) for g in geoms[collection]]
    candidates = polygonal | collection
    invalid = candidates & ~shapely.is_valid(geoms)
    if invalid.any():
        reasons = shapely.is_valid_reason(geoms[invalid])
        repaired = np.array([_polygonal_part(g) for g in
                             shapely.make_valid(geoms[invalid], method="structure", keep_collapsed=False)],
                            dtype=object)
        has_area = shapely.area(repaired) > AREA_TOLERANCE_SQFT
        geoms[invalid] = repaired
        inv_ids = fids[invalid]
        if has_area.any():
            detail = "; ".join(f"{i}: {r}" for i, r in list(zip(inv_ids[has_area], reasons[has_area]))[:5])
            problems.append(Problem("invalid_repaired", layer,
                                    f"invalid polygons repaired with make_valid, polygonal parts kept ({detail})",
                                    [str(x) for x in inv_ids[has_area]], severity="info"))
        if (~has_area).any():
            problems.append(Problem("invalid_no_area", layer,
                                    "invalid polygons that collapse to lines or points: no area, not counted",
                                    [str(x) for x in inv_ids[~has_area]]))
    keep = candidates & ~shapely.is_empty(geoms) & (shapely.area(geoms) > AREA_TOLERANCE_SQFT)
    zero = candidates & ~keep & ~invalid
    if zero.any():
        problems.append(Problem("zero_area", layer, "polygons with no area: not counted", _ids(fids, zero)))
    return Layer(layer, fids[keep], geoms[keep]), problems


def _polygonal_part(g):
    """The polygons of a geometry (a GeometryCollection from make_valid may hold lines too)."""
    if g is None or g.is_empty:
        return shapely.Polygon()
    tid = shapely.get_type_id(g)
    if tid in (3, 6):
        return g
    if tid == 7:
        parts = [p for p in shapely.get_parts(g) if shapely.get_type_id(p) in (3, 6)]
        return shapely.union_all(parts) if parts else shapely.Polygon()
    return shapely.Polygon()


def prepare_parcels(df: pd.DataFrame, *, id_field: str, layer: str = "parcels",
                    row_where: dict[str, Iterable[str]] | None = None) -> tuple[Layer, Layer, list[Problem]]:
    """Parcel polygons by id, and the right-of-way rows found in the parcel layer.

    ``row_where`` = {field: values}: rows whose field has one of the values are right-of-way
    (e.g. Somerville ``PolyType`` ROW / RR ROW, Cambridge ``ML`` ROAD / RR, MassGIS ``POLY_TYPE``
    ROW / RAIL_ROW); they are not tax parcels and are subtracted like any right-of-way layer.
    Duplicate ids are combined into one multi-part parcel (reported).
    """
    problems: list[Problem] = []
    ids = df[id_field].astype(object).where(df[id_field].notna(), None)
    ids = np.array([("" if v is None else str(v).strip()) for v in ids], dtype=object)
    rownum = np.array([f"feature {i + 1}" for i in range(len(df))], dtype=object)
    is_row = np.zeros(len(df), dtype=bool)
    for fld, values in (row_where or {}).items():
        if fld not in df.columns:
            raise LayerError(ERR_NO_FIELD.format(layer=layer, field=fld, fields=", ".join(map(str, df.columns))))
        vals = {str(v) for v in values}
        is_row |= df[fld].astype(str).str.strip().isin(vals).to_numpy()
    if is_row.any():
        problems.append(Problem("row_in_parcels", layer,
                                "right-of-way rows in the parcel layer: not tax parcels, subtracted as right-of-way",
                                [i or r for i, r in zip(ids[is_row], rownum[is_row])], severity="info"))
    no_id = (ids == "") & ~is_row
    if no_id.any():
        problems.append(Problem("missing_id", layer, f"parcel polygons with no {id_field}: not attributed to any parcel",
                                list(rownum[no_id])))
    row_layer, p1 = clean_polygons(np.where(ids[is_row] == "", rownum[is_row], ids[is_row]),
                                   df["geometry"].to_numpy()[is_row], layer=f"{layer} (right-of-way rows)")
    take = ~is_row & ~no_id
    parcels, p2 = clean_polygons(ids[take], df["geometry"].to_numpy()[take], layer=layer)
    problems += p1 + p2
    uniq, inverse, counts = np.unique(parcels.fids.astype(str), return_inverse=True, return_counts=True)
    if (counts > 1).any():
        dup = uniq[counts > 1]
        problems.append(Problem("duplicate_id", layer,
                                "several polygons share a parcel id: combined into one multi-part parcel",
                                [f"{d} (×{c})" for d, c in zip(dup, counts[counts > 1])]))
        merged = np.empty(len(uniq), dtype=object)
        for k in range(len(uniq)):
            members = parcels.geoms[inverse == k]
            merged[k] = members[0] if len(members) == 1 else shapely.union_all(members)
        parcels = Layer(layer, uniq.astype(object), merged)
    return parcels, row_layer, problems


# ---------------------------------------------------------------------------------------------
# The overlay
# ---------------------------------------------------------------------------------------------

@dataclass
class OverlayResult:
    """Per-parcel areas [ft², EPSG:2249] plus the pieces (for the map) and what was found."""

    layer_names: list[str]
    areas: pd.DataFrame           # index parcel_id; impervious_sqft, <layer>_sqft ...
    pieces: pd.DataFrame          # parcel_id, layer, fid, area_sqft, geometry
    features: pd.DataFrame        # layer, fid, area_sqft (after ROW removal), row_removed_sqft
    problems: list[Problem] = field(default_factory=list)
    right_of_way: list[Layer] = field(default_factory=list)  # the ROW layers subtracted, kept for the maps (issue 30)

    @property
    def row_removed_sqft(self) -> dict[str, float]:
        """ft² of each layer inside the right-of-way, not attributed (¶F)."""
        s = self.features.groupby("layer")["row_removed_sqft"].sum()
        return {n: float(s.get(n, 0.0)) for n in self.layer_names}

    @property
    def outside_sqft(self) -> dict[str, float]:
        """ft² of each layer outside every parcel (after ROW removal), not attributed."""
        tot = self.features.groupby("layer")["area_sqft"].sum()
        att = self.pieces.groupby("layer")["area_sqft"].sum() if len(self.pieces) else pd.Series(dtype=float)
        return {n: max(0.0, float(tot.get(n, 0.0) - att.get(n, 0.0))) for n in self.layer_names}

    def rows(self) -> list[dict]:
        """One dict per parcel: parcel_id, impervious_sqft, <layer>_sqft (rounded to 0.01 ft²)."""
        out = []
        for pid, r in self.areas.iterrows():
            out.append({"parcel_id": pid, **{k: round(float(v), 2) for k, v in r.items()}})
        return out


def _remove_row(layer: Layer, row_geoms: np.ndarray) -> tuple[Layer, pd.DataFrame]:
    """Subtract the right-of-way from every impervious polygon touching it (¶F).

    Returns the layer without the right-of-way parts and a table per source feature:
    ``fid, area_sqft`` (left), ``row_removed_sqft``.

    A right-of-way layer is often a few huge polygons (a town's whole street network as one
    polygon of 100,000 vertices). So the right-of-way polygons are the prepared side of the
    ``intersects`` test (indexed once each, not re-read for every small polygon), and a polygon
    touching several has them subtracted one after the other (never their union, which would
    rebuild the huge polygons for each small one).
    """
    def table(geoms, removed):
        return pd.DataFrame({"layer": layer.name, "fid": layer.fids, "area_sqft": shapely.area(geoms),
                             "row_removed_sqft": removed})

    if not len(row_geoms) or not len(layer):
        return layer, table(layer.geoms, 0.0)
    shapely.prepare(row_geoms)
    row_i, imp_i = shapely.STRtree(layer.geoms).query(row_geoms, predicate="intersects")
    if not len(imp_i):
        return layer, table(layer.geoms, 0.0)
    geoms = layer.geoms.copy()
    before = shapely.area(geoms)
    order = np.lexsort((row_i, imp_i))
    imp_i, row_i = imp_i[order], row_i[order]
    first = np.r_[True, imp_i[1:] != imp_i[:-1]]
    rank = np.arange(len(imp_i)) - np.maximum.accumulate(np.where(first, np.arange(len(imp_i)), 0))
    for k in range(int(rank.max()) + 1):  # round k: each polygon loses its k-th right-of-way polygon
        m = rank == k
        geoms[imp_i[m]] = shapely.difference(geoms[imp_i[m]], row_geoms[row_i[m]])
    touched = imp_i[first]
    geoms[touched] = [_polygonal_part(g) for g in geoms[touched]]
    feats = table(geoms, before - shapely.area(geoms))
    keep = shapely.area(geoms) > AREA_TOLERANCE_SQFT
    return Layer(layer.name, layer.fids[keep], geoms[keep]), feats


MIN_PAIRS_PER_THREAD = 5000  # below this a thread costs more than it saves


def default_threads() -> int:
    """Threads for the overlay's GEOS work: ``STORMWATER_GIS_THREADS`` or the cores (at most 8)."""
    env = os.environ.get("STORMWATER_GIS_THREADS", "").strip()
    if env.isdigit() and int(env) > 0:
        return int(env)
    return max(1, min(8, os.cpu_count() or 1))


def _by_parcel(func: Callable, parcel_idx: np.ndarray, threads: int, *arrays: np.ndarray) -> np.ndarray:
    """``func(*arrays)`` (a vectorized shapely function) with the pairs split by parcel over threads.

    Shapely releases the GIL inside GEOS, so the chunks run at once. Pairs are split by parcel
    index ranges, so a parcel (whose prepared geometry GEOS builds lazily, not thread-safe) is
    only ever touched by one thread; the other side of each pair is only read.
    """
    n = len(parcel_idx)
    k = min(threads, n // MIN_PAIRS_PER_THREAD)
    if k <= 1:
        return func(*arrays)
    from concurrent.futures import ThreadPoolExecutor

    edges = np.quantile(parcel_idx, np.linspace(0, 1, k + 1)[1:-1]).astype(parcel_idx.dtype)
    chunk = np.searchsorted(edges, parcel_idx, side="right")
    sel = [np.flatnonzero(chunk == c) for c in range(k)]
    with ThreadPoolExecutor(k) as ex:
        parts = list(ex.map(lambda ix: func(*(a[ix] for a in arrays)), sel))
    out = np.empty(n, dtype=parts[0].dtype)
    for ix, part in zip(sel, parts):
        out[ix] = part
    return out


def impervious_by_parcel(parcels: Layer, layers: Sequence[Layer], row: Sequence[Layer] = (), *,
                         keep_pieces: bool = True, threads: int | None = None) -> OverlayResult:
    """Impervious area per parcel and layer [ft²], right-of-way removed, overlaps counted once.

    Every parcel gets a row (0 where nothing lies on it). Inputs must already be in EPSG:2249
    and cleaned (``clean_polygons`` / ``prepare_parcels``). ``threads``: how many threads run
    the GEOS work (default: the machine's cores, at most 8; 1 for none). The answer does not
    depend on it.
    """
    threads = default_threads() if threads is None else max(1, int(threads))
    names = [lyr.name for lyr in layers]
    if len(set(names)) != len(names):
        raise LayerError(f"two impervious layers share a name: {names}")
    problems: list[Problem] = []
    row_geoms = np.concatenate([r.geoms for r in row]) if row else np.array([], dtype=object)
    pgeoms = parcels.geoms
    shapely.prepare(pgeoms)
    ptree = shapely.STRtree(pgeoms)
    piece_parcel, piece_layer, piece_fid, piece_geom, piece_area = [], [], [], [], []
    features = []
    for li, lyr in enumerate(layers):
        lyr, feats = _remove_row(lyr, row_geoms)
        features.append(feats)
        if not len(lyr):
            continue
        # Most polygons lie wholly inside one parcel. One envelope query (no predicate: cheap)
        # pairs each polygon with the parcels whose envelopes it meets; one vectorized
        # ``contains_properly`` against the prepared parcels (the cheapest prepared predicate)
        # finds those lying inside one, and they go whole with no intersection. Only the rest
        # (crossing a line, or touching it from inside) are cut, against the parcels they meet.
        q_imp, q_par = ptree.query(lyr.geoms)
        inside = _by_parcel(shapely.contains_properly, q_par, threads, pgeoms[q_par], lyr.geoms[q_imp])
        whole = np.zeros(len(lyr), dtype=bool)
        whole[q_imp[inside]] = True
        rest = ~whole[q_imp]
        # A polygon drawn up to the parcel line from inside (a zero-lot-line building, a driveway
        # ending at the line) is not properly inside but still wholly in the parcel: ``covers``,
        # on these few pairs only, takes it whole too.
        r_imp, r_par = q_imp[rest], q_par[rest]
        covered = _by_parcel(shapely.covers, r_par, threads, pgeoms[r_par], lyr.geoms[r_imp])
        inside[np.flatnonzero(rest)[covered]] = True
        whole[r_imp[covered]] = True
        in_imp, in_par = q_imp[inside], q_par[inside]
        cut = ~whole[q_imp]
        # No ``intersects`` filter first: nearly every remaining pair does meet, and GEOS returns
        # an empty intersection for the rest at once (cheaper than testing them all).
        c_imp, c_par = q_imp[cut], q_par[cut]
        cut_geoms = _by_parcel(shapely.intersection, c_par, threads, lyr.geoms[c_imp], pgeoms[c_par])
        odd = ~np.isin(shapely.get_type_id(cut_geoms), (3, 6))  # lines/points/collections from touching
        if odd.any():
            cut_geoms[odd] = [_polygonal_part(g) for g in cut_geoms[odd]]
        imp_i = np.concatenate([in_imp, c_imp])
        par_i = np.concatenate([in_par, c_par])
        geoms = np.concatenate([lyr.geoms[in_imp], cut_geoms])
        area = shapely.area(geoms)
        ok = area > AREA_TOLERANCE_SQFT
        attributed = np.bincount(imp_i[ok], weights=area[ok], minlength=len(lyr))
        none = attributed <= AREA_TOLERANCE_SQFT
        if none.any():
            problems.append(Problem("outside_parcels", lyr.name,
                                    OUTSIDE_MESSAGE, _ids(lyr.fids, none), severity="info"))
        piece_parcel.append(par_i[ok])
        piece_layer.append(np.full(int(ok.sum()), li))
        piece_fid.append(lyr.fids[imp_i[ok]])
        piece_geom.append(geoms[ok])
        piece_area.append(area[ok])
    if piece_parcel:
        pp = np.concatenate(piece_parcel)
        pl = np.concatenate(piece_layer)
        pf = np.concatenate(piece_fid)
        pg = np.concatenate(piece_geom)
        pa = np.concatenate(piece_area)
    else:
        pp = pl = np.array([], dtype=int)
        pf = pg = np.array([], dtype=object)
        pa = np.array([], dtype=float)

    n_par, n_lay = len(pgeoms), len(layers)
    by_layer = np.zeros((n_par, n_lay))
    np.add.at(by_layer, (pp, pl), pa)
    total = by_layer.sum(axis=1)
    # Overlaps: only parcels where two pieces share area need a union (counted once).
    if len(pg) > 1:
        a, b = _same_group_pairs(pp, shapely.bounds(pg))  # envelopes overlap: cheap, vectorized
        if len(a):
            shared = shapely.intersects(pg[a], pg[b]) & ~shapely.touches(pg[a], pg[b])  # share area
            a, b = a[shared], b[shared]
        for pi, members in _groups(pp, np.unique(pp[a])):
            total[pi] = shapely.area(shapely.union_all(pg[members]))
        same_layer = pl[a] == pl[b]
        key = pp * n_lay + pl  # one group per (parcel, layer)
        for k, members in _groups(key, np.unique(key[a][same_layer])):
            by_layer[k // n_lay, k % n_lay] = shapely.area(shapely.union_all(pg[members]))
    areas = pd.DataFrame(by_layer, index=pd.Index(parcels.fids.astype(str), name="parcel_id"),
                         columns=[f"{n}_sqft" for n in names])
    areas.insert(0, "impervious_sqft", total)
    pieces = pd.DataFrame({"parcel_id": parcels.fids[pp] if len(pp) else [],
                           "layer": np.asarray(names, dtype=object)[pl] if len(pl) else [], "fid": pf, "area_sqft": pa,
                           "geometry": pg if keep_pieces else [None] * len(pg)})
    feats = pd.concat(features, ignore_index=True) if features else \
        pd.DataFrame(columns=["layer", "fid", "area_sqft", "row_removed_sqft"])
    return OverlayResult(names, areas, pieces, feats, problems)


def _groups(key: np.ndarray, wanted: np.ndarray):
    """(k, indices of ``key == k``) for each k in ``wanted``; one sort, not a scan per k."""
    if not len(wanted):
        return
    order = np.argsort(key, kind="stable")
    sk = key[order]
    lo = np.searchsorted(sk, wanted, side="left")
    hi = np.searchsorted(sk, wanted, side="right")
    for k, i, j in zip(wanted.tolist(), lo.tolist(), hi.tolist()):
        yield k, order[i:j]


SMALL_GROUP = 64  # up to this many pieces in a parcel, every pair is tested by envelope; above, a tree


def _same_group_pairs(key: np.ndarray, bounds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (a < b) of items with the same ``key`` whose envelopes overlap (more than touch).

    Most parcels hold a handful of pieces: their pairs are enumerated by group size and tested
    on the bounds arrays at once. A parcel with many pieces (a large lot) gets its own STRtree.
    """
    order = np.argsort(key, kind="stable")
    sk = key[order]
    starts = np.flatnonzero(np.r_[True, sk[1:] != sk[:-1]])
    sizes = np.diff(np.r_[starts, len(sk)])
    out_a, out_b = [], []
    for k in np.unique(sizes[(sizes > 1) & (sizes <= SMALL_GROUP)]).tolist():
        base = starts[sizes == k]
        iu, ju = np.triu_indices(k, 1)
        out_a.append(order[(base[:, None] + iu).ravel()])
        out_b.append(order[(base[:, None] + ju).ravel()])
    for s0, n in zip(starts[sizes > SMALL_GROUP].tolist(), sizes[sizes > SMALL_GROUP].tolist()):
        idx = order[s0:s0 + n]
        boxes = shapely.box(*bounds[idx].T)
        i, j = shapely.STRtree(boxes).query(boxes)
        keep = i < j
        out_a.append(idx[i[keep]])
        out_b.append(idx[j[keep]])
    if not out_a:
        return np.array([], dtype=np.intp), np.array([], dtype=np.intp)
    a, b = np.concatenate(out_a), np.concatenate(out_b)
    ba, bb = bounds[a], bounds[b]
    overlap = (ba[:, 0] < bb[:, 2]) & (bb[:, 0] < ba[:, 2]) & (ba[:, 1] < bb[:, 3]) & (bb[:, 1] < ba[:, 3])
    return a[overlap], b[overlap]


def partition_parcels(parcels: Layer, n: int) -> list[np.ndarray]:
    """Split parcel indices into ``n`` spatially compact groups (Hilbert order of centroids)."""
    if n <= 1 or len(parcels) <= n:
        return [np.arange(len(parcels))]
    c = shapely.centroid(parcels.geoms)
    x, y = shapely.get_x(c), shapely.get_y(c)
    order = np.argsort(_hilbert(x, y), kind="stable")
    return [np.sort(part) for part in np.array_split(order, n)]


def _hilbert(x: np.ndarray, y: np.ndarray, level: int = 16) -> np.ndarray:
    """Hilbert-curve distance of points scaled to a 2^level grid (vectorized)."""
    side = (1 << level) - 1
    span_x = (x.max() - x.min()) or 1.0
    span_y = (y.max() - y.min()) or 1.0
    xi = ((x - x.min()) / span_x * side).astype(np.int64)
    yi = ((y - y.min()) / span_y * side).astype(np.int64)
    d = np.zeros(len(x), dtype=np.int64)
    s = 1 << (level - 1)
    while s > 0:
        rx = (xi & s) > 0
        ry = (yi & s) > 0
        d += s * s * ((3 * rx) ^ ry)
        flip = ~ry
        swap_x = np.where(flip & rx, side - xi, xi)
        swap_y = np.where(flip & rx, side - yi, yi)
        xi, yi = np.where(flip, swap_y, xi), np.where(flip, swap_x, yi)
        s >>= 1
    return d


def touching(lyr: Layer, tree: shapely.STRtree) -> Layer:
    """The features of ``lyr`` that touch a geometry in ``tree``."""
    if not len(lyr):
        return lyr
    hit = np.unique(tree.query(lyr.geoms, predicate="intersects")[0])
    return Layer(lyr.name, lyr.fids[hit], lyr.geoms[hit])


def subset_for(parcels: Layer, idx: np.ndarray, layers: Sequence[Layer], row: Sequence[Layer]):
    """The inputs one partition needs: its parcels and the features touching their envelope."""
    sub = Layer(parcels.name, parcels.fids[idx], parcels.geoms[idx])
    if not len(idx):
        return sub, [Layer(lyr.name, lyr.fids[:0], lyr.geoms[:0]) for lyr in layers], list(row)
    tree = shapely.STRtree(sub.geoms)
    near_layers = [touching(lyr, tree) for lyr in layers]
    # Right-of-way is chosen by the impervious polygons it cuts, not by the parcels: a sidewalk
    # in a street gap touches no parcel but still takes its part out of a driveway.
    imp = [g for lyr in near_layers for g in lyr.geoms]
    if not imp:
        return sub, near_layers, []
    itree = shapely.STRtree(np.array(imp, dtype=object))
    return sub, near_layers, [touching(r, itree) for r in row]


def impervious_partitioned(parcels: Layer, layers: Sequence[Layer], row: Sequence[Layer] = (), *,
                           partitions: int = 1, keep_pieces: bool = True,
                           progress: Callable[[int, int], None] | None = None,
                           map_fn: Callable | None = None, threads: int | None = None) -> OverlayResult:
    """``impervious_by_parcel`` over spatial partitions; ``map_fn`` may run them elsewhere.

    ``map_fn(func, list_of_args)`` → list of results (default: in this process, in order), e.g. a
    process pool's map. For a Dask cluster use ``gis/distributed.py``, which partitions the
    impervious polygons too instead of handing every task the whole layers.
    """
    if partitions <= 1 and map_fn is None:  # one partition: no subsetting, no merge
        result = impervious_by_parcel(parcels, layers, row, keep_pieces=keep_pieces, threads=threads)
        if progress:
            progress(1, 1)
        return result
    parts = partition_parcels(parcels, partitions)
    # In a pool or on a cluster each partition runs single-threaded (its workers are the parallelism).
    args = [(*subset_for(parcels, idx, layers, row), keep_pieces, threads if map_fn is None else 1) for idx in parts]
    if map_fn is None:
        results = []
        for k, a in enumerate(args):
            results.append(_run_partition(*a))
            if progress:
                progress(k + 1, len(args))
    else:
        results = map_fn(_run_partition, args)
    results.append(_leftovers(layers, row, [a[1] for a in args]))
    return merge_results(results, [lyr.name for lyr in layers], parcels.fids)


def _leftovers(layers: Sequence[Layer], row: Sequence[Layer], taken: list[list[Layer]]) -> OverlayResult:
    """Features no partition read (they touch no parcel): reported as on no parcel, like the unpartitioned run."""
    feats, problems = [], []
    row_geoms = np.concatenate([r.geoms for r in row]) if row else np.array([], dtype=object)
    for li, lyr in enumerate(layers):
        seen = set()
        for part in taken:
            seen.update(part[li].fids.tolist())
        rest = np.array([f not in seen for f in lyr.fids], dtype=bool)
        left = Layer(lyr.name, lyr.fids[rest], lyr.geoms[rest])
        if not len(left):
            continue
        kept, table = _remove_row(left, row_geoms)
        feats.append(table)
        if len(kept):
            problems.append(Problem("outside_parcels", lyr.name, OUTSIDE_MESSAGE, [str(f) for f in kept.fids],
                                    severity="info"))
    empty_areas = pd.DataFrame(columns=["impervious_sqft", *[f"{lyr.name}_sqft" for lyr in layers]],
                               index=pd.Index([], name="parcel_id"), dtype=float)
    empty_pieces = pd.DataFrame(columns=["parcel_id", "layer", "fid", "area_sqft", "geometry"])
    ft = pd.concat(feats, ignore_index=True) if feats else \
        pd.DataFrame(columns=["layer", "fid", "area_sqft", "row_removed_sqft"])
    return OverlayResult([lyr.name for lyr in layers], empty_areas, empty_pieces, ft, problems)


def _run_partition(parcels: Layer, layers: list[Layer], row: list[Layer], keep_pieces: bool,
                   threads: int | None = 1) -> OverlayResult:
    return impervious_by_parcel(parcels, layers, row, keep_pieces=keep_pieces, threads=threads)


def merge_results(results: Sequence[OverlayResult], names: list[str], order: np.ndarray) -> OverlayResult:
    """Concatenate partition results (each parcel is in exactly one partition).

    A feature near a partition edge is read by several partitions; its own table row is kept once
    and it is "on no parcel" only if no partition attributed any of it.
    """
    areas = pd.concat([r.areas for r in results if len(r.areas)]).reindex(order.astype(str))
    pieces = pd.concat([r.pieces for r in results if len(r.pieces)], ignore_index=True) if any(
        len(r.pieces) for r in results) else results[0].pieces
    feats = pd.concat([r.features for r in results if len(r.features)], ignore_index=True
                      ).drop_duplicates(["layer", "fid"])
    problems: dict[tuple[str, str], Problem] = {}
    outside_ids: dict[str, set[str]] = {}
    for r in results:
        for p in r.problems:
            if p.code == "outside_parcels":
                outside_ids.setdefault(p.layer, set()).update(p.ids)
            else:
                problems.setdefault((p.code, p.layer), p)
    out: list[Problem] = list(problems.values())
    for lyr, ids in outside_ids.items():
        # Only the few candidate ids are looked up (not a Python set of every piece).
        got = set(pieces.loc[(pieces["layer"] == lyr).to_numpy(), "fid"].astype(str)) if len(pieces) else set()
        left = sorted((i for i in ids if i not in got), key=_natural)
        if left:
            out.append(Problem("outside_parcels", lyr, OUTSIDE_MESSAGE, left, severity="info"))
    return OverlayResult(names, areas, pieces, feats, out)


def _natural(s: str):
    return (0, int(s), "") if s.isdigit() else (1, 0, s)


# ---------------------------------------------------------------------------------------------
# File-to-file
# ---------------------------------------------------------------------------------------------

@dataclass
class Inputs:
    parcels: Layer
    layers: list[Layer]
    row: list[Layer]
    problems: list[Problem]
    parcel_attrs: pd.DataFrame | None = None


def load_inputs(*, parcels: str, id_field: str, impervious: Sequence[str], right_of_way: Sequence[str] = (),
                row_where: dict[str, Iterable[str]] | None = None, source_crs: str | None = None,
                parcel_fields: Sequence[str] = ()) -> Inputs:
    """Read and validate every input (``PATH[:LAYER]`` specs). LayerError if one is unusable."""
    problems: list[Problem] = []
    ppath, player = parse_source(parcels)
    fields = [id_field, *(row_where or {}).keys(), *parcel_fields]
    pdf, pr = read_layer(ppath, player, name="parcels", source_crs=source_crs, fields=list(dict.fromkeys(fields)))
    problems += pr
    parcel_layer, row_in_parcels, pr = prepare_parcels(pdf, id_field=id_field, row_where=row_where)
    problems += pr
    layers = []
    for spec in impervious:
        path, layer = parse_source(spec)
        name = layer or Path(path.rstrip("/")).stem
        df, pr = read_layer(path, layer, name=name, source_crs=source_crs)
        lyr, pr2 = clean_polygons(np.arange(1, len(df) + 1), df["geometry"].to_numpy(), layer=name)
        problems += pr + pr2
        layers.append(lyr)
    row = [row_in_parcels] if len(row_in_parcels) else []
    for spec in right_of_way:
        path, layer = parse_source(spec)
        name = layer or Path(path.rstrip("/")).stem
        df, pr = read_layer(path, layer, name=name, source_crs=source_crs)
        lyr, pr2 = clean_polygons(np.arange(1, len(df) + 1), df["geometry"].to_numpy(), layer=name)
        problems += pr + pr2
        row.append(lyr)
    attrs = pdf if parcel_fields else None
    return Inputs(parcel_layer, layers, row, problems, attrs)


def write_csv(result: OverlayResult, out) -> None:
    """``parcel_id,impervious_sqft,<layer>_sqft...`` one row per parcel, ft² to 0.01."""
    df = result.areas.round(2).reset_index()
    df.to_csv(out, index=False, float_format="%.2f")


def write_gpkg(path: str, parcels: Layer, result: OverlayResult) -> None:
    """A GeoPackage for QGIS/ArcGIS: ``parcels`` (polygon + areas) and ``impervious_pieces``."""
    import geopandas as gpd

    areas = result.areas.round(2)
    gdf = gpd.GeoDataFrame(areas.reset_index(), geometry=list(parcels.geoms), crs=TARGET_CRS) \
        if list(areas.index) == list(parcels.fids.astype(str)) else \
        gpd.GeoDataFrame(areas.reindex(parcels.fids.astype(str)).reset_index(), geometry=list(parcels.geoms),
                         crs=TARGET_CRS)
    gdf.to_file(path, layer="parcels", driver="GPKG")
    # The GeoPackage driver keeps "fid" for its own integer feature id: the source layer's feature id (a
    # string) goes out as "source_fid", as `stormwater gis export` names it (selectors.survey_geopackage).
    pcs = result.pieces.rename(columns={"fid": "source_fid"})
    pcs["area_sqft"] = pcs["area_sqft"].round(2)
    gpd.GeoDataFrame(pcs, geometry="geometry", crs=TARGET_CRS).to_file(path, layer="impervious_pieces", driver="GPKG")
