"""Runoff hydrographs by the NRCS dimensionless unit hydrograph (NEH 630 chapter 16).

The 24-hour design storm (:mod:`.rainfall`) is turned into cumulative runoff by the TR-55 runoff
equation applied to cumulative rainfall at every step (NEH 630 ch. 10), the increments of runoff are
convolved with the NRCS curvilinear unit hydrograph (peak rate factor 484).

References
----------
USDA NRCS, National Engineering Handbook Part 630 Hydrology, chapter 16 "Hydrographs" (2007):
Table 16-1 (dimensionless unit hydrograph ratios), Eq. 16-1 (qp = 484 A Q / Tp),
Eq. 16-3 (Tp = ΔD/2 + L); chapter 15 Eq. 15-3 (L = 0.6 Tc); chapter 10 (runoff equation).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ._tables import interp, require_finite, table
from .rainfall import nrcs_24hr_cumulative_fraction
from .runoff import runoff_depth_in

PEAK_RATE_FACTOR = 484.0  # NEH 630 ch. 16: standard dimensionless UH (gamma m = 3.7, Table 16-5)
SQFT_PER_ACRE = 43560.0
SQFT_PER_SQ_MI = 27878400.0
# Time steps offered: they divide the 0.1-hr rainfall table evenly.
_STEPS_HR = (0.1, 0.05, 0.025, 0.02, 0.01, 0.005)


@lru_cache(maxsize=None)
def _duh() -> tuple[tuple[float, ...], tuple[float, ...]]:
    rows = table("neh630_ch16_table16-1_dimensionless_unit_hydrograph.csv")
    return tuple(float(r["t_over_Tp"]) for r in rows), tuple(float(r["q_over_qp"]) for r in rows)


def unit_hydrograph_time_step_hr(tc_hr: float) -> float:
    """The largest offered step ΔD [hr] with ΔD <= 0.133 Tc (NEH 630 ch. 16 guidance on ΔD)."""
    tc = require_finite(tc_hr, "tc_hr")
    for dt in _STEPS_HR:
        if dt <= 0.133 * tc + 1e-12:
            return dt
    raise ValueError("tc_hr: too short for the offered time steps (needs Tc >= 0.0376 hr)")


def nrcs_unit_hydrograph_cfs_per_in(drainage_area_sq_mi: float, tc_hr: float, dt_hr: float) -> list[float]:
    """Ordinates [cfs per inch of runoff] of the NRCS curvilinear unit hydrograph at steps of ``dt_hr``.

    Parameters
    ----------
    drainage_area_sq_mi : float
        Drainage area A [mi²], greater than 0.
    tc_hr : float
        Time of concentration [hr], 0.1 to 10; lag L = 0.6 Tc.
    dt_hr : float
        Unit-excess duration ΔD = the computation step [hr], at most 0.25 Tp.

    Returns
    -------
    list of float
        q(k ΔD) for k = 0, 1, ... until t = 5 Tp. qp = 484 A / Tp, Tp = ΔD/2 + L, shaped by Table 16-1
        (linear between its ratios) and scaled so the ordinates hold exactly 1 inch over A: the table's
        two-decimal ratios otherwise carry about 1 % volume error.

    References
    ----------
    NEH 630 ch. 16, Eq. 16-1, 16-3, Table 16-1; ch. 15, Eq. 15-3.
    """
    area = require_finite(drainage_area_sq_mi, "drainage_area_sq_mi")
    if area <= 0:
        raise ValueError("drainage_area_sq_mi: must be greater than zero")
    tc = require_finite(tc_hr, "tc_hr")
    if not 0.1 <= tc <= 10:
        raise ValueError("tc_hr: must be between 0.1 and 10 hours")
    dt = require_finite(dt_hr, "dt_hr")
    lag = 0.6 * tc
    tp = dt / 2.0 + lag
    if not 0 < dt <= 0.25 * tp:
        raise ValueError(f"dt_hr: must be greater than 0 and at most 0.25 Tp ({0.25 * tp:.4f} hr)")
    ratios_t, ratios_q = _duh()
    qp = PEAK_RATE_FACTOR * area / tp
    n = int(ratios_t[-1] * tp / dt) + 1
    ords = [qp * interp(min(k * dt / tp, ratios_t[-1]), ratios_t, ratios_q, what="t_over_Tp") for k in range(n + 1)]
    volume_cf = sum(ords) * dt * 3600.0
    one_inch_cf = area * SQFT_PER_SQ_MI / 12.0
    return [q * one_inch_cf / volume_cf for q in ords]


@dataclass(frozen=True)
class Hydrograph:
    """Discharge [cfs] at times k·dt_hr [hr] from the storm's start."""

    dt_hr: float
    flows_cfs: tuple[float, ...]

    @property
    def times_hr(self) -> tuple[float, ...]:
        return tuple(k * self.dt_hr for k in range(len(self.flows_cfs)))

    @property
    def peak_cfs(self) -> float:
        return max(self.flows_cfs)

    @property
    def peak_time_hr(self) -> float:
        return self.flows_cfs.index(self.peak_cfs) * self.dt_hr

    @property
    def volume_cuft(self) -> float:
        """Volume [ft³] by the trapezoid rule (the flows start and end at zero)."""
        return sum(self.flows_cfs) * self.dt_hr * 3600.0


def incremental_runoff_in(rainfall_in: float, curve_number: float, storm_type: str, dt_hr: float) -> list[float]:
    """Runoff increments [in] per step of the 24-hour NRCS storm (runoff equation on cumulative P)."""
    p = require_finite(rainfall_in, "rainfall_in")
    if p <= 0:
        raise ValueError("rainfall_in: must be greater than zero")
    n = round(24.0 / dt_hr)
    cum = [runoff_depth_in(p * nrcs_24hr_cumulative_fraction(min(k * dt_hr, 24.0), storm_type), curve_number)
           for k in range(n + 1)]
    return [b - a for a, b in zip(cum, cum[1:])]


def scs_unit_hydrograph_runoff(*, drainage_area_acres: float, curve_number: float, tc_hr: float,
                               rainfall_in: float, storm_type: str = "III",
                               dt_hr: float | None = None) -> Hydrograph:
    """Runoff hydrograph of one subcatchment for a 24-hour NRCS design storm.

    Parameters
    ----------
    drainage_area_acres : float
        Drainage area [acres], greater than 0.
    curve_number : float
        Weighted CN [-], 30 to 100.
    tc_hr : float
        Time of concentration [hr], 0.1 to 10 (use 0.1 for shorter computed values, as TR-55 does).
    rainfall_in : float
        24-hour rainfall [in] (for Longmeadow, the "NOAA plus" depth).
    storm_type : {"II", "III"}
    dt_hr : float, optional
        Computation step [hr]; by default the largest of 0.1, 0.05, 0.025, 0.02, 0.01, 0.005 not
        exceeding 0.133 Tc.

    Returns
    -------
    Hydrograph
        Flows [cfs] at 0, dt, 2 dt, ... until the recession ends; its volume equals Q × A.

    Notes
    -----
    Ordinate k is the flow at time k·dt: the convolution (:func:`unit_hydrograph_convolve`) of the
    runoff increments with the unit hydrograph of duration ΔD = dt, each increment's response
    starting at the beginning of its step.

    References
    ----------
    NEH 630 ch. 16 (unit hydrograph convolution), ch. 10 (runoff equation); TR-55 (1986) Eq. 2-3.
    """
    area = require_finite(drainage_area_acres, "drainage_area_acres")
    if area <= 0:
        raise ValueError("drainage_area_acres: must be greater than zero")
    dt = unit_hydrograph_time_step_hr(tc_hr) if dt_hr is None else require_finite(dt_hr, "dt_hr")
    if abs(round(24.0 / dt) * dt - 24.0) > 1e-9:
        raise ValueError("dt_hr: 24 hours must be a whole number of steps")
    uh = nrcs_unit_hydrograph_cfs_per_in(area / 640.0, tc_hr, dt)
    excess = incremental_runoff_in(rainfall_in, curve_number, storm_type, dt)
    out = unit_hydrograph_convolve(excess, uh) + [0.0]
    while len(out) > 1 and out[-1] == 0.0 and out[-2] == 0.0:
        out.pop()
    return Hydrograph(dt, tuple(out))


def unit_hydrograph_convolve(excess_in: list[float], uh_cfs_per_in: list[float]) -> list[float]:
    """Discrete convolution of runoff increments with a unit hydrograph.

    Parameters
    ----------
    excess_in : list of float
        Runoff increment [in] of each step k (falling between k·ΔD and (k+1)·ΔD).
    uh_cfs_per_in : list of float
        Unit-hydrograph ordinates [cfs per inch] at 0, ΔD, 2ΔD, ... after the start of a unit excess of
        duration ΔD (ordinate 0 is 0).

    Returns
    -------
    list of float
        q(n·ΔD) = Σ_k e_k u_(n-k) [cfs], length len(excess) + len(uh) - 1.

    Notes
    -----
    The response to the excess of step k starts at k·ΔD, the start of its step: the unit hydrograph's
    Tp = ΔD/2 + L is measured from the start of the unit excess (NEH 630 ch. 16, Eq. 16-3). Issue 19:
    an extra index shift had put every ordinate, and every reported peak time, one step late.

    References
    ----------
    NEH 630 ch. 16 ("Development of a hydrograph": convolution of the excess increments).
    """
    out = [0.0] * (len(excess_in) + len(uh_cfs_per_in) - 1)
    for i, e in enumerate(excess_in):
        if e <= 0:
            continue
        for j, u in enumerate(uh_cfs_per_in):
            out[i + j] += e * u
    return out


def hydrograph_sum(*hydrographs: Hydrograph) -> Hydrograph:
    """Sum hydrographs computed at the same step (a design point receiving several subcatchments)."""
    if not hydrographs:
        raise ValueError("hydrographs: at least one is required")
    dt = hydrographs[0].dt_hr
    if any(abs(h.dt_hr - dt) > 1e-12 for h in hydrographs):
        raise ValueError("hydrographs: all must share one time step (pass the same dt_hr)")
    n = max(len(h.flows_cfs) for h in hydrographs)
    return Hydrograph(dt, tuple(sum(h.flows_cfs[k] for h in hydrographs if k < len(h.flows_cfs)) for k in range(n)))
