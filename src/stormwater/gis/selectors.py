"""Reads of the GIS app: surveys, the ERU determination, change reports, map GeoJSON, exports."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from pathlib import Path

import numpy as np
import shapely
from django.conf import settings
from django.db.models import Count, Sum
from django.http import Http404

from stormwater.parcels.fees import BillingProblem, ParcelFacts, fee_provider
from stormwater.parcels.models import ImperviousSurvey, Parcel, ParcelImpervious
from stormwater.parcels.selectors import parcel_classification
from stormwater.rules.classes import ClassificationError, PropertyClass, normalize_use_code
from stormwater.rules.fees import erus_for_area
from stormwater.rules.town import demo_terms
from stormwater.web.files import paths_hidden

from . import overlay
from .models import GisImport, ImperviousPiece, ParcelShape, SurveyParcelFacts
from .stats import EruStats, eru_stats, is_outlier

SINGLE_FAMILY_CODE = "101"  # DOR property type 101: single-family residence (Ch. 295 Art. IV ¶B)
ERR_NO_SINGLE_FAMILY = "No single-family residence (land use 101) has an area in this survey."


def surveys() -> list[ImperviousSurvey]:
    return list(ImperviousSurvey.objects.annotate(n=Count("areas"), total=Sum("areas__impervious_sqft"))
                .select_related("gis_import").order_by("-surveyed_on", "-id"))


def survey_get(survey_id: int) -> ImperviousSurvey:
    try:
        return ImperviousSurvey.objects.get(pk=survey_id)
    except ImperviousSurvey.DoesNotExist:
        raise Http404("No such survey.") from None


def gis_import_get(import_id: int) -> GisImport:
    try:
        return GisImport.objects.get(pk=import_id)
    except GisImport.DoesNotExist:
        raise Http404("No such import.") from None


def gis_imports() -> list[GisImport]:
    return list(GisImport.objects.select_related("survey", "created_by")[:50])


# ---------------------------------------------------------------------------------------------
# ERU determination (¶B)
# ---------------------------------------------------------------------------------------------

@dataclass
class EruDetermination:
    survey: ImperviousSurvey
    stats: EruStats | None
    rows: list[dict]       # every single-family parcel with its area, outliers flagged
    outliers: list[dict]
    excluded: list[dict]   # single-family parcels the survey has no area for
    error: str | None = None

    def as_json(self) -> dict:
        s = self.stats
        return {
            "survey": {"id": self.survey.pk, "name": self.survey.name, "surveyed_on": str(self.survey.surveyed_on)},
            "method": "median of the impervious area of all single-family residences (DOR land use 101), "
                      "Ch. 295 Art. IV ¶B; outliers by Tukey's fences (1.5 × IQR) are listed, not removed",
            "error": self.error,
            "n": s.n if s else 0,
            "median_sqft": str(s.median_sqft) if s else None,
            "eru_sqft_rounded": str(s.eru_sqft) if s else None,
            "q1_sqft": str(s.q1_sqft) if s else None, "q3_sqft": str(s.q3_sqft) if s else None,
            "mean_sqft": str(s.mean_sqft) if s else None,
            "min_sqft": str(s.min_sqft) if s else None, "max_sqft": str(s.max_sqft) if s else None,
            "fences_sqft": [str(s.low_fence_sqft), str(s.high_fence_sqft)] if s else None,
            "histogram": [{"from_sqft": str(b.lo), "to_sqft": str(b.hi), "count": b.count} for b in s.bins] if s else [],
            "outliers": self.outliers,
            "without_area": self.excluded,
        }


def _is_single_family(code: str) -> bool:
    try:
        return normalize_use_code(code) == SINGLE_FAMILY_CODE
    except ClassificationError:
        return False


def eru_determination(*, survey: ImperviousSurvey) -> EruDetermination:
    """The median impervious area of single-family residences in ``survey`` (Ch. 295 Art. IV ¶B).

    Single-family = DOR land use 101 in the assessor facts the survey was imported with (or the
    parcel's current record for surveys made before facts were kept). Zero areas count: a house
    with no mapped impervious surface is a fact of the data (and shows up as an outlier to check).
    """
    snap = dict(SurveyParcelFacts.objects.filter(survey=survey).values_list("parcel_id", "land_use_code"))
    areas = {pk: (pid, addr, sqft, lot) for pk, pid, addr, sqft, lot in
             ParcelImpervious.objects.filter(survey=survey).values_list(
                 "parcel_id", "parcel__parcel_id", "parcel__address", "impervious_sqft", "parcel__lot_sqft")}
    rows, excluded = [], []
    for p in Parcel.objects.only("pk", "parcel_id", "address", "land_use_code").order_by("parcel_id"):
        code = snap.get(p.pk, p.land_use_code)
        if not _is_single_family(code):
            continue
        if p.pk not in areas:
            excluded.append({"parcel_id": p.parcel_id, "address": p.address})
            continue
        _, _, sqft, lot = areas[p.pk]
        rows.append({"parcel_id": p.parcel_id, "address": p.address, "impervious_sqft": sqft, "lot_sqft": lot})
    if not rows:
        return EruDetermination(survey, None, [], [], excluded, ERR_NO_SINGLE_FAMILY)
    stats = eru_stats([r["impervious_sqft"] for r in rows])
    outliers = []
    for r in rows:
        reasons = []
        if is_outlier(r["impervious_sqft"], stats):
            reasons.append("outside Tukey's fences")
        if r["impervious_sqft"] == 0:
            reasons.append("no impervious area mapped")
        if r["lot_sqft"] and r["impervious_sqft"] > r["lot_sqft"]:
            reasons.append("more than the lot size")
        r["outlier"] = bool(reasons)
        if reasons:
            outliers.append({"parcel_id": r["parcel_id"], "address": r["address"],
                             "impervious_sqft": str(r["impervious_sqft"]), "why": "; ".join(reasons)})
    return EruDetermination(survey, stats, rows, outliers, excluded)


def histogram_svg_bars(stats: EruStats, *, width: int = 720, height: int = 220) -> dict:
    """Coordinates for the server-side SVG histogram (no JavaScript, no CDN)."""
    bins = stats.bins
    top = max((b.count for b in bins), default=1) or 1
    pad_l, pad_b, pad_t = 40, 30, 10
    plot_w, plot_h = width - pad_l - 10, height - pad_b - pad_t
    bw = plot_w / max(len(bins), 1)
    lo, hi = float(bins[0].lo), float(bins[-1].hi)

    def x_of(v: float) -> float:
        return pad_l + (v - lo) / ((hi - lo) or 1) * plot_w

    bars = [{"x": round(pad_l + i * bw, 1), "w": round(max(bw - 1, 1), 1),
             "y": round(pad_t + plot_h - b.count / top * plot_h, 1), "h": round(b.count / top * plot_h, 1),
             "lo": b.lo, "hi": b.hi, "count": b.count,
             "outside": b.hi <= stats.low_fence_sqft or b.lo > stats.high_fence_sqft} for i, b in enumerate(bins)]
    return {"width": width, "height": height, "bars": bars, "base_y": pad_t + plot_h, "pad_l": pad_l,
            "right": width - 10, "top": top, "bin_sqft": bins[0].hi - bins[0].lo, "median_x": round(x_of(float(stats.median_sqft)), 1), "pad_t": pad_t,
            "ticks": [{"x": round(x_of(float(b.lo)), 1), "label": f"{b.lo:,.0f}"} for b in bins[::max(1, len(bins) // 6)]]}


# ---------------------------------------------------------------------------------------------
# Change report between two surveys
# ---------------------------------------------------------------------------------------------

@dataclass
class ChangeRow:
    parcel_id: str
    address: str
    class_from: str
    class_to: str
    sqft_from: Decimal | None
    sqft_to: Decimal | None
    erus_from: int | None
    erus_to: int | None
    fee_from: Decimal | None
    fee_to: Decimal | None
    problem_from: str | None
    problem_to: str | None
    # A unit parcel named by its association's instrument in force: billed through the master parcel for its share
    # (Ch. 295 Art. IV ¶G), so it has no fee of its own here (its ground change is still shown).
    billed_through: str | None = None

    @property
    def fee_delta(self) -> Decimal:
        return (self.fee_to or Decimal(0)) - (self.fee_from or Decimal(0))

    @property
    def sqft_delta(self) -> Decimal:
        return (self.sqft_to or Decimal(0)) - (self.sqft_from or Decimal(0))

    def as_json(self) -> dict:
        s = (lambda v: None if v is None else str(v))
        return {"parcel_id": self.parcel_id, "address": self.address, "class_from": self.class_from,
                "class_to": self.class_to, "impervious_sqft_from": s(self.sqft_from),
                "impervious_sqft_to": s(self.sqft_to), "erus_from": self.erus_from, "erus_to": self.erus_to,
                "annual_fee_from": s(self.fee_from), "annual_fee_to": s(self.fee_to),
                "fee_change": str(self.fee_delta), "problem_from": self.problem_from, "problem_to": self.problem_to,
                "billed_through": self.billed_through}


@dataclass
class ChangeReport:
    survey_from: ImperviousSurvey
    survey_to: ImperviousSurvey
    resolution: object
    rows: list[ChangeRow]
    parcels_compared: int
    error: str | None = None

    @property
    def fee_delta(self) -> Decimal:
        return sum((r.fee_delta for r in self.rows), Decimal(0))

    def as_json(self) -> dict:
        return {"from": {"id": self.survey_from.pk, "name": self.survey_from.name,
                         "surveyed_on": str(self.survey_from.surveyed_on)},
                "to": {"id": self.survey_to.pk, "name": self.survey_to.name,
                       "surveyed_on": str(self.survey_to.surveyed_on)},
                "resolution": str(self.resolution) if self.resolution else None, "error": self.error,
                "parcels_compared": self.parcels_compared, "parcels_changed": len(self.rows),
                "annual_fee_change": str(self.fee_delta), "rows": [r.as_json() for r in self.rows]}


def _facts_for(survey: ImperviousSurvey) -> dict[int, tuple[str, int | None]]:
    return {pk: (code, units) for pk, code, units in
            SurveyParcelFacts.objects.filter(survey=survey).values_list("parcel_id", "land_use_code", "dwelling_units")}


BY_AREA = (PropertyClass.NONRESIDENTIAL, PropertyClass.LARGE_RESIDENTIAL)


def _erus(cls, sqft, terms) -> int | None:
    if cls not in BY_AREA or sqft is None:
        return None
    return erus_for_area(Decimal(sqft), terms.eru_sqft)


class _Through:
    """What the association instruments in force do to a report's parcels (``utility.selectors.association_split``
    through ``parcels.fees``, Ch. 295 Art. IV ¶G): a unit parcel has no fee of its own (its share is in the master's),
    and a master whose unit has no owner is not billed — as the bill run reads them."""

    def __init__(self, as_of: date):
        self.split = fee_provider().association_split(on=as_of)
        self.masters = dict(Parcel.objects.filter(pk__in=list(self.split.shares)).values_list("pk", "parcel_id"))

    def unit_note(self, pk: int) -> str | None:
        master = self.split.master_of(pk)
        if master is None:
            return None
        return self.split.unit_share(pk, master_parcel_id=self.masters[master], master_fee=None).billed_through

    def price(self, p: Parcel, code: str, units, sqft, terms, cache: dict | None = None):
        """``_price`` as the bill run bills: (class, fee, problem); a unit parcel's fee None (see ``unit_note``)."""
        cls, fee, problem = _price(p, code, units, sqft, terms, cache)
        if self.split.master_of(p.pk) is not None:
            return cls, None, None
        if fee is not None and fee.property_class is not PropertyClass.EXEMPT and fee.annual_fee:
            refusal = self.split.problem(p.pk)
            if refusal:
                return cls, None, refusal
        return cls, fee, problem


def _price(p: Parcel, code: str, units, sqft, terms, cache: dict | None = None):
    """(class or None, the fee assessment or None, the billing problem or None) of a parcel with these facts,
    through ``utility.selectors.assess`` (the one fee path, reached through ``parcels.fees``). Reports price through
    ``_Through.price``."""
    pf = ParcelFacts(has_owner=p.owner_id is not None, land_use_code=code, dwelling_units=units,
                     public_way=p.public_way, road_maintenance=p.road_maintenance,
                     class_override=p.class_override, class_override_reason=p.class_override_reason,
                     lot_sqft=p.lot_sqft, impervious_sqft=sqft)
    try:
        cls = parcel_classification(pf).property_class
    except ClassificationError:
        cls = None
    fee = problem = None
    try:
        fee = fee_provider().assess(pf, terms, cache=cache)
    except BillingProblem as e:
        problem = str(e)
    return cls, fee, problem


def survey_comparison(*, new_areas: dict[int, Decimal], as_of: date, limit: int = 200) -> dict:
    """What a new survey would do to the bill (issue 20), before it replaces the areas in force: parcels whose
    impervious area or ERUs change, the fee effect in dollars and the town's annual total before and after, priced
    under the resolution in force on ``as_of`` (the demo terms, said so, when none is) through the one fee path.

    ``new_areas``: parcel pk → ft² of the new survey. "Before" is what a bill run on ``as_of`` uses
    (``impervious_as_of``: each parcel's latest survey); "after" is the same with the new survey's areas."""
    from stormwater.parcels.selectors import impervious_as_of, survey_in_force

    res = fee_provider().resolution_in_force(as_of)
    terms = res.fee_terms() if res else demo_terms()
    prev = survey_in_force(as_of)
    before = impervious_as_of(as_of=as_of)
    total_b = total_a = Decimal(0)
    area_changed = eru_changed = 0
    rows: list[ChangeRow] = []
    cache: dict = {}
    through = _Through(as_of)
    for p in Parcel.objects.order_by("parcel_id").iterator(chunk_size=2000):
        sb = before.get(p.pk)
        sa = new_areas.get(p.pk, sb)
        cb, fee_b, pb = through.price(p, p.land_use_code, p.dwelling_units, sb, terms, cache)
        if sa == sb:
            ca, fee_a, pa = cb, fee_b, pb
        else:
            ca, fee_a, pa = through.price(p, p.land_use_code, p.dwelling_units, sa, terms, cache)
        total_b += fee_b.annual_fee if fee_b else 0
        total_a += fee_a.annual_fee if fee_a else 0
        if sa == sb:
            continue
        area_changed += 1
        eb, ea = _erus(cb, sb, terms), _erus(ca, sa, terms)
        eru_changed += eb != ea
        rows.append(ChangeRow(p.parcel_id, p.address, cb.label if cb else "unknown", ca.label if ca else "unknown",
                              sb, sa, eb, ea, fee_b.annual_fee if fee_b else None, fee_a.annual_fee if fee_a else None,
                              pb, pa, through.unit_note(p.pk)))
    rows.sort(key=lambda r: (-abs(r.fee_delta), r.parcel_id))
    return {"previous_survey": {"id": prev.pk, "name": prev.name, "surveyed_on": str(prev.surveyed_on)} if prev else None,
            "as_of": str(as_of), "resolution": str(res) if res else None,
            "priced_with": str(res) if res else "the demo fee terms (no rate resolution in force)",
            "parcels_impervious_changed": area_changed, "parcels_erus_changed": eru_changed,
            "annual_fee_change": str(total_a - total_b), "town_total_before": str(total_b),
            "town_total_after": str(total_a), "rows": [r.as_json() for r in rows[:limit]],
            "rows_shown": min(len(rows), limit)}


def survey_changes(*, survey_from: ImperviousSurvey, survey_to: ImperviousSurvey, as_of: date) -> ChangeReport:
    """Parcels whose ERUs, class or fee differ between two surveys, priced under the resolution in force.

    Both sides go through ``utility.selectors.assess`` (the one fee path, ``parcels.fees``) with the same resolution,
    so the fee change is what the ground change (and any class change) does to the bill.
    """
    res = fee_provider().resolution_in_force(as_of)
    a = dict(ParcelImpervious.objects.filter(survey=survey_from).values_list("parcel_id", "impervious_sqft"))
    b = dict(ParcelImpervious.objects.filter(survey=survey_to).values_list("parcel_id", "impervious_sqft"))
    fa, fb = _facts_for(survey_from), _facts_for(survey_to)
    pks = set(a) | set(b)
    rows: list[ChangeRow] = []
    # With no resolution in force the shipped demo terms price the change (labelled as such).
    terms = res.fee_terms() if res else demo_terms()
    through = _Through(as_of)
    for p in Parcel.objects.filter(pk__in=pks).order_by("parcel_id"):
        sides = []
        for area, facts in ((a, fa), (b, fb)):
            code, units = facts.get(p.pk, (p.land_use_code, p.dwelling_units))
            cls, fee, problem = through.price(p, code, units, area.get(p.pk), terms)
            sides.append((cls, area.get(p.pk), fee, problem))
        (ca, sa, fee_a, pa), (cb, sb, fee_b, pb) = sides
        # ERUs straight from the area (rules.fees), so a parcel that cannot be billed (e.g. no owner
        # on record) still shows its ground change.
        erus_a, erus_b = _erus(ca, sa, terms), _erus(cb, sb, terms)
        row = ChangeRow(p.parcel_id, p.address, ca.label if ca else "unknown", cb.label if cb else "unknown",
                        sa, sb, erus_a, erus_b, fee_a.annual_fee if fee_a else None,
                        fee_b.annual_fee if fee_b else None, pa, pb, through.unit_note(p.pk))
        if ca != cb or erus_a != erus_b or row.fee_delta != 0 or (pa is None) != (pb is None):
            rows.append(row)
    rows.sort(key=lambda r: (-abs(r.fee_delta), r.parcel_id))
    return ChangeReport(survey_from, survey_to, res, rows, len(pks),
                        None if res else f"No rate resolution is in force on {as_of}: priced with the demo values.")


# ---------------------------------------------------------------------------------------------
# GeoJSON for the maps (WGS84 lon/lat)
# ---------------------------------------------------------------------------------------------

def _to_lonlat(wkbs: list[bytes]) -> np.ndarray:
    if not wkbs:
        return np.array([], dtype=object)
    geoms = shapely.from_wkb([bytes(w) for w in wkbs])
    return overlay.from_target_crs(geoms)


def _feature(geom, props: dict) -> dict:
    return {"type": "Feature", "geometry": shapely.geometry.mapping(geom), "properties": props}


def parcel_latest_shape(parcel: Parcel) -> ParcelShape | None:
    return parcel.shapes.select_related("survey").order_by("-survey__surveyed_on", "-survey_id").first()


def parcel_has_geometry(parcel: Parcel) -> bool:
    return ParcelShape.objects.filter(parcel=parcel).exists()


def parcel_geojson(*, parcel: Parcel, survey: ImperviousSurvey | None = None) -> dict:
    """The parcel polygon and its impervious pieces by layer for ``survey`` (default: the latest)."""
    shape = (ParcelShape.objects.filter(parcel=parcel, survey=survey).first() if survey
             else parcel_latest_shape(parcel))
    if shape is None:
        return {"type": "FeatureCollection", "features": [], "layers": [], "survey": None}
    survey = shape.survey
    pieces = list(ImperviousPiece.objects.filter(survey=survey, parcel=parcel).order_by("layer", "id"))
    geoms = _to_lonlat([shape.geom_wkb] + [p.geom_wkb for p in pieces])
    feats = [_feature(geoms[0], {"kind": "parcel", "parcel_id": parcel.parcel_id, "address": parcel.address,
                                 "area_sqft": str(shape.area_sqft)})]
    feats += [_feature(g, {"kind": "impervious", "layer": p.layer, "source_fid": p.source_fid,
                           "area_sqft": str(p.area_sqft)}) for g, p in zip(geoms[1:], pieces)]
    return {"type": "FeatureCollection", "features": feats, "layers": sorted({p.layer for p in pieces}),
            "survey": {"id": survey.pk, "name": survey.name, "surveyed_on": str(survey.surveyed_on)}}


def changes_geojson(*, report: ChangeReport, limit: int = 500) -> dict:
    """Changed parcels (fee change in the properties) and the impervious area added and removed on them."""
    pids = [r.parcel_id for r in report.rows[:limit]]
    by_pid = {r.parcel_id: r for r in report.rows}
    parcels = dict(Parcel.objects.filter(parcel_id__in=pids).values_list("pk", "parcel_id"))
    shapes = {}
    for s in ParcelShape.objects.filter(parcel_id__in=parcels, survey__in=[report.survey_from, report.survey_to]) \
            .order_by("survey__surveyed_on"):
        shapes[s.parcel_id] = s.geom_wkb  # the later survey's polygon wins
    pieces: dict[tuple[int, int], list] = {}
    for sid, pk, wkb in ImperviousPiece.objects.filter(
            parcel_id__in=parcels, survey__in=[report.survey_from, report.survey_to]).values_list(
            "survey_id", "parcel_id", "geom_wkb"):
        pieces.setdefault((sid, pk), []).append(shapely.from_wkb(bytes(wkb)))
    feats = []
    for pk, pid in parcels.items():
        r = by_pid[pid]
        props = {"parcel_id": pid, "address": r.address, "fee_change": str(r.fee_delta),
                 "sqft_change": str(r.sqft_delta), "class_from": r.class_from, "class_to": r.class_to}
        if pk in shapes:
            feats.append(_feature(_to_lonlat([shapes[pk]])[0], {"kind": "parcel", **props}))
        before = shapely.union_all(pieces.get((report.survey_from.pk, pk), []))
        after = shapely.union_all(pieces.get((report.survey_to.pk, pk), []))
        for kind, g in (("added", shapely.difference(after, before)), ("removed", shapely.difference(before, after))):
            g = overlay._polygonal_part(g)
            if not g.is_empty and g.area > 1.0:  # ≥ 1 ft²: below that it is digitizing noise
                feats.append(_feature(overlay.from_target_crs(np.array([g], dtype=object))[0],
                                      {"kind": kind, "parcel_id": pid, "area_sqft": f"{g.area:.2f}"}))
    return {"type": "FeatureCollection", "features": feats}


# ---------------------------------------------------------------------------------------------
# Exports
# ---------------------------------------------------------------------------------------------

def survey_layers(survey: ImperviousSurvey) -> list[str]:
    return sorted(set(ImperviousPiece.objects.filter(survey=survey).values_list("layer", flat=True).distinct()))


def survey_rows(survey: ImperviousSurvey) -> tuple[list[str], list[dict]]:
    """Per-parcel results: parcel_id, address, land use, class, impervious_sqft, <layer>_sqft."""
    layers = survey_layers(survey)
    if not layers:
        layers = sorted({k for bl in ParcelImpervious.objects.filter(survey=survey).values_list("by_layer", flat=True)
                         for k in (bl or {})})
    facts = {pk: cls for pk, cls in SurveyParcelFacts.objects.filter(survey=survey)
             .values_list("parcel_id", "property_class")}
    rows = []
    for pi in ParcelImpervious.objects.filter(survey=survey).select_related("parcel").order_by("parcel__parcel_id"):
        row = {"parcel_id": pi.parcel.parcel_id, "address": pi.parcel.address,
               "land_use_code": pi.parcel.land_use_code, "property_class": facts.get(pi.parcel_id, ""),
               "impervious_sqft": f"{pi.impervious_sqft:.2f}"}
        for lyr in layers:
            row[f"{lyr}_sqft"] = f"{float((pi.by_layer or {}).get(lyr, 0)):.2f}"
        rows.append(row)
    cols = ["parcel_id", "address", "land_use_code", "property_class", "impervious_sqft", *[f"{x}_sqft" for x in layers]]
    return cols, rows


def survey_csv(survey: ImperviousSurvey) -> str:
    """``survey_rows`` as CSV text (the web export and ``stormwater gis export`` alike)."""
    from stormwater.web.files import csv_text

    cols, rows = survey_rows(survey)
    return csv_text(cols, [[r.get(c, "") for c in cols] for r in rows])


def survey_geopackage(survey: ImperviousSurvey, path: str) -> None:
    """Write ``parcels`` (polygon + per-parcel areas) and ``impervious_pieces`` layers, EPSG:2249."""
    import geopandas as gpd
    import pandas as pd

    cols, rows = survey_rows(survey)
    shapes = {pid: bytes(w) for pid, w in ParcelShape.objects.filter(survey=survey)
              .values_list("parcel__parcel_id", "geom_wkb")}
    df = pd.DataFrame(rows, columns=cols)
    for c in cols[4:]:
        df[c] = df[c].astype(float)
    geoms = [shapely.from_wkb(shapes[p]) if p in shapes else None for p in df["parcel_id"]]
    gpd.GeoDataFrame(df, geometry=geoms, crs=overlay.TARGET_CRS).to_file(path, layer="parcels", driver="GPKG")
    pcs = list(ImperviousPiece.objects.filter(survey=survey).values_list(
        "parcel__parcel_id", "layer", "source_fid", "area_sqft", "geom_wkb"))
    pdf = pd.DataFrame({"parcel_id": [r[0] for r in pcs], "layer": [r[1] for r in pcs],
                        "source_fid": [r[2] for r in pcs], "area_sqft": [float(r[3]) for r in pcs]})
    gpd.GeoDataFrame(pdf, geometry=[shapely.from_wkb(bytes(r[4])) for r in pcs], crs=overlay.TARGET_CRS) \
        .to_file(path, layer="impervious_pieces", driver="GPKG")


def import_folder(gi: GisImport) -> Path:
    """Where an import's uploaded files are kept (``services.gis_import_upload`` writes them there)."""
    return Path(settings.MEDIA_ROOT) / "gis" / gi.folder


def upload_sources(gi: GisImport) -> list[dict]:
    """Each uploaded source with its layers, their geometry type, fields, CRS and count (for mapping)."""
    out = []
    folder = import_folder(gi)
    for name in gi.files:
        path = str(folder / name)
        if name.lower().endswith((".csv", ".xlsx", ".xlsm", ".txt")):
            out.append({"source": name, "layer": "", "geometry_type": None, "fields": [], "crs": None, "features": 0})
            continue
        try:
            for lname, gtype in overlay.list_layers(path):
                info = overlay.layer_info(path, lname)
                out.append({"source": name, "layer": lname, "geometry_type": gtype, "fields": info["fields"],
                            "crs": info["crs"], "features": info["features"]})
        except Exception as e:  # noqa: BLE001 - a file GDAL cannot open is shown to the user, not a 500
            out.append({"source": name, "layer": "", "geometry_type": None, "fields": [], "crs": None,
                        "features": 0, "error": paths_hidden(str(e))})
    return out


BASE_MARGIN_FT = 2000.0   # the base around the inspector's sites reaches this far beyond them [ft] (≈ 600 m)
BASE_LIMIT = 5000         # at most this many parcel outlines (a phone draws them all; the JSON stays under ~2 MB)
BASE_SIMPLIFY_FT = 1.0    # outlines simplified to 1 ft: invisible at street zoom, a smaller download


def base_geojson(*, around: list[tuple[float, float]], margin_ft: float = BASE_MARGIN_FT,
                 limit: int = BASE_LIMIT) -> dict:
    """The town's own parcel outlines (the latest shape of each parcel, ``kind`` "parcel") and roads (the right-of-way
    polygons of the latest survey that kept them, ``kind`` "road", clipped to the box) within ``margin_ft`` of the box
    around the ``around`` positions (lat, lon WGS84): the base of the field maps when no tile server is set (issue 30),
    served from this origin so the phone keeps it offline. Nothing is fetched from anywhere else. A survey imported
    without a right-of-way layer has no roads: the base then shows the parcels only (the gaps between them are not
    drawn as roads)."""
    empty = {"type": "FeatureCollection", "features": []}
    if not around:
        return empty
    pts = overlay.to_target_crs(np.array([shapely.Point(lon, lat) for lat, lon in around]), "EPSG:4326")
    x0, y0, x1, y1 = shapely.total_bounds(pts)
    x0, y0, x1, y1 = x0 - margin_ft, y0 - margin_ft, x1 + margin_ft, y1 + margin_ft
    latest: dict[int, ParcelShape] = {}
    for shape in (ParcelShape.objects.filter(minx__lte=x1, maxx__gte=x0, miny__lte=y1, maxy__gte=y0)
                  .select_related("parcel").order_by("parcel_id", "-survey__surveyed_on", "-survey_id")
                  .only("id", "geom_wkb", "parcel", "parcel__parcel_id", "parcel__address")):
        if len(latest) >= limit and shape.parcel_id not in latest:
            break
        latest.setdefault(shape.parcel_id, shape)
    shapes = [s for s in latest.values() if s.geom_wkb]
    roads = _base_roads((x0, y0, x1, y1), limit)
    if not shapes and not roads:
        return empty
    geoms = shapely.simplify(shapely.from_wkb([bytes(s.geom_wkb) for s in shapes]), BASE_SIMPLIFY_FT)
    geoms = shapely.set_precision(overlay.from_target_crs(geoms), 1e-6)  # ≈ 0.1 m: enough for a base
    return {"type": "FeatureCollection", "features": [
        *(_feature(g, {"kind": "road", "layer": r.layer}) for g, r in roads),
        *(_feature(g, {"kind": "parcel", "parcel_id": s.parcel.parcel_id, "address": s.parcel.address})
          for g, s in zip(geoms, shapes))]}


def _base_roads(bbox: tuple[float, float, float, float], limit: int) -> list:
    """(WGS84 geometry, RightOfWayShape) of the roads of the latest survey that kept its right-of-way layer, clipped
    to ``bbox`` (EPSG:2249): a town's street network is often one huge polygon; the phone gets only the part near."""
    from .models import RightOfWayShape

    survey_id = (RightOfWayShape.objects.order_by("-survey__surveyed_on", "-survey_id")
                 .values_list("survey_id", flat=True).first())
    if survey_id is None:
        return []
    x0, y0, x1, y1 = bbox
    rows = list(RightOfWayShape.objects.filter(survey_id=survey_id, minx__lte=x1, maxx__gte=x0, miny__lte=y1,
                                               maxy__gte=y0).order_by("id").only("id", "geom_wkb", "layer")[:limit])
    if not rows:
        return []
    geoms = shapely.clip_by_rect(shapely.from_wkb([bytes(r.geom_wkb) for r in rows]), x0, y0, x1, y1)
    keep = ~shapely.is_empty(geoms)
    geoms = shapely.simplify(geoms[keep], BASE_SIMPLIFY_FT)
    geoms = shapely.set_precision(overlay.from_target_crs(geoms), 1e-6)
    return list(zip(geoms, [r for r, k in zip(rows, keep) if k]))
