"""Is a survey plausible before it replaces the one in force? (issue 20; docs/imports.md, docs/gis.md)

Refused, each as an error ``Problem`` (the import pipeline refuses the survey before anything is written): an
empty parcel or impervious layer (an empty impervious layer gave 16 parcels a $0 fee); an impervious layer that
is the parcel layer (its polygons match the parcels); parcel areas a units factor off the Assessors' lot sizes or
the last survey's parcel shapes (coordinates in metres labelled as feet: areas 10.76× too small). Coordinates that
look like degrees are caught while reading (``overlay.check_not_degrees``).
"""
from __future__ import annotations

import numpy as np
import shapely

from stormwater.imports.pipeline import error
from stormwater.parcels.models import Parcel

from . import overlay
from .models import ParcelShape

ERR_EMPTY_LAYER = "the layer has no features with area ({what}): nothing to import from it; not imported"
# Issue 26: surveys that imported although nothing in them could be right.
ERR_NO_MATCH = ("none of the layer's {n:,} parcel ids (field {field}) is a parcel on record (e.g. {ex}): the wrong id "
                "field, or the Assessors' records not imported yet? not imported")
ERR_ALL_OUTSIDE = ("the impervious layers lie entirely outside the parcels ({sqft:,.0f} ft² on no parcel, 0 on any "
                   "parcel): a wrong CRS or another place's layer? every parcel's fee would fall to the minimum; "
                   "not imported")
ERR_FUTURE_SURVEY = "surveyed_on: {day} is in the future (today is {today}): a survey is dated when it was flown; not imported"
ERR_MATCHES_PARCELS = ("{n:,} of its {total:,} polygons match the parcels (the same shape within 5%): is this the "
                       "parcel layer given as an impervious layer? not imported")
# Area ratios that betray a units mistake (issue 20): ft² per m² (10.76) and its inverse; ft per m (3.28) and its
# inverse, for a layer whose lengths were scaled instead of its coordinates' units. 15% around each.
UNIT_FACTORS = {"10.76× larger than": 10.7639, "10.76× smaller than": 0.092903, "3.28× larger than": 3.28084,
                "3.28× smaller than": 0.3048}
UNIT_TOLERANCE = 0.15
ERR_UNIT_FACTOR = ("parcel areas are {factor} the {what} (median of {n:,} parcels): coordinates in metres labelled "
                   "as feet, or the reverse? give the layer its real CRS; not imported")


def matches_parcels(lyr: overlay.Layer, parcels: overlay.Layer) -> list[overlay.Problem]:
    """An impervious layer at least half of whose polygons are parcel polygons (intersection over union ≥ 95%)."""
    if not len(lyr) or not len(parcels):
        return []
    tree = shapely.STRtree(parcels.geoms)
    li, pi = tree.query(lyr.geoms, predicate="intersects")
    if not len(li):
        return []
    a, b = lyr.geoms[li], parcels.geoms[pi]
    inter = shapely.area(shapely.intersection(a, b))
    iou = inter / np.maximum(shapely.area(a) + shapely.area(b) - inter, 1e-9)
    matched = np.unique(li[iou >= 0.95])
    if len(matched) * 2 >= len(lyr) and len(matched) * 2 >= len(parcels):
        return [error("matches_parcels", lyr.name, ERR_MATCHES_PARCELS.format(n=len(matched), total=len(lyr)),
                      [str(x) for x in lyr.fids[matched][:200]])]
    return []


def _unit_factor(ratios: list[float]) -> str | None:
    """The units factor the median ratio is near, if any."""
    if not ratios:
        return None
    med = float(np.median(ratios))
    for label, f in UNIT_FACTORS.items():
        if abs(med / f - 1) <= UNIT_TOLERANCE:
            return label
    return None



def units_sanity(parcels: overlay.Layer, poly_ids: list[str], matched: list[str]) -> list[overlay.Problem]:
    """Parcel polygon areas against the assessor's lot sizes and against the parcel shapes of the last survey: a
    median ratio near a units factor (10.76, 0.0929, 3.28, 0.3048) refuses the layers (issue 20)."""
    if not matched:
        return []
    index = {pid: i for i, pid in enumerate(poly_ids)}
    areas = {pid: float(parcels.geoms[index[pid]].area) for pid in matched}
    out = []
    lots = Parcel.objects.filter(parcel_id__in=matched, lot_sqft__gt=0).values_list("parcel_id", "lot_sqft")
    ratios = [areas[pid] / float(lot) for pid, lot in lots]
    if factor := _unit_factor(ratios):
        out.append(error("units_factor", "parcels", ERR_UNIT_FACTOR.format(factor=factor, n=len(ratios),
                                                                        what="Assessors' lot sizes")))
    last = (ParcelShape.objects.order_by("-survey__surveyed_on", "-survey_id").values_list("survey_id", flat=True)
            .first())
    if last is not None:
        prev = ParcelShape.objects.filter(survey_id=last, parcel__parcel_id__in=matched, area_sqft__gt=0)
        ratios = [areas[pid] / float(a) for pid, a in prev.values_list("parcel__parcel_id", "area_sqft")]
        if factor := _unit_factor(ratios):
            out.append(error("units_factor", "parcels", ERR_UNIT_FACTOR.format(
                factor=factor, n=len(ratios), what=f"parcel areas of the last survey (#{last})")))
    return out


def survey_sanity(*, surveyed_on, today, poly_ids: list[str], matched: list[str], id_field: str,
                  impervious_on_parcels: float, outside_sqft: float) -> list[overlay.Problem]:
    """Issue 26: a survey dated in the future; a parcel layer none of whose ids is on record (an empty survey);
    impervious layers lying entirely outside the parcels (all parcels 0 ft², as an empty layer, which is refused)."""
    problems = []
    if surveyed_on > today:
        problems.append(error("future_survey", "surveyed_on", ERR_FUTURE_SURVEY.format(day=surveyed_on, today=today)))
    if poly_ids and not matched:
        problems.append(error("no_parcel_matches", "parcels", ERR_NO_MATCH.format(
            n=len(poly_ids), field=id_field, ex=", ".join(poly_ids[:3]))))
    elif matched and impervious_on_parcels <= 0 and outside_sqft > 0:
        problems.append(error("impervious_outside_parcels", "impervious", ERR_ALL_OUTSIDE.format(sqft=outside_sqft)))
    return problems
