"""BMP and structure inventory from GIS files, with the source's BMP types mapped to the EPA Region 1
BMP performance categories the engineering core uses (engineering.water_quality; Ch. 380 § 380-11 A(4):
pollutant removal per EPA Region 1's BMP performance tools).

The mapping is a table: source type → (Region 1 category or "" when none applies, the reason). A
category is assigned only where the source type names the same practice; where the source is
ambiguous the conservative category is chosen and the note says so. Types with no Region 1 curve
(pretreatment devices, inlet controls, green roofs, water harvesting, detention without treatment)
stay uncategorized rather than credited with a guessed removal.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

# Region 1 category keys: the BMP names of engineering/data/region1_bmp_performance_curve_fits_rberost.csv,
# normalized as water_quality._norm_bmp does.
REGION1_CATEGORIES = (
    "biofiltration_w_underdrain", "bioretention_basin", "enhanced_biofiltration_w_isr",
    "extended_dry_detention_basin", "grass_swale_w_detention", "gravel_wetland", "infiltration_basin",
    "infiltration_chamber", "infiltration_trench", "porous_pavement_w_subsurface_infiltration",
    "porous_pavement_w_underdrain", "sand_filter_w_underdrain", "wet_pond",
)

# Point BMPs: STM_Structure_pt.geojson, StructureType "Water Quality BMP", field FeatureType.
BMP_TYPE_MAP: dict[str, tuple[str, str]] = {
    "bioretention": ("bioretention_basin", "same practice"),
    "rain garden": ("bioretention_basin", "a small bioretention area (Ch. 380 definitions, LID: bioretention/rain gardens)"),
    "permeable pavement": ("porous_pavement_w_underdrain",
                           "underdrain not recorded in the source: the conservative (underdrained) curve"),
    "detention pond": ("extended_dry_detention_basin", "dry detention assumed; a permanent pool would be wet_pond"),
    "vegetative swale": ("grass_swale_w_detention", "same practice"),
    "class v injection well": ("infiltration_chamber", "subsurface infiltration (dry well)"),
    "underground detention": ("", "detention only: no Region 1 water-quality curve"),
    "pretreatment device": ("", "pretreatment: no Region 1 removal curve (credited only in a treatment train)"),
    "inlet control": ("", "inlet insert / trash control: no Region 1 removal curve"),
    "green roof": ("", "no Region 1 curve"),
    "water harvesting system": ("", "no Region 1 curve"),
    "structural bmp": ("", "type not specified in the source"),
    "to be determined": ("", "type not determined in the source"),
    "spring": ("", "not a BMP (natural feature)"),
}
STRUCTURE_KINDS = {"catchbasin": "catch_basin", "manhole": "manhole", "outfall": "outfall", "headwall": "headwall",
                   "inlet": "inlet", "cleanout": "cleanout", "junction box": "junction_box", "manhole-cb": "manhole",
                   "underground detention": "underground_detention", "outlet": "outlet"}


def normalise_source_id(x: str) -> str:
    """A source id as the same feature's id in another export (issue 26): braces, case and spaces dropped
    (``{a1b2-…}`` and ``A1B2-…`` are one GlobalID)."""
    return x.strip().strip("{}").strip().upper()


def map_bmp_type(source_type: str | None) -> tuple[str, str]:
    """(Region 1 category or "", note) for a source BMP type; unknown types are left uncategorized."""
    key = (source_type or "").strip().lower()
    if key in BMP_TYPE_MAP:
        return BMP_TYPE_MAP[key]
    return "", f"unknown source type {source_type!r}: not mapped"


@dataclass
class InventoryRead:
    bmps: list[dict] = field(default_factory=list)
    structures: list[dict] = field(default_factory=list)
    pipes: dict[str, dict] = field(default_factory=dict)        # LineType → {count, length_ft}
    subwatersheds: list[dict] = field(default_factory=list)
    source: str = ""


def _val(v):
    try:
        import math

        if v is None or (isinstance(v, float) and math.isnan(v)):
            return ""
    except TypeError:
        pass
    return str(v)


LAYERS = ("STM_Structure_pt", "STM_Structure_py", "STM_Line_ln", "STM_Subwatersheds_py")
ERR_NO_FOLDER = "{name}: no such folder: nothing imported"
ERR_NO_LAYERS = ("{name}: no inventory layers in the folder (looked for {layers} as .geojson, .gpkg or .json): "
                 "nothing imported")
ERR_NO_CRS = "{name}: the layer carries no coordinate reference system: nothing imported"


def read_inventory(folder: str | Path) -> InventoryRead:
    """Read the UKY-style layers (STM_Structure_pt, STM_Structure_py, STM_Line_ln, STM_Subwatersheds_py)
    from a folder of GeoJSON/GeoPackage files. Lengths and areas in Massachusetts State Plane feet
    would be wrong for Kentucky: they are computed in the layer's own UTM zone (estimate_utm_crs).

    Through the import pipeline (issue 20): the whole folder is read before anything is written; a missing or
    empty folder, a file GDAL cannot read (truncated, damaged) or a layer without a CRS raises ``ImportRefused``
    naming the folder or file. Points are stored as WGS84 latitude/longitude whatever the layer's CRS (a layer
    in State Plane feet is reprojected, never stored as if its feet were degrees)."""
    import pyogrio

    from stormwater.gis.overlay import LayerError, check_degrees, check_inside_town, gdal_errors
    from stormwater.imports.pipeline import ImportRefused, error, refuse_on_errors

    folder = Path(folder)
    if not folder.is_dir():
        raise ImportRefused(folder.name, [error("no_folder", folder.name, ERR_NO_FOLDER.format(name=folder))])
    out = InventoryRead(source=str(folder))
    found = []

    def layer(stem):
        for suffix in (".geojson", ".gpkg", ".json"):
            f = folder / f"{stem}{suffix}"
            if f.exists():
                found.append(f.name)
                try:
                    with gdal_errors(f):
                        df = pyogrio.read_dataframe(f)
                except LayerError as e:
                    raise ImportRefused(f.name, [error("unreadable", f.name, str(e))]) from None
                if len(df) and df.crs is None:
                    raise ImportRefused(f.name, [error("no_crs", f.name, ERR_NO_CRS.format(name=f.name))])
                if len(df):  # the pipeline's shared checks (issue 26): degrees that are not, and inside the town
                    try:
                        check_degrees(df.geometry.values, df.crs, layer=f.name)
                    except LayerError as e:
                        raise ImportRefused(f.name, [error("not_degrees", f.name, str(e))]) from None
                    refuse_on_errors(f.name, check_inside_town(df.geometry.values, df.crs, layer=f.name))
                return df
        return None

    layers = {stem: layer(stem) for stem in LAYERS}
    if not found:
        raise ImportRefused(folder.name, [error("no_layers", folder.name,
                                                ERR_NO_LAYERS.format(name=folder.name, layers=", ".join(LAYERS)))])
    pts = layers["STM_Structure_pt"]
    if pts is not None and len(pts):
        pts = pts.to_crs("EPSG:4326")  # latitude/longitude in degrees, whatever the layer's units
    subs = layers["STM_Subwatersheds_py"]
    if subs is not None and len(subs):
        utm = subs.estimate_utm_crs()
        sp = subs.to_crs(utm)
        for name, area in zip(subs["SubwatershedName"], sp.geometry.area):
            out.subwatersheds.append({"name": _val(name), "area_acres": round(float(area) * 10.7639104 / 43560, 3)})
    if pts is not None:
        sub_of = {}
        if subs is not None and len(subs):
            import geopandas as gpd

            j = gpd.sjoin(pts[["geometry"]], subs[["SubwatershedName", "geometry"]].to_crs(pts.crs),
                          how="left", predicate="within")
            j = j[~j.index.duplicated(keep="first")]
            sub_of = {i: _val(n) for i, n in zip(j.index, j["SubwatershedName"])}
        for i, row in pts.iterrows():
            st = _val(row.get("StructureType"))
            g = row.geometry
            lat, lon = (g.y, g.x) if g is not None and not g.is_empty else (None, None)
            if st == "Water Quality BMP":
                cat, note = map_bmp_type(_val(row.get("FeatureType")))
                out.bmps.append({"source_type": _val(row.get("FeatureType")) or "unspecified", "category": cat,
                                 "note": note, "lat": lat, "lon": lon, "owner": _val(row.get("Owner")),
                                 "external_id": _val(row.get("GlobalID")), "treats": _val(row.get("Description"))[:300],
                                 "subwatershed": sub_of.get(i, ""), "name": f"{_val(row.get('FeatureType')) or 'BMP'} "
                                                                           f"#{_val(row.get('OBJECTID'))}"})
            else:
                kind = STRUCTURE_KINDS.get(st.lower(), (st or "unknown").lower().replace(" ", "_"))
                out.structures.append({"kind": kind, "lat": lat, "lon": lon, "owner": _val(row.get("Owner")),
                                       "external_id": _val(row.get("GlobalID"))})
    ids: dict[str, list[str]] = {}
    for i, x in enumerate(r["external_id"] for r in out.bmps + out.structures):
        if x:
            ids.setdefault(normalise_source_id(x), []).append(x)
    twice = [f"GlobalID {v[0]} ({len(v)} features)" for v in ids.values() if len(v) > 1]
    if twice:
        name = "STM_Structure_pt"
        raise ImportRefused(name, [error("duplicate_id", name, f"{name}: source ids (GlobalID) on more than one "
                                         "feature: which one is the BMP? nothing imported", twice)])
    polys = layers["STM_Structure_py"]
    if polys is not None and len(polys):
        # Footprints of basins and culverts: kept as structures (the point layer already holds each BMP once;
        # counting a basin's footprint too would double it in the MS4 inventory).
        centroids = polys.to_crs(polys.estimate_utm_crs()).geometry.centroid.to_crs("EPSG:4326")
        for (_, row), c in zip(polys.iterrows(), centroids):
            code = _val(row.get("FeatureType")) or "unknown"
            out.structures.append({"lat": c.y, "lon": c.x, "owner": _val(row.get("Owner")),
                                   "external_id": _val(row.get("GlobalID")), "kind": f"footprint_{code.lower()}"})
    lines = layers["STM_Line_ln"]
    if lines is not None and len(lines):
        lengths = lines.to_crs(lines.estimate_utm_crs()).geometry.length * 3.28083989501
        for lt, ln in zip(lines["LineType"], lengths):
            k = _val(lt) or "unknown"
            d = out.pipes.setdefault(k, {"count": 0, "length_ft": 0.0})
            d["count"] += 1
            d["length_ft"] += float(ln)
        for d in out.pipes.values():
            d["length_ft"] = round(d["length_ft"], 1)
    return out
