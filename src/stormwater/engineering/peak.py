"""Peak discharge by the TR-55 graphical method (chapter 4).

References
----------
USDA NRCS, *Urban Hydrology for Small Watersheds*, TR-55, 2nd ed., June 1986: Eq. 4-1,
Table 4-1 (Ia), Table 4-2 (Fp), Exhibit 4 via its equation and Table F-1 (Appendix F), Example 4-1.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from ._tables import require_finite, table
from .runoff import initial_abstraction_in, runoff_depth_in

STORM_TYPES = ("I", "IA", "II", "III")
TC_RANGE_HR = (0.1, 10.0)  # Appendix F, Exhibit 4 equation: Tc minimum 0.1, maximum 10.0 hr
SQFT_PER_ACRE = 43560.0
ACRES_PER_SQ_MI = 640.0


@lru_cache(maxsize=None)
def _f1(storm_type: str) -> tuple[tuple[float, float, float, float], ...]:
    rows = [r for r in table("tr55_tableF-1_unit_peak_discharge_coefficients.csv") if r["rainfall_type"] == storm_type]
    if not rows:
        raise ValueError(f"storm_type: {storm_type!r} is not one of {', '.join(STORM_TYPES)}")
    return tuple(sorted((float(r["Ia_over_P"]), float(r["C0"]), float(r["C1"]), float(r["C2"])) for r in rows))


@lru_cache(maxsize=None)
def _fp_table() -> tuple[tuple[float, float], ...]:
    return tuple((float(r["pct_pond_swamp"]), float(r["Fp"])) for r in table("tr55_table4-2_pond_swamp_factor_Fp.csv"))


def ia_over_p_limits(storm_type: str) -> tuple[float, float]:
    """The smallest and largest Ia/P of Exhibit 4 / Table F-1 for a storm type."""
    rows = _f1(storm_type)
    return rows[0][0], rows[-1][0]


def _qu_row(row: tuple[float, float, float, float], tc_hr: float) -> float:
    _, c0, c1, c2 = row
    lt = math.log10(tc_hr)
    return 10.0 ** (c0 + c1 * lt + c2 * lt * lt)


def unit_peak_discharge_csm_in(tc_hr: float, ia_over_p: float, storm_type: str = "III") -> float:
    """Unit peak discharge qu [csm/in] (cfs per square mile per inch of runoff).

    Parameters
    ----------
    tc_hr : float
        Time of concentration [hr], 0.1 to 10.
    ia_over_p : float
        Initial abstraction over rainfall [-], 0 to 1. Outside the Exhibit 4 range (0.10 to 0.50
        for types II and III) the limiting value is used, as TR-55 directs.
    storm_type : {"I", "IA", "II", "III"}

    Returns
    -------
    float
        qu from log10(qu) = C0 + C1 log10(Tc) + C2 (log10 Tc)^2, with C0..C2 from Table F-1;
        for an Ia/P between two table rows, qu is interpolated linearly between the two rows' qu.

    Notes
    -----
    TR-55 ch. 4: "If the computed Ia/P ratio is outside the range in exhibit 4 ... the limiting value
    should be used. If the ratio falls between the limiting values, use linear interpolation."

    References
    ----------
    TR-55 (1986), Exhibit 4-I to 4-III; Appendix F equation for Exhibit 4 and Table F-1.
    """
    tc = require_finite(tc_hr, "tc_hr")
    lo, hi = TC_RANGE_HR
    if not lo <= tc <= hi:
        raise ValueError("tc_hr: the TR-55 graphical method covers Tc from 0.1 to 10 hours "
                         "(the minimum Tc used in TR-55 is 0.1 hour)")
    r = require_finite(ia_over_p, "ia_over_p")
    if not 0 <= r <= 1:
        raise ValueError("ia_over_p: must be between 0 and 1")
    rows = _f1(storm_type)
    r = min(max(r, rows[0][0]), rows[-1][0])
    for i in range(1, len(rows)):
        if r <= rows[i][0]:
            x0, x1 = rows[i - 1][0], rows[i][0]
            q0, q1 = _qu_row(rows[i - 1], tc), _qu_row(rows[i], tc)
            return q0 + (q1 - q0) * (r - x0) / (x1 - x0)
    return _qu_row(rows[-1], tc)


def pond_swamp_adjustment_factor(pond_swamp_pct: float) -> float:
    """Pond and swamp adjustment factor Fp [-] (TR-55 Table 4-2).

    Parameters
    ----------
    pond_swamp_pct : float
        Pond and swamp areas spread throughout the watershed, not in the Tc flow path, as a
        percentage of the drainage area [%], 0 to 5.

    Returns
    -------
    float
        Fp of the nearest table value (TR-55 ch. 4: "rounded to the nearest table value"):
        0 % 1.00, 0.2 % 0.97, 1.0 % 0.87, 3.0 % 0.75, 5.0 % 0.72. Ties go to the larger Fp.

    Notes
    -----
    Above 5 % the table ends; route the flow instead (``ValueError``).
    """
    pct = require_finite(pond_swamp_pct, "pond_swamp_pct")
    tbl = _fp_table()
    if not 0 <= pct <= tbl[-1][0]:
        raise ValueError("pond_swamp_pct: TR-55 Table 4-2 covers 0 to 5 percent; beyond that, route the "
                         "hydrograph through the ponds instead")
    best = min(tbl, key=lambda row: (abs(row[0] - pct), -row[1]))
    return best[1]


@dataclass(frozen=True)
class GraphicalPeak:
    """Result of the TR-55 graphical method, with every intermediate value."""

    peak_cfs: float
    runoff_in: float
    unit_peak_csm_in: float
    ia_in: float
    ia_over_p: float
    ia_over_p_used: float
    pond_swamp_factor: float
    drainage_area_sq_mi: float


def graphical_peak_discharge(*, drainage_area_acres: float, curve_number: float, tc_hr: float,
                             rainfall_in: float, storm_type: str = "III",
                             pond_swamp_pct: float = 0.0) -> GraphicalPeak:
    """Peak discharge by the TR-55 graphical method: qp = qu Am Q Fp.

    Parameters
    ----------
    drainage_area_acres : float
        Drainage area [acres], greater than 0 and at most 2,000 sq mi × 640.
    curve_number : float
        Weighted CN [-], 40 to 98 (Table 4-1 range; TR-55 ch. 2: below 40 use another procedure).
    tc_hr : float
        Time of concentration [hr], 0.1 to 10.
    rainfall_in : float
        24-hour design rainfall P [in], greater than 0.
    storm_type : {"I", "IA", "II", "III"}
    pond_swamp_pct : float
        Pond and swamp area [%] of the drainage area, 0 to 5 (Table 4-2).

    Returns
    -------
    GraphicalPeak
        ``peak_cfs`` [cfs] and the intermediates (Q [in], qu [csm/in], Ia [in], Ia/P, Fp).

    Notes
    -----
    Q comes from the runoff equation (Eq. 2-3), Ia from Eq. 2-2 (Table 4-1 rounds it to 0.001 in).
    The method assumes one CN for a hydrologically homogeneous watershed and cannot route.

    References
    ----------
    TR-55 (1986), Eq. 4-1; Tables 4-1, 4-2, F-1; Example 4-1 (345 cfs).
    """
    area = require_finite(drainage_area_acres, "drainage_area_acres")
    if not 0 < area <= 2000 * ACRES_PER_SQ_MI:
        raise ValueError("drainage_area_acres: must be greater than 0 and at most 2,000 square miles")
    cn = require_finite(curve_number, "curve_number")
    if not 40 <= cn <= 98:
        raise ValueError("curve_number: the graphical method covers CN 40 to 98 (TR-55 Table 4-1)")
    p = require_finite(rainfall_in, "rainfall_in")
    if p <= 0:
        raise ValueError("rainfall_in: must be greater than zero")
    if storm_type not in STORM_TYPES:
        raise ValueError(f"storm_type: {storm_type!r} is not one of {', '.join(STORM_TYPES)}")
    ia = initial_abstraction_in(cn)
    ratio = ia / p
    lo, hi = ia_over_p_limits(storm_type)
    q = runoff_depth_in(p, cn)
    fp = pond_swamp_adjustment_factor(pond_swamp_pct)
    am = area / ACRES_PER_SQ_MI
    # P <= Ia gives Ia/P >= 1 and Q = 0: qu is then the limiting value and the peak is zero.
    qu = unit_peak_discharge_csm_in(tc_hr, min(ratio, 1.0), storm_type)
    return GraphicalPeak(peak_cfs=qu * am * q * fp, runoff_in=q, unit_peak_csm_in=qu, ia_in=ia, ia_over_p=ratio,
                         ia_over_p_used=min(max(ratio, lo), hi), pond_swamp_factor=fp, drainage_area_sq_mi=am)
