"""The engineering calculator contract: ``stormwater calc runoff|retention|noaa-plus|peak|bmp``.

Each function takes one decoded JSON object and returns a JSON-ready dict (numbers as JSON numbers,
rounded for display). Bad input raises :class:`CalcInputError`, whose message starts with the
offending field's name (``"curve_number: must be between 30 and 100"``); unknown fields are refused.
The CLI prints ``{"error": message}`` and exits 2; the API answers 400 (same as ``calc fee``).
"""
from __future__ import annotations

import math
from typing import Any

from .peak import graphical_peak_discharge
from .rainfall import noaa_plus_design_rainfall_in
from .runoff import initial_abstraction_in, potential_retention_in, runoff_depth_in
from .water_quality import STANDARDS, NotAssessable, ProjectType, bmp_removal, required_retention_volume_cuft

RUNOFF_FIELDS = {"curve_number": True, "rainfall_in": True}
RETENTION_FIELDS = {"project_type": True, "impervious_sqft": True}
NOAA_PLUS_FIELDS = {"upper_ci_in": True}
PEAK_FIELDS = {"drainage_area_acres": True, "curve_number": True, "tc_hr": True, "rainfall_in": True,
               "storm_type": False, "pond_swamp_pct": False}
BMP_FIELDS = {"bmp": True, "storage_depth_in": True, "infiltration_rate_in_hr": False, "pollutant": True}


class CalcInputError(ValueError):
    """Bad calculator input; the message starts with the field name."""


def _object(payload: Any, fields: dict[str, bool]) -> dict:
    if not isinstance(payload, dict):
        raise CalcInputError("input: expected one JSON object")
    unknown = sorted(set(payload) - set(fields))
    if unknown:
        raise CalcInputError(f"{unknown[0]}: unknown field (expected {', '.join(sorted(fields))})")
    for name, required in fields.items():
        if required and payload.get(name) is None:
            raise CalcInputError(f"{name}: required")
    return payload


def _number(p: dict, name: str, *, lo: float | None = None, hi: float | None = None,
            positive: bool = False, default: float | None = None) -> float:
    raw = p.get(name)
    if raw is None:
        if default is None:
            raise CalcInputError(f"{name}: required")
        return default
    if isinstance(raw, bool) or not isinstance(raw, (int, float, str)):
        raise CalcInputError(f"{name}: must be a number")
    try:
        v = float(raw)
    except ValueError:
        raise CalcInputError(f"{name}: {raw!r} is not a number") from None
    if not math.isfinite(v):
        raise CalcInputError(f"{name}: must be a finite number")
    if positive and v <= 0:
        raise CalcInputError(f"{name}: must be greater than zero")
    if lo is not None and hi is not None and not lo <= v <= hi:
        raise CalcInputError(f"{name}: must be between {lo:g} and {hi:g}")
    if lo is not None and v < lo:
        raise CalcInputError(f"{name}: must be at least {lo:g}")
    if hi is not None and v > hi:
        raise CalcInputError(f"{name}: must be at most {hi:g}")
    return v


def _choice(p: dict, name: str, allowed: tuple[str, ...], default: str | None = None) -> str:
    raw = p.get(name)
    if raw is None:
        if default is None:
            raise CalcInputError(f"{name}: required ({' | '.join(allowed)})")
        return default
    v = str(raw).strip()
    if v not in allowed:
        raise CalcInputError(f"{name}: {raw!r} is not one of {', '.join(allowed)}")
    return v


def _field_error(e: ValueError) -> CalcInputError:
    # the core's messages already start with the field name ("rainfall_in: ...")
    return CalcInputError(str(e))


def calc_runoff(payload: Any) -> dict:
    """``{curve_number, rainfall_in}`` -> ``{runoff_in, initial_abstraction_in, s_in}`` (TR-55 Eq. 2-1..2-4).

    curve_number 30 to 100; rainfall_in 0 to 60 in. Depths rounded to 0.001 in.
    """
    p = _object(payload, RUNOFF_FIELDS)
    cn = _number(p, "curve_number", lo=30, hi=100)
    rain = _number(p, "rainfall_in", lo=0, hi=60)
    try:
        q = runoff_depth_in(rain, cn)
        return {"runoff_in": round(q, 3), "initial_abstraction_in": round(initial_abstraction_in(cn), 3),
                "s_in": round(potential_retention_in(cn), 3),
                "method": "NRCS TR-55 (1986) Eq. 2-1 to 2-4"}
    except ValueError as e:
        raise _field_error(e) from None


def calc_retention(payload: Any) -> dict:
    """``{project_type, impervious_sqft}`` -> ``{retention_depth_in, required_retention_cuft,
    tss_removal_target_pct, tp_removal_target_pct}`` (Ch. 380 § 380-11 D/E).

    impervious_sqft 0 to 100,000,000 ft². Volume rounded to 0.1 ft³.
    """
    p = _object(payload, RETENTION_FIELDS)
    ptype = ProjectType(_choice(p, "project_type", tuple(t.value for t in ProjectType)))
    imp = _number(p, "impervious_sqft", lo=0, hi=100_000_000)
    std = STANDARDS[ptype]
    return {
        "project_type": ptype.value,
        "retention_depth_in": std.retention_depth_in,
        "required_retention_cuft": round(required_retention_volume_cuft(imp, ptype), 1),
        "tss_removal_target_pct": std.tss_removal_target_pct,
        "tp_removal_target_pct": std.tp_removal_target_pct,
        "source": std.source,
    }


def calc_noaa_plus(payload: Any) -> dict:
    """``{upper_ci_in}`` -> ``{design_rainfall_in}`` = 0.9 × upper 90 % CI bound (Ch. 380 § 380-11 A(2)).

    upper_ci_in greater than 0 and at most 60 in. Rounded to 0.01 in.
    """
    p = _object(payload, NOAA_PLUS_FIELDS)
    upper = _number(p, "upper_ci_in", positive=True, hi=60)
    try:
        design = noaa_plus_design_rainfall_in(upper)
    except ValueError as e:
        raise _field_error(e) from None
    return {"design_rainfall_in": round(design, 2), "factor": 0.9,
            "source": "Ch. 380 § 380-11 A(2): 90 % of the NOAA Atlas 14 upper confidence value ('NOAA plus')"}


def calc_peak(payload: Any) -> dict:
    """``{drainage_area_acres, curve_number, tc_hr, rainfall_in, storm_type?, pond_swamp_pct?}`` ->
    ``{peak_cfs, runoff_in, unit_peak_csm_in, ia_over_p}`` by the TR-55 graphical method.

    storm_type II or III (default III); pond_swamp_pct 0-5 (default 0); curve_number 40-98;
    tc_hr 0.1-10; drainage_area_acres > 0 (up to 2,000 mi²); rainfall_in > 0 up to 60.
    """
    p = _object(payload, PEAK_FIELDS)
    area = _number(p, "drainage_area_acres", positive=True, hi=2000 * 640)
    cn = _number(p, "curve_number", lo=40, hi=98)
    tc = _number(p, "tc_hr", lo=0.1, hi=10)
    rain = _number(p, "rainfall_in", positive=True, hi=60)
    storm = _choice(p, "storm_type", ("II", "III"), default="III")
    pond = _number(p, "pond_swamp_pct", lo=0, hi=5, default=0.0)
    try:
        r = graphical_peak_discharge(drainage_area_acres=area, curve_number=cn, tc_hr=tc, rainfall_in=rain,
                                     storm_type=storm, pond_swamp_pct=pond)
    except ValueError as e:
        raise _field_error(e) from None
    return {
        "peak_cfs": round(r.peak_cfs, 2),
        "runoff_in": round(r.runoff_in, 3),
        "unit_peak_csm_in": round(r.unit_peak_csm_in, 1),
        "ia_over_p": round(r.ia_over_p, 3),
        "ia_over_p_used": round(r.ia_over_p_used, 3),
        "initial_abstraction_in": round(r.ia_in, 3),
        "pond_swamp_factor": r.pond_swamp_factor,
        "storm_type": storm,
        "method": "NRCS TR-55 (1986) graphical peak discharge, Eq. 4-1, Table F-1, Table 4-2",
    }


def calc_bmp(payload: Any, *, tables: tuple = ()) -> dict:
    """``{bmp, storage_depth_in, infiltration_rate_in_hr?, pollutant: TSS|TP|TN}`` -> ``{removal_pct}``.

    Interpolates the loaded official tables first (``tables``, from
    :func:`~stormwater.engineering.water_quality.load_performance_table`), then the provisional
    RBEROST fits (TP and TN only). Outside a curve's range is an error, not an extrapolation; a BMP
    and pollutant with no curve (every TSS request until a TSS table is loaded) is an error on
    ``pollutant``/``bmp`` saying it is not assessable. ``removal_pct`` rounded to 0.1 %.
    """
    p = _object(payload, BMP_FIELDS)
    bmp = p.get("bmp")
    if not isinstance(bmp, str) or not bmp.strip():
        raise CalcInputError("bmp: a BMP name is required (e.g. infiltration_trench)")
    pollutant = _choice(p, "pollutant", ("TSS", "TP", "TN"))
    depth = _number(p, "storage_depth_in", positive=True, hi=100)
    rate = None if p.get("infiltration_rate_in_hr") is None else _number(p, "infiltration_rate_in_hr", positive=True, hi=100)
    try:
        r = bmp_removal(bmp, pollutant, depth, rate, tables=tables)
    except NotAssessable as e:
        raise CalcInputError(f"{e} (not assessable)") from None
    except ValueError as e:
        raise _field_error(e) from None
    return {"removal_pct": round(r.removal_pct, 1), "bmp": bmp, "pollutant": pollutant,
            "table": r.table, "provisional": r.provisional}
