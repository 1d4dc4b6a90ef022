"""TR-55 tabular hydrograph method (chapter 5, Exhibit 5).

References
----------
USDA NRCS, *Urban Hydrology for Small Watersheds*, TR-55, 2nd ed., June 1986: chapter 5, Eq. 5-1,
Exhibits 5-I, 5-IA, 5-II, 5-III (converted to ``data/tr55_exhibit5_*_tabular_hydrograph.csv``),
worksheets 5a/5b, Examples 5-1 and 5-2.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

from ._tables import require_finite, table

STORM_TYPES = ("I", "IA", "II", "III")
TC_VALUES_HR = (0.1, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0)
TT_VALUES_HR = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 1.5, 2.0, 2.5, 3.0)
IA_P_VALUES = (0.10, 0.30, 0.50)


@lru_cache(maxsize=None)
def _exhibit(storm_type: str) -> tuple[tuple[float, ...], dict[tuple[float, float, float], tuple[int, ...]]]:
    if storm_type not in STORM_TYPES:
        raise ValueError(f"storm_type: {storm_type!r} is not one of {', '.join(STORM_TYPES)}")
    rows = table(f"tr55_exhibit5_{storm_type.lower()}_tabular_hydrograph.csv")
    times = tuple(float(k) for k in rows[0] if k not in ("tc_hr", "ia_over_p", "tt_hr"))
    data = {}
    for r in rows:
        key = (float(r["tc_hr"]), float(r["ia_over_p"]), float(r["tt_hr"]))
        data[key] = tuple(int(v) for k, v in r.items() if k not in ("tc_hr", "ia_over_p", "tt_hr"))
    return times, data


def hydrograph_times_hr(storm_type: str = "III") -> tuple[float, ...]:
    """The 32 hydrograph times [hr] of Exhibit 5 for a storm type."""
    return _exhibit(storm_type)[0]


def _tabulated(value: float, allowed: Sequence[float], name: str) -> float:
    for a in allowed:
        if abs(value - a) < 1e-9:
            return a
    raise ValueError(f"{name}: {value:g} is not an Exhibit 5 value ({', '.join(f'{a:g}' for a in allowed)}); "
                     "round with tabular_round_tc_tt")


def tabular_unit_discharges_csm_in(tc_hr: float, tt_hr: float, ia_over_p: float,
                                   storm_type: str = "III") -> tuple[float, ...]:
    """Tabular hydrograph unit discharges qt [csm/in] at the Exhibit 5 hydrograph times.

    Parameters
    ----------
    tc_hr : float
        Subarea time of concentration [hr], one of 0.1 ... 2.0 as tabulated.
    tt_hr : float
        Travel time from the subarea to the point of interest [hr], one of 0 ... 3.0 as tabulated.
    ia_over_p : float
        Ia/P [-], 0 to 1; the limiting value (0.10 or 0.50) is used outside the table, and between
        0.10, 0.30 and 0.50 the discharges are interpolated linearly.
    storm_type : {"I", "IA", "II", "III"}

    Returns
    -------
    tuple of float
        qt at each time of :func:`hydrograph_times_hr` [csm/in].

    Notes
    -----
    TR-55 ch. 5: do not interpolate between Tc or Tt values (round them, see
    :func:`tabular_round_tc_tt`); Ia/P may be rounded or interpolated linearly.

    References
    ----------
    TR-55 (1986) ch. 5, "Selecting Tc and Tt", "Selecting Ia/P"; Exhibit 5.
    """
    tc = _tabulated(require_finite(tc_hr, "tc_hr"), TC_VALUES_HR, "tc_hr")
    tt = _tabulated(require_finite(tt_hr, "tt_hr"), TT_VALUES_HR, "tt_hr")
    r = require_finite(ia_over_p, "ia_over_p")
    if not 0 <= r <= 1:
        raise ValueError("ia_over_p: must be between 0 and 1")
    r = min(max(r, IA_P_VALUES[0]), IA_P_VALUES[-1])
    _, data = _exhibit(storm_type)
    for lo, hi in zip(IA_P_VALUES, IA_P_VALUES[1:]):
        if r <= hi + 1e-12:
            a, b = data[(tc, lo, tt)], data[(tc, hi, tt)]
            w = (r - lo) / (hi - lo)
            return tuple(x + (y - x) * w for x, y in zip(a, b))
    raise AssertionError("unreachable")


def _nearest(x: float, values: Sequence[float]) -> float:
    return min(values, key=lambda v: (abs(v - x), v))


def _down(x: float, values: Sequence[float]) -> float:
    return max(v for v in values if v <= x + 1e-12)


def _up(x: float, values: Sequence[float]) -> float:
    return min(v for v in values if v >= x - 1e-12)


def tabular_round_tc_tt(tc_hr: float, tt_hr: float) -> tuple[float, float]:
    """Round an actual Tc and ΣTt to Exhibit 5 values by the TR-55 chapter 5 rule.

    Parameters
    ----------
    tc_hr : float
        Actual time of concentration [hr], 0.1 to 2.0.
    tt_hr : float
        Actual travel time to the point of interest [hr], 0 to 3.0.

    Returns
    -------
    (tc_hr, tt_hr)
        Of three roundings -- (1) each to the nearest table value, (2) Tc down and Tt up, (3) Tc up
        and Tt down -- the pair whose sum is closest to the actual sum; on a tie, the pair whose Tc
        is closest to the actual Tc.

    Notes
    -----
    TR-55: use TR-20 instead when Tt is greater than 3 hours or Tc greater than 2 hours.

    References
    ----------
    TR-55 (1986) ch. 5, "Selecting Tc and Tt" (worked illustration: 1.1 and 1.7 -> 1.25 and 1.5).
    """
    tc = require_finite(tc_hr, "tc_hr")
    tt = require_finite(tt_hr, "tt_hr")
    if not TC_VALUES_HR[0] <= tc <= TC_VALUES_HR[-1]:
        raise ValueError("tc_hr: Exhibit 5 covers Tc 0.1 to 2.0 hours (TR-55: use TR-20 beyond)")
    if not TT_VALUES_HR[0] <= tt <= TT_VALUES_HR[-1]:
        raise ValueError("tt_hr: Exhibit 5 covers travel times 0 to 3.0 hours (TR-55: use TR-20 beyond)")
    candidates = [
        (_nearest(tc, TC_VALUES_HR), _nearest(tt, TT_VALUES_HR)),
        (_down(tc, TC_VALUES_HR), _up(tt, TT_VALUES_HR)),
        (_up(tc, TC_VALUES_HR), _down(tt, TT_VALUES_HR)),
    ]
    actual = tc + tt
    return min(candidates, key=lambda c: (round(abs(c[0] + c[1] - actual), 9), round(abs(c[0] - tc), 9)))


@dataclass(frozen=True)
class TabularSubarea:
    """One subarea on TR-55 worksheet 5b: Tc and ΣTt as tabulated, Ia/P, and Am·Q [mi²·in]."""

    name: str
    tc_hr: float
    tt_hr: float
    ia_over_p: float
    am_q_sq_mi_in: float


@dataclass(frozen=True)
class TabularHydrograph:
    times_hr: tuple[float, ...]
    flows_cfs: tuple[float, ...]
    subarea_flows_cfs: dict[str, tuple[float, ...]]

    @property
    def peak_cfs(self) -> float:
        return max(self.flows_cfs)

    @property
    def peak_time_hr(self) -> float:
        return self.times_hr[self.flows_cfs.index(self.peak_cfs)]


def tabular_hydrograph(subareas: Sequence[TabularSubarea], storm_type: str = "III") -> TabularHydrograph:
    """Composite flood hydrograph at a point of interest by the TR-55 tabular method.

    Each subarea's hydrograph is q = qt Am Q (Eq. 5-1) at the Exhibit 5 times; the composite is their
    sum. Returns discharges [cfs] at :func:`hydrograph_times_hr`.

    Notes
    -----
    TR-55 ch. 5 Limitations: use TR-20 when subarea drainage areas differ by a factor of 5 or more,
    or when the whole hydrograph or runoff volume is needed for detailed routing (the table starts
    at 11 h for types II/III and is coarse on the recession).

    References
    ----------
    TR-55 (1986), Eq. 5-1; worksheet 5b; Examples 5-1 (720 cfs at 14.3 h) and 5-2 (872 cfs at 13.6 h).
    """
    if not subareas:
        raise ValueError("subareas: at least one subarea is required")
    times = hydrograph_times_hr(storm_type)
    total = [0.0] * len(times)
    per: dict[str, tuple[float, ...]] = {}
    for s in subareas:
        amq = require_finite(s.am_q_sq_mi_in, f"{s.name}.am_q_sq_mi_in")
        if amq < 0:
            raise ValueError(f"{s.name}.am_q_sq_mi_in: must be zero or more")
        qt = tabular_unit_discharges_csm_in(s.tc_hr, s.tt_hr, s.ia_over_p, storm_type)
        flows = tuple(q * amq for q in qt)
        per[s.name] = flows
        total = [a + b for a, b in zip(total, flows)]
    return TabularHydrograph(times, tuple(total), per)
