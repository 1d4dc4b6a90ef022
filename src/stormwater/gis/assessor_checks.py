"""Assessor records against what is on record, before anything is written (issue 26, "Assessors' data").

A file can be well-formed and still wrong: lot sizes written in acres under a square-feet column (0.36 for
15,682 ft²), a decimal comma (``15589,5`` read as 155,895 ft² — refused by ``assessor.map_rows``), parcel ids whose
leading zeros Excel stripped (``1-02-66`` for ``01-02-66``, which would create a second parcel). Each record is
compared with the parcel on record (normalised id, last lot size) and with the parcel's polygon in the latest
survey that has one (``ParcelShape.area_sqft``):

- a lot a units factor off the last value or the polygon (acres ↔ ft² 43,560; m² ↔ ft² 10.764; ±15 %), or a new
  parcel's lot under ``MIN_LOT_SQFT``: refused (error), naming the row, the column and both values;
- an id that is on record only without leading zeros: refused, naming the parcel on record;
- a lot more than ``LOT_CHANGE_FACTOR`` times larger or smaller than the last value (not a units factor): listed as
  a warning with its change, for staff to confirm from the dry run.

Lot size enters the bill as a check (``utility.selectors``: impervious area over the lot refuses the bill), so
a wrong lot stops those parcels' bills rather than changing a fee: the dry run says how many would be created and
changed and by how many square feet in total (``lot_effect``).
"""
from __future__ import annotations

import re
from decimal import Decimal

from stormwater.imports.pipeline import error

from .assessor import AssessorRecord
from .overlay import Problem

UNIT_FACTORS = {"acres written as ft² (or ft² as acres)": 43560.0, "m² written as ft² (or ft² as m²)": 10.7639}
TOLERANCE = 0.15
MIN_LOT_SQFT = Decimal(100)   # no buildable lot in Longmeadow is smaller; 0.36 (acres) is
LOT_CHANGE_FACTOR = 2


def normalise_id(pid: str) -> str:
    """A parcel id as Excel cannot change it: parts split at any punctuation, leading zeros dropped from numbers,
    upper case (``01-02-66`` and ``1-2-66`` → ``1-2-66``)."""
    parts = [p for p in re.split(r"[^0-9A-Za-z]+", pid.strip().upper()) if p]
    return "-".join(p.lstrip("0") or "0" if p.isdigit() else p for p in parts)


def _units_factor(a: Decimal, b: Decimal) -> str | None:
    """Which units mistake makes ``a`` from ``b`` (either way), or None."""
    if not a or not b:
        return None
    r = float(a) / float(b)
    for what, f in UNIT_FACTORS.items():
        for target in (f, 1 / f):
            if abs(r / target - 1) <= TOLERANCE:
                return what
    return None


def assessor_records_check(records: list[AssessorRecord], *, source: str, column: str = "lot_size",
                           id_column: str = "parcel_id") -> tuple[list[Problem], dict]:
    """→ (findings, lot_effect) for ``records`` against the parcels on record (reads only)."""
    from stormwater.gis.models import ParcelShape
    from stormwater.parcels.models import Parcel

    ids = [r.parcel_id for r in records]
    on_record = dict(Parcel.objects.filter(parcel_id__in=ids).values_list("parcel_id", "lot_sqft"))
    new_ids = [i for i in ids if i not in on_record]
    by_norm: dict[str, str] = {}
    if new_ids:
        for pid in Parcel.objects.values_list("parcel_id", flat=True).iterator(chunk_size=5000):
            by_norm.setdefault(normalise_id(pid), pid)
    shapes: dict[str, Decimal] = {}
    for pid, area in (ParcelShape.objects.filter(parcel__parcel_id__in=ids)
                      .order_by("parcel_id", "-survey__surveyed_on", "-survey_id")
                      .values_list("parcel__parcel_id", "area_sqft")):
        shapes.setdefault(pid, area)
    zeros, units, tiny, big = [], [], [], []
    created = changed = 0
    delta = Decimal(0)
    for r in records:
        row = f"row {r.rows[0]}" if r.rows else r.parcel_id
        if r.parcel_id not in on_record:
            twin = by_norm.get(normalise_id(r.parcel_id))
            if twin is not None and twin != r.parcel_id:
                zeros.append(f"{row} ({id_column}): {r.parcel_id} is parcel {twin} on record")
                continue
            created += 1
            if r.lot_sqft is not None and 0 < r.lot_sqft < MIN_LOT_SQFT and r.parcel_id not in shapes:
                tiny.append(f"{row} ({column}): {r.parcel_id} {r.lot_sqft} ft²")
        if r.lot_sqft is None or r.lot_sqft <= 0:
            continue
        last = on_record.get(r.parcel_id)
        for what, against in (("the last value", last), ("the parcel's polygon", shapes.get(r.parcel_id))):
            why = _units_factor(r.lot_sqft, against) if against else None
            if why:
                units.append(f"{row} ({column}): {r.parcel_id} {r.lot_sqft:,} ft² against {what} {against:,} ft² — {why}")
                break
        else:
            if r.parcel_id in on_record and last is None and r.parcel_id not in shapes and r.lot_sqft < MIN_LOT_SQFT:
                tiny.append(f"{row} ({column}): {r.parcel_id} {r.lot_sqft} ft²")
            if last and r.lot_sqft != last:
                changed += 1
                delta += r.lot_sqft - last
                if not (1 / LOT_CHANGE_FACTOR <= float(r.lot_sqft / last) <= LOT_CHANGE_FACTOR):
                    big.append(f"{row} ({column}): {r.parcel_id} {last:,} → {r.lot_sqft:,} ft²")
    problems = []
    if zeros:
        problems.append(error("id_leading_zeros", source, "parcel ids on record only with their leading zeros (did "
                              "Excel strip them? format the column as text): they would create new parcels; nothing "
                              "imported", zeros))
    if units:
        problems.append(error("lot_units", source, "lot sizes a units factor off the parcel's last lot size or its "
                              "polygon's area (check the lot-size unit: --lot-unit acres|sqft|sqm): nothing imported",
                              units))
    if tiny:
        problems.append(error("lot_too_small", source, f"lot sizes under {MIN_LOT_SQFT} ft² (acres written as square "
                              "feet? 0.36 acres is 15,682 ft²; choose the unit acres): nothing imported", tiny))
    if big:
        problems.append(Problem("lot_change", source, f"lot sizes more than {LOT_CHANGE_FACTOR}× larger or smaller "
                                "than on record: confirm them from this list before importing", big,
                                severity="warning"))
    return problems, {"parcels_created": created, "lots_changed": changed, "lot_change_sqft": str(delta),
                      "lots_flagged": len(big)}
