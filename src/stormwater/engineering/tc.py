"""Time of concentration and travel time: NRCS TR-55 chapter 3.

References
----------
USDA NRCS, *Urban Hydrology for Small Watersheds*, TR-55, 2nd ed., June 1986: Eq. 3-1 to 3-4,
Table 3-1 (Manning's n for sheet flow), Figure 3-1 (equations in Appendix F), Example 3-1.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable

from ._tables import require_finite, table

SHEET_FLOW_MAX_LENGTH_FT = 300.0  # TR-55 ch. 3 Limitations: not for sheet flow longer than 300 ft
TC_MIN_HR = 0.1  # TR-55 ch. 3 Limitations: "The minimum Tc used in TR-55 is 0.1 hour."

# TR-55 Appendix F, Figure 3-1: V = 16.1345 s^0.5 (unpaved: n 0.05, r 0.4 ft),
# V = 20.3282 s^0.5 (paved: n 0.025, r 0.2 ft).
SHALLOW_CONCENTRATED_K = {"unpaved": 16.1345, "paved": 20.3282}
# Figure 3-1 is drawn for watercourse slopes 0.005 to 0.50 ft/ft. Its Appendix F equations are
# Manning's equation with a fixed n and hydraulic radius, so they hold beyond the drawn range; a slope
# outside it is computed and flagged (shallow_concentrated_outside_figure), not refused (issue 19).
SHALLOW_SLOPE_RANGE = (0.005, 0.5)


def shallow_concentrated_outside_figure(slope_ft_per_ft: float) -> bool:
    """True when a shallow-concentrated slope lies outside TR-55 Figure 3-1's drawn 0.005-0.50 ft/ft.

    The velocity is still computed by the Appendix F equation (see
    :func:`shallow_concentrated_velocity_fps`); a report should say the figure's range was left.
    """
    s = require_finite(slope_ft_per_ft, "slope_ft_per_ft")
    lo, hi = SHALLOW_SLOPE_RANGE
    return not lo <= s <= hi


def _positive(value: float, name: str) -> float:
    v = require_finite(value, name)
    if v <= 0:
        raise ValueError(f"{name}: must be greater than zero")
    return v


@lru_cache(maxsize=None)
def sheet_flow_manning_n_table() -> dict[str, float]:
    """TR-55 Table 3-1: Manning's n for sheet flow, by surface description."""
    return {r["surface_description"]: float(r["n"]) for r in table("tr55_table3-1_sheet_flow_manning_n.csv") if r["n"]}


def sheet_flow_travel_time_hr(manning_n: float, length_ft: float, rainfall_2yr_24hr_in: float,
                              slope_ft_per_ft: float) -> float:
    """Sheet-flow travel time by Manning's kinematic solution (Overton and Meadows 1976).

    Parameters
    ----------
    manning_n : float
        Manning's roughness for sheet flow [-] (TR-55 Table 3-1), 0.005 to 1.0.
    length_ft : float
        Flow length L [ft], greater than 0 and at most 300.
    rainfall_2yr_24hr_in : float
        2-year, 24-hour rainfall P2 [in], greater than 0.
    slope_ft_per_ft : float
        Slope of the hydraulic grade line (land slope) s [ft/ft], greater than 0.

    Returns
    -------
    float
        Tt = 0.007 (n L)^0.8 / (P2^0.5 s^0.4) [hr].

    Notes
    -----
    TR-55 limits sheet flow to 300 ft (ch. 3 Limitations) and Eq. 3-3 was developed for the four
    standard rainfall intensity-duration relationships.

    References
    ----------
    TR-55 (1986), Eq. 3-3 and Table 3-1; Example 3-1 segment AB (0.30 hr).
    """
    n = require_finite(manning_n, "manning_n")
    if not 0.005 <= n <= 1.0:
        raise ValueError("manning_n: must be between 0.005 and 1.0 (TR-55 Table 3-1 spans 0.011 to 0.80)")
    length = _positive(length_ft, "length_ft")
    if length > SHEET_FLOW_MAX_LENGTH_FT:
        raise ValueError("length_ft: sheet flow is limited to 300 ft (TR-55 ch. 3); "
                         "treat the rest as shallow concentrated flow")
    p2 = _positive(rainfall_2yr_24hr_in, "rainfall_2yr_24hr_in")
    s = _positive(slope_ft_per_ft, "slope_ft_per_ft")
    return 0.007 * (n * length) ** 0.8 / (p2 ** 0.5 * s ** 0.4)


def shallow_concentrated_velocity_fps(slope_ft_per_ft: float, surface: str) -> float:
    """Average velocity of shallow concentrated flow [ft/s].

    Parameters
    ----------
    slope_ft_per_ft : float
        Watercourse slope s [ft/ft], greater than 0 and at most 1.
    surface : {"paved", "unpaved"}

    Returns
    -------
    float
        V = 16.1345 s^0.5 (unpaved) or 20.3282 s^0.5 (paved) [ft/s].

    Notes
    -----
    Figure 3-1 is drawn for 0.005 to 0.50 ft/ft. The Appendix F equations are Manning's equation
    V = (1.49 / n) r^(2/3) s^(1/2) with unpaved n = 0.05, r = 0.4 ft and paved n = 0.025, r = 0.2 ft,
    which holds at any slope; flat parking lots (0.2-0.5 %) are common, so a slope outside the drawn
    range is computed by the same equation and should be flagged with
    :func:`shallow_concentrated_outside_figure` (issue 19: use the equations beyond the figure's range).

    References
    ----------
    TR-55 (1986), Figure 3-1; Appendix F equations for Figure 3-1.
    """
    if surface not in SHALLOW_CONCENTRATED_K:
        raise ValueError("surface: must be 'paved' or 'unpaved'")
    s = _positive(slope_ft_per_ft, "slope_ft_per_ft")
    if s > 1.0:
        raise ValueError("slope_ft_per_ft: must be at most 1 ft/ft")
    return SHALLOW_CONCENTRATED_K[surface] * math.sqrt(s)


def travel_time_hr(length_ft: float, velocity_fps: float) -> float:
    """Travel time Tt = L / (3600 V) [hr] (TR-55 Eq. 3-1), for L [ft] and V [ft/s]."""
    return _positive(length_ft, "length_ft") / (3600.0 * _positive(velocity_fps, "velocity_fps"))


def shallow_concentrated_travel_time_hr(length_ft: float, slope_ft_per_ft: float, surface: str) -> float:
    """Shallow-concentrated-flow travel time [hr]: Eq. 3-1 with the Figure 3-1 velocity."""
    return travel_time_hr(length_ft, shallow_concentrated_velocity_fps(slope_ft_per_ft, surface))


def manning_velocity_fps(hydraulic_radius_ft: float, slope_ft_per_ft: float, manning_n: float) -> float:
    """Open-channel velocity by Manning's equation [ft/s].

    Parameters
    ----------
    hydraulic_radius_ft : float
        r = a / pw [ft], greater than 0.
    slope_ft_per_ft : float
        Slope of the hydraulic grade line s [ft/ft], greater than 0.
    manning_n : float
        Manning's roughness for open channel flow [-], 0.005 to 1.0.

    Returns
    -------
    float
        V = 1.49 r^(2/3) s^(1/2) / n [ft/s].

    References
    ----------
    TR-55 (1986), Eq. 3-4.
    """
    r = _positive(hydraulic_radius_ft, "hydraulic_radius_ft")
    s = _positive(slope_ft_per_ft, "slope_ft_per_ft")
    n = require_finite(manning_n, "manning_n")
    if not 0.005 <= n <= 1.0:
        raise ValueError("manning_n: must be between 0.005 and 1.0")
    return 1.49 * r ** (2.0 / 3.0) * math.sqrt(s) / n


def channel_flow_travel_time_hr(length_ft: float, flow_area_sqft: float, wetted_perimeter_ft: float,
                                slope_ft_per_ft: float, manning_n: float) -> float:
    """Channel-flow travel time [hr]: Manning velocity (Eq. 3-4, r = a / pw) in Eq. 3-1.

    Parameters are the reach length [ft], bankfull flow area a [ft²], wetted perimeter pw [ft],
    slope [ft/ft] and Manning's n [-] (TR-55 Example 3-1 segment CD: 0.99 hr).
    """
    a = _positive(flow_area_sqft, "flow_area_sqft")
    pw = _positive(wetted_perimeter_ft, "wetted_perimeter_ft")
    return travel_time_hr(length_ft, manning_velocity_fps(a / pw, slope_ft_per_ft, manning_n))


@dataclass(frozen=True)
class SheetFlow:
    manning_n: float
    length_ft: float
    rainfall_2yr_24hr_in: float
    slope_ft_per_ft: float

    def travel_time_hr(self) -> float:
        return sheet_flow_travel_time_hr(self.manning_n, self.length_ft, self.rainfall_2yr_24hr_in,
                                         self.slope_ft_per_ft)


@dataclass(frozen=True)
class ShallowConcentratedFlow:
    length_ft: float
    slope_ft_per_ft: float
    surface: str

    def travel_time_hr(self) -> float:
        return shallow_concentrated_travel_time_hr(self.length_ft, self.slope_ft_per_ft, self.surface)


@dataclass(frozen=True)
class ChannelFlow:
    length_ft: float
    flow_area_sqft: float
    wetted_perimeter_ft: float
    slope_ft_per_ft: float
    manning_n: float

    def travel_time_hr(self) -> float:
        return channel_flow_travel_time_hr(self.length_ft, self.flow_area_sqft, self.wetted_perimeter_ft,
                                           self.slope_ft_per_ft, self.manning_n)


def time_of_concentration_hr(segments: Iterable[SheetFlow | ShallowConcentratedFlow | ChannelFlow]) -> float:
    """Time of concentration Tc = Tt1 + Tt2 + ... + Ttm [hr] (TR-55 Eq. 3-2).

    Notes
    -----
    Returns the unrounded sum. TR-55's graphical and tabular methods use Tc >= 0.1 hr (the minimum
    Tc used in TR-55); those functions enforce it, so a shorter Tc is returned here as computed.
    At most one sheet-flow segment, and it must come first (TR-55 ch. 3, Figure 3-2).
    """
    total = 0.0
    segs = list(segments)
    if not segs:
        raise ValueError("segments: at least one flow segment is required")
    for i, seg in enumerate(segs):
        if isinstance(seg, SheetFlow) and i != 0:
            raise ValueError(f"segments[{i}]: sheet flow can only be the first segment")
        total += seg.travel_time_hr()
    return total
