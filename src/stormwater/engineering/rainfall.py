"""Design rainfall: NOAA Atlas 14 PFDS import, "NOAA plus" depths, NRCS 24-hour distributions.

Chapter 380 rules, § 380-11 A(2)(a)-(b) ("Rainfall data"): peak runoff rates are computed with
"90% of the upper confidence interval mean of NOAA Atlas 14 data for Longmeadow" ("NOAA plus"):
multiply 0.9 by the NOAA upper confidence value for the design storm. The PFDS upper bound is the
upper bound of the 90 % confidence interval.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from ._tables import interp, require_finite, table

# Ch. 380 § 380-11 A(2)(b)[4]: "Multiply 0.9 by the NOAA upper confidence interval mean".
NOAA_PLUS_FACTOR = 0.9

STATISTICS = ("estimate", "upper", "lower")
STORM_TYPES = ("II", "III")

_DISTRIBUTION_FILES = {
    "II": "nrcs_type_ii_24hr_rainfall_distribution_0.1hr.csv",
    "III": "nrcs_type_iii_24hr_rainfall_distribution_0.1hr.csv",
}


@dataclass(frozen=True)
class PfdsData:
    """Point precipitation-frequency depths read from NOAA PFDS CSV file(s).

    ``depths_in[statistic][duration][ari_years]`` in inches; ``statistic`` is ``estimate``,
    ``upper`` or ``lower`` (bounds of the 90 % confidence interval), ``duration`` the PFDS label
    (``"24-hr"``, ``"2-day"``, ...), ``ari_years`` the average recurrence interval.
    """

    atlas: str
    series: str
    location: str
    station: str
    latitude: str
    longitude: str
    depths_in: dict[str, dict[str, dict[int, float]]] = field(default_factory=dict)

    def depth_in(self, *, duration: str = "24-hr", ari_years: int, statistic: str = "estimate") -> float:
        """The depth [in] for one duration, recurrence interval and statistic; ``ValueError`` if absent."""
        if statistic not in self.depths_in:
            have = ", ".join(sorted(self.depths_in)) or "none"
            raise ValueError(f"statistic: the PFDS data holds no {statistic!r} block (it has: {have})")
        block = self.depths_in[statistic]
        if duration not in block:
            raise ValueError(f"duration: {duration!r} is not in the PFDS table ({', '.join(block)})")
        row = block[duration]
        if ari_years not in row:
            raise ValueError(f"ari_years: {ari_years} is not in the PFDS table ({', '.join(map(str, row))})")
        return row[ari_years]


def _decode(raw: bytes) -> str:
    # PFDS serves ISO-8859-1 (the degree sign is byte 0xB0); files re-saved elsewhere are UTF-8.
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


_BANNERS = (
    ("UPPER BOUND", "upper"),
    ("LOWER BOUND", "lower"),
)


def _meta(lines: list[str], key: str) -> str:
    for ln in lines:
        if ln.startswith(key):
            return ln[len(key):].strip().rstrip(",").strip()
    return ""


def read_pfds_csv(source: str | bytes | Path) -> PfdsData:
    """Read a NOAA Atlas 14 PFDS point precipitation-frequency CSV.

    Parameters
    ----------
    source : str, bytes or pathlib.Path
        The file's path, its raw bytes, or its decoded text. One file may hold one statistic
        (the PFDS ``PF_``, ``UCL_``, ``LCL_`` downloads) or several stacked blocks.

    Returns
    -------
    PfdsData
        Metadata and depths [in] by statistic, duration and ARI [years].

    Notes
    -----
    Accepts the variants seen in real files: ISO-8859-1 or UTF-8, CRLF line ends, Excel
    re-saves padded with trailing commas and with trailing zeros dropped. A block is recognised by
    its banner ("PRECIPITATION FREQUENCY ESTIMATES", "... AT UPPER BOUND OF 90% CONFIDENCE
    INTERVAL", "... AT LOWER BOUND ...") followed by the ``by duration for ARI (years):`` header.
    Only depth files in inches are accepted.

    References
    ----------
    NOAA Atlas 14 Precipitation Frequency Data Server (PFDS),
    https://hdsc.nws.noaa.gov/hdsc/pfds/ -- CSV output format.
    """
    if isinstance(source, Path):
        text = _decode(source.read_bytes())
    elif isinstance(source, bytes):
        text = _decode(source)
    else:
        text = source
    lines = [ln.rstrip("\r") for ln in text.split("\n")]
    stripped = [ln.strip() for ln in lines]
    if not stripped or "precipitation frequency estimates" not in stripped[0].lower():
        raise ValueError("pfds: not a NOAA PFDS precipitation frequency CSV (first line should read "
                         "'Point precipitation frequency estimates (inches)')")
    if "(inches)" not in stripped[0].lower():
        raise ValueError("pfds: only depth files in inches are accepted (first line: " + stripped[0].rstrip(",") + ")")
    depths: dict[str, dict[str, dict[int, float]]] = {}
    statistic: str | None = None
    aris: list[int] | None = None
    for n, ln in enumerate(stripped, 1):
        cells = [c.strip() for c in ln.split(",")]
        while cells and cells[-1] == "":
            cells.pop()
        if not cells:
            aris = None
            continue
        head = cells[0].upper()
        if head.startswith("PRECIPITATION FREQUENCY ESTIMATES"):
            statistic = next((s for banner, s in _BANNERS if banner in head), "estimate")
            aris = None
            continue
        if head.startswith("BY DURATION FOR ARI"):
            if statistic is None:
                raise ValueError(f"pfds: line {n}: ARI header before any block banner")
            try:
                aris = [int(float(c)) for c in cells[1:]]
            except ValueError:
                raise ValueError(f"pfds: line {n}: unreadable ARI header {ln!r}") from None
            if statistic in depths:
                raise ValueError(f"pfds: line {n}: a second {statistic!r} block")
            depths[statistic] = {}
            continue
        if aris is not None and statistic is not None and cells[0].endswith(":"):
            label = cells[0][:-1].strip()
            values = cells[1:]
            if len(values) != len(aris):
                raise ValueError(f"pfds: line {n}: {label} has {len(values)} values for {len(aris)} ARIs")
            try:
                depths[statistic][label] = {a: float(v) for a, v in zip(aris, values)}
            except ValueError:
                raise ValueError(f"pfds: line {n}: unreadable depth in {ln!r}") from None
            bad = [f"{a}-yr {v!r}" for a, v in zip(aris, values)
                   if not (math.isfinite(depths[statistic][label][a]) and depths[statistic][label][a] > 0)]
            if bad:  # issue 26: a NaN or negative depth was accepted and a review stored
                raise ValueError(f"pfds: line {n} ({label}): depths must be positive numbers of inches, not "
                                 f"{', '.join(bad)}")
            continue
        aris = None if head.startswith("DATE/TIME") else aris
    if not depths:
        raise ValueError("pfds: no 'by duration for ARI (years)' table found")
    return PfdsData(
        atlas=stripped[1].rstrip(",").strip() if len(stripped) > 1 else "",
        series=_meta(stripped, "Time series type:"),
        location=_meta(stripped, "Location name (ESRI Maps):"),
        station=_meta(stripped, "Station Name:"),
        latitude=_meta(stripped, "Latitude:"),
        longitude=_meta(stripped, "Longitude:"),
        depths_in=depths,
    )


def pfds_merge(*parts: PfdsData) -> PfdsData:
    """Combine the estimate, upper and lower PFDS files of one site into one :class:`PfdsData`.

    Raises ``ValueError`` if the files name different sites or atlas versions, or if a statistic
    appears twice.
    """
    if not parts:
        raise ValueError("pfds: nothing to merge")
    first = parts[0]
    merged: dict[str, dict[str, dict[int, float]]] = {}
    for p in parts:
        for attr in ("atlas", "latitude", "longitude", "series"):
            if getattr(p, attr) != getattr(first, attr):
                raise ValueError(f"pfds: files disagree on {attr}: {getattr(first, attr)!r} vs {getattr(p, attr)!r}")
        for stat, block in p.depths_in.items():
            if stat in merged:
                raise ValueError(f"pfds: two files carry the {stat!r} block")
            merged[stat] = block
    return PfdsData(first.atlas, first.series, first.location, first.station, first.latitude, first.longitude, merged)


_COORD = re.compile(r"^\s*(-?\d+(?:\.\d+)?)")


def pfds_site_coordinates(data: PfdsData) -> tuple[float, float] | None:
    """The site's latitude and longitude [decimal degrees] from the PFDS header, or ``None``.

    Reads ``Latitude: 43.3402°`` (degree sign in ISO-8859-1 or UTF-8) and the newer
    ``Latitude: 42.2403 Degree``; west longitudes are negative as PFDS writes them.
    """
    lat = _COORD.match(data.latitude or "")
    lon = _COORD.match(data.longitude or "")
    if not lat or not lon:
        return None
    la, lo = float(lat.group(1)), float(lon.group(1))
    if not (-90 <= la <= 90 and -180 <= lo <= 180):
        return None
    return la, lo


EARTH_RADIUS_MI = 3958.8  # mean Earth radius 6,371.0 km (IUGG) in statute miles


def great_circle_distance_mi(lat1_deg: float, lon1_deg: float, lat2_deg: float, lon2_deg: float) -> float:
    """Great-circle distance [mi] between two points given in decimal degrees (haversine formula).

    Good to about 0.5 % on the ellipsoid, far finer than the check it serves (is a PFDS point in
    the town or 90 miles away; Ch. 380 § 380-11 A(2)(a): "NOAA Atlas 14 data for Longmeadow").

    References
    ----------
    R. W. Sinnott, "Virtues of the Haversine", *Sky and Telescope* 68(2), 1984, p. 159.
    """
    p1, p2 = math.radians(require_finite(lat1_deg, "lat1_deg")), math.radians(require_finite(lat2_deg, "lat2_deg"))
    dp = p2 - p1
    dl = math.radians(require_finite(lon2_deg, "lon2_deg") - require_finite(lon1_deg, "lon1_deg"))
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2.0 * EARTH_RADIUS_MI * math.asin(min(1.0, math.sqrt(a)))


def noaa_plus_design_rainfall_in(upper_ci_in: float) -> float:
    """Longmeadow "NOAA plus" design rainfall: 0.9 × the NOAA Atlas 14 upper 90 % confidence bound.

    Parameters
    ----------
    upper_ci_in : float
        Upper bound of the 90 % confidence interval of the NOAA Atlas 14 depth [in].

    Returns
    -------
    float
        Design rainfall depth [in].

    Notes
    -----
    Valid for any depth greater than 0 in and at most 60 in (beyond any 24-hour Atlas 14 value in
    the Northeast; a larger number is a data-entry error).

    References
    ----------
    Town of Longmeadow, Chapter 380 Stormwater Management Rules and Regulations (adopted
    2023-11-28), § 380-11 A(2)(a) and (b)[4].
    """
    p = require_finite(upper_ci_in, "upper_ci_in")
    if not 0 < p <= 60:
        raise ValueError("upper_ci_in: must be greater than 0 and at most 60 inches")
    return NOAA_PLUS_FACTOR * p


def noaa_plus_design_storms_in(data: PfdsData, *, ari_years: tuple[int, ...] = (2, 10, 100),
                               duration: str = "24-hr") -> dict[int, float]:
    """Design depths [in] for the Ch. 380 design storms: 0.9 × upper 90 % bound, by ARI [years].

    Default storms: 2-, 10- and 100-year 24-hour (Ch. 380 § 380-12, stormwater management plan
    contents: "Peak runoff rates and total runoff volumes ... for the two-year, ten-year and 100-year,
    twenty-four-hour storms").
    """
    return {a: noaa_plus_design_rainfall_in(data.depth_in(duration=duration, ari_years=a, statistic="upper"))
            for a in ari_years}


@lru_cache(maxsize=None)
def _distribution(storm_type: str) -> tuple[tuple[float, ...], tuple[float, ...]]:
    if storm_type not in _DISTRIBUTION_FILES:
        raise ValueError(f"storm_type: {storm_type!r} is not one of {', '.join(STORM_TYPES)}")
    rows = table(_DISTRIBUTION_FILES[storm_type])
    return (tuple(float(r["time_hr"]) for r in rows), tuple(float(r["cumulative_fraction"]) for r in rows))


def nrcs_24hr_cumulative_fraction(t_hr: float, storm_type: str = "III") -> float:
    """Fraction of the 24-hour depth fallen by time ``t_hr`` in an NRCS type II or III storm.

    Parameters
    ----------
    t_hr : float
        Time from the storm's start [hr], 0 to 24.
    storm_type : {"II", "III"}
        NRCS synthetic rainfall distribution.

    Returns
    -------
    float
        Cumulative fraction P(t)/P24 [-], linear between the 0.1-hr ordinates.

    References
    ----------
    USDA NRCS WinTR-20 tabular distributions "TYPE II"/"TYPE III", 0.1-hr increment, 241 points
    (data file ``nrcs_type_iii_24hr_rainfall_distribution_0.1hr.csv``); TR-55 (1986) Figure B-2.
    """
    t = require_finite(t_hr, "t_hr")
    times, fractions = _distribution(storm_type)
    return interp(t, times, fractions, what="t_hr")


def nrcs_24hr_hyetograph(rainfall_in: float, storm_type: str = "III", dt_hr: float = 0.1) -> list[tuple[float, float]]:
    """Cumulative rainfall [in] of a 24-hour NRCS design storm at steps of ``dt_hr``.

    Parameters
    ----------
    rainfall_in : float
        24-hour design depth [in], greater than 0.
    storm_type : {"II", "III"}
    dt_hr : float
        Time step [hr]; 24 / dt_hr must be a whole number; 0.01 to 1.0 hr.

    Returns
    -------
    list of (time_hr, cumulative_rainfall_in)
        From (0, 0) to (24, rainfall_in).
    """
    p = require_finite(rainfall_in, "rainfall_in")
    if p <= 0:
        raise ValueError("rainfall_in: must be greater than zero")
    steps = _steps(dt_hr, 24.0)
    return [(k * dt_hr, p * nrcs_24hr_cumulative_fraction(min(k * dt_hr, 24.0), storm_type)) for k in range(steps + 1)]


def _steps(dt_hr: float, duration_hr: float) -> int:
    dt = require_finite(dt_hr, "dt_hr")
    if not 0.01 <= dt <= 1.0:
        raise ValueError("dt_hr: must be between 0.01 and 1.0 hour")
    n = round(duration_hr / dt)
    if abs(n * dt - duration_hr) > 1e-9 * duration_hr:
        raise ValueError(f"dt_hr: {duration_hr:g} h must be a whole number of steps")
    return n
