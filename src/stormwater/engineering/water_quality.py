"""Water quality and retention: Chapter 380 § 380-11 standards and BMP performance tables.

Chapter 380 rules (Town of Longmeadow, adopted 2023-11-28), § 380-11:

- D(1) new development: average annual removal of 90 % of TSS and 60 % of TP from the total
  post-construction impervious area; D(2)(b) or retain 1 inch × total post-construction impervious
  area; D(2)(c) or a combination of retention and treatment.
- E(1) redevelopment: 80 % TSS and 50 % TP; E(2)(b) or retain 0.8 inch × total post-construction
  impervious area; E(2)(c) or a combination.
- A(4), D(2)(a): BMP removal per EPA Region 1's BMP performance tools (the MS4 permit's performance
  curves, Appendix F Att. 3 for TP, Appendix H Att. 1 for TN) or, where they do not cover a BMP,
  another federally or state-approved method.

Definitions (Ch. 380 "Definitions"): *new development* disturbs >= 1 acre (or is part of a larger
common plan disturbing >= 1 acre) on an area not previously developed to include impervious surface;
*redevelopment* is any such project that does not meet the definition of new development.

The BMP engine is table-driven. An official performance table (CSV of points: bmp, pollutant,
infiltration_rate_in_hr, storage_depth_in, removal) is loaded with :func:`load_performance_table`;
results name the table. The RBEROST regression fits (EPA ORD's approximations of the Region 1 TP and
TN curves) ship as :func:`rberost_provisional_table` and every result from them carries
``provisional=True``. There are no TSS curves in the shipped data: a TSS request without a loaded
TSS table is "not assessable" (:class:`NotAssessable`), never a guessed number.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Sequence

from ._tables import csv_text_rows, require_finite, table

POLLUTANTS = ("TSS", "TP", "TN")


class ProjectType(str, Enum):
    NEW_DEVELOPMENT = "new_development"
    REDEVELOPMENT = "redevelopment"


@dataclass(frozen=True)
class Standard:
    """The § 380-11 water-quality standard for a project type."""

    project_type: ProjectType
    retention_depth_in: float
    tss_removal_target_pct: float
    tp_removal_target_pct: float
    source: str


# Ch. 380 § 380-11 D(1), D(2)(b) and E(1), E(2)(b).
STANDARDS = {
    ProjectType.NEW_DEVELOPMENT: Standard(ProjectType.NEW_DEVELOPMENT, 1.0, 90.0, 60.0,
                                          "Ch. 380 § 380-11 D(1) (90 % TSS, 60 % TP) and D(2)(b) (1 inch retention)"),
    ProjectType.REDEVELOPMENT: Standard(ProjectType.REDEVELOPMENT, 0.8, 80.0, 50.0,
                                        "Ch. 380 § 380-11 E(1) (80 % TSS, 50 % TP) and E(2)(b) (0.8 inch retention)"),
}

# Ch. 380 "Definitions" (new development, redevelopment) and § 380-3 applicability: 1 acre.
APPLICABILITY_DISTURBANCE_ACRES = 1.0


def project_type_determine(*, disturbance_acres: float, previously_developed_with_impervious: bool,
                           part_of_common_plan_disturbing_one_acre: bool = False) -> ProjectType | None:
    """New development or redevelopment per the Chapter 380 definitions; ``None`` if neither applies.

    Parameters
    ----------
    disturbance_acres : float
        Total land disturbance of the project [acres], 0 or more.
    previously_developed_with_impervious : bool
        Whether the area was previously developed to include impervious surface.
    part_of_common_plan_disturbing_one_acre : bool
        The project is part of a larger common plan of development disturbing >= 1 acre.

    Returns
    -------
    ProjectType or None
        ``None`` when the disturbance is under 1 acre and not part of such a common plan (the
        performance standards of § 380-11 D/E do not apply; see § 380-11 B for LID guidance).

    References
    ----------
    Ch. 380 rules, "Definitions": NEW DEVELOPMENT, REDEVELOPMENT.
    """
    acres = require_finite(disturbance_acres, "disturbance_acres")
    if acres < 0:
        raise ValueError("disturbance_acres: must be zero or more")
    if acres < APPLICABILITY_DISTURBANCE_ACRES and not part_of_common_plan_disturbing_one_acre:
        return None
    return ProjectType.REDEVELOPMENT if previously_developed_with_impervious else ProjectType.NEW_DEVELOPMENT


def _project_type(project_type: ProjectType | str) -> ProjectType:
    try:
        return ProjectType(project_type)
    except ValueError:
        raise ValueError("project_type: must be new_development or redevelopment") from None


def required_retention_volume_cuft(impervious_sqft: float, project_type: ProjectType | str) -> float:
    """Retention volume [ft³] that meets § 380-11 D(2)(b) / E(2)(b) on its own.

    Parameters
    ----------
    impervious_sqft : float
        Total post-construction impervious area of the site [ft²], 0 or more.
    project_type : ProjectType or {"new_development", "redevelopment"}

    Returns
    -------
    float
        depth [in] / 12 × impervious area: 1.0 in for new development, 0.8 in for redevelopment.

    References
    ----------
    Ch. 380 rules, § 380-11 D(2)(b) and E(2)(b).
    """
    area = require_finite(impervious_sqft, "impervious_sqft")
    if area < 0:
        raise ValueError("impervious_sqft: must be zero or more")
    return STANDARDS[_project_type(project_type)].retention_depth_in / 12.0 * area


def treatment_train_removal(removals: Iterable[float]) -> float:
    """Removal fraction [-] of BMPs in series: 1 - Π(1 - r_i), each r_i a fraction in [0, 1].

    Notes
    -----
    Assumes each BMP removes the same fraction of what reaches it (the MassDEP TSS worksheet's
    starting-load/remaining-load chain). EPA Region 1's BMP tools compute trains differently for
    TP/TN (by routing storage volumes); use their result when the official tool gives one.
    """
    remaining = 1.0
    n = 0
    for i, r in enumerate(removals):
        v = require_finite(r, f"removals[{i}]")
        if not 0 <= v <= 1:
            raise ValueError(f"removals[{i}]: must be a fraction between 0 and 1")
        remaining *= 1.0 - v
        n += 1
    if n == 0:
        raise ValueError("removals: at least one BMP is required")
    return 1.0 - remaining


def drawdown_time_hr(volume_cuft: float, infiltration_rate_in_hr: float, bottom_area_sqft: float) -> float:
    """Time [hr] for an infiltration BMP to empty: Rv / (K × bottom area).

    Parameters
    ----------
    volume_cuft : float
        Stored (recharge) volume Rv [ft³], 0 or more.
    infiltration_rate_in_hr : float
        Design saturated hydraulic conductivity K [in/hr], greater than 0 (MassDEP uses the Rawls rate).
    bottom_area_sqft : float
        Infiltrating bottom area [ft²], greater than 0.

    Notes
    -----
    MassDEP Stormwater Handbook: infiltration BMPs must drain within 72 hours (``DRAWDOWN_LIMIT_HR``).

    References
    ----------
    MassDEP Massachusetts Stormwater Handbook, Vol. 3 ch. 1 (drawdown "TD = Rv / (K × bottom area)"),
    as quoted in a Northampton MA stormwater report (reference facts file, confidence medium/low).
    """
    v = require_finite(volume_cuft, "volume_cuft")
    k = require_finite(infiltration_rate_in_hr, "infiltration_rate_in_hr")
    a = require_finite(bottom_area_sqft, "bottom_area_sqft")
    if v < 0:
        raise ValueError("volume_cuft: must be zero or more")
    if k <= 0:
        raise ValueError("infiltration_rate_in_hr: must be greater than zero")
    if a <= 0:
        raise ValueError("bottom_area_sqft: must be greater than zero")
    return v / (k / 12.0 * a)


DRAWDOWN_LIMIT_HR = 72.0  # MassDEP Handbook (secondary source; see drawdown_time_hr)


def recharge_volume_cuft(target_depth_in: float, impervious_sqft: float) -> float:
    """Required recharge volume Rv = F × impervious area [ft³] (MassDEP Standard 3 static method).

    ``target_depth_in`` F [in] comes from the Handbook's Table 2.3.2 by hydrologic soil group
    (B 0.35 in and D 0.10 in were read from a secondary source; A and C were not retrieved, so the
    caller must supply F). Handbook example: 0.6 in × 0.75 acre = 1,633.5 ft³.
    """
    f = require_finite(target_depth_in, "target_depth_in")
    a = require_finite(impervious_sqft, "impervious_sqft")
    if not 0 < f <= 2:
        raise ValueError("target_depth_in: must be greater than 0 and at most 2 inches")
    if a < 0:
        raise ValueError("impervious_sqft: must be zero or more")
    return f / 12.0 * a


def annual_load_lb(area_acres: float, export_rate_lb_per_acre_yr: float) -> float:
    """Annual pollutant load [lb/yr] = area [acres] × export rate [lb/acre/yr].

    The export rates (MS4 permit App. F Att. 1) are not shipped: the caller supplies the rate from
    the official table and names it in the report.
    """
    a = require_finite(area_acres, "area_acres")
    r = require_finite(export_rate_lb_per_acre_yr, "export_rate_lb_per_acre_yr")
    if a < 0 or r < 0:
        raise ValueError("area_acres, export_rate_lb_per_acre_yr: must be zero or more")
    return a * r


# --- BMP performance tables ------------------------------------------------------------------

class NotAssessable(ValueError):
    """No performance table covers the BMP and pollutant: the standard cannot be assessed."""


@dataclass(frozen=True)
class BmpRemoval:
    removal: float  # fraction [0, 1]
    table: str
    provisional: bool
    note: str = ""

    @property
    def removal_pct(self) -> float:
        return 100.0 * self.removal


def _norm_bmp(name: str) -> str:
    return "_".join(str(name).strip().lower().replace("-", " ").replace("_", " ").split())


def _norm_pollutant(p: str) -> str:
    v = str(p).strip().upper()
    if v not in POLLUTANTS:
        raise ValueError("pollutant: must be TSS, TP or TN")
    return v


@dataclass(frozen=True)
class PerformanceCurveTable:
    """BMP performance curves as points: removal against storage depth, per infiltration rate.

    ``curves[(bmp, pollutant)][rate]`` is a curve (:class:`PointsCurve` or :class:`FittedCurve`);
    ``rate`` is the infiltration rate [in/hr] or ``None`` for a rate-independent BMP.
    """

    name: str
    source: str
    provisional: bool
    curves: dict[tuple[str, str], dict[float | None, "PointsCurve | FittedCurve"]]

    def bmps(self) -> list[str]:
        return sorted({b for b, _ in self.curves})

    def removal(self, bmp: str, pollutant: str, storage_depth_in: float,
                infiltration_rate_in_hr: float | None = None) -> BmpRemoval:
        """Removal of one BMP, interpolated linearly in depth and then in infiltration rate.

        Raises :class:`NotAssessable` if the table has no curve for the BMP and pollutant, and
        ``ValueError`` if the depth or rate lies outside the curves (no extrapolation).
        """
        key = (_norm_bmp(bmp), _norm_pollutant(pollutant))
        if key not in self.curves:
            raise NotAssessable(f"bmp: table {self.name!r} has no {key[1]} curve for {bmp!r}")
        by_rate = self.curves[key]
        depth = require_finite(storage_depth_in, "storage_depth_in")
        rates = sorted(r for r in by_rate if r is not None)
        if infiltration_rate_in_hr is None:
            if None not in by_rate:
                raise ValueError(f"infiltration_rate_in_hr: required for {bmp!r} "
                                 f"(curves for {', '.join(f'{r:g}' for r in rates)} in/hr)")
            return BmpRemoval(by_rate[None].at(depth), self.name, self.provisional)
        rate = require_finite(infiltration_rate_in_hr, "infiltration_rate_in_hr")
        if not rates:
            raise ValueError(f"infiltration_rate_in_hr: {bmp!r} has no rate-dependent curves; omit the rate")
        if not rates[0] <= rate <= rates[-1]:
            raise ValueError(f"infiltration_rate_in_hr: {rate:g} is outside the curves' range "
                             f"{rates[0]:g} to {rates[-1]:g} in/hr")
        for lo, hi in zip(rates, rates[1:] or rates):
            if lo <= rate <= hi:
                a = by_rate[lo].at(depth)
                if hi == lo:
                    return BmpRemoval(a, self.name, self.provisional)
                b = by_rate[hi].at(depth)
                return BmpRemoval(a + (b - a) * (rate - lo) / (hi - lo), self.name, self.provisional)
        return BmpRemoval(by_rate[rates[-1]].at(depth), self.name, self.provisional)


def _depth_in_range(depth: float, lo: float, hi: float) -> None:
    if not lo <= depth <= hi:
        raise ValueError(f"storage_depth_in: {depth:g} is outside the curve's range {lo:g} to {hi:g} in")


@dataclass(frozen=True)
class PointsCurve:
    """A tabulated curve: (storage_depth_in, removal fraction) points, linear between them."""

    points: tuple[tuple[float, float], ...]

    def at(self, depth: float) -> float:
        pts = self.points
        _depth_in_range(depth, pts[0][0], pts[-1][0])
        for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
            if x0 <= depth <= x1:
                return y0 if x1 == x0 else y0 + (y1 - y0) * (depth - x0) / (x1 - x0)
        return pts[-1][1]


@dataclass(frozen=True)
class FittedCurve:
    """A regression fit y(x) valid for ``lo <= x <= hi``, its value clipped to [0, 1]."""

    form: str
    coefficients: tuple[float, float, float]
    lo: float
    hi: float

    def at(self, depth: float) -> float:
        _depth_in_range(depth, self.lo, self.hi)
        return min(1.0, max(0.0, _rberost_eval(self.form, *self.coefficients, depth)))


PERFORMANCE_TABLE_COLUMNS = ("bmp", "pollutant", "infiltration_rate_in_hr", "storage_depth_in", "removal")


def load_performance_table(source: str | Path, *, name: str, source_note: str,
                           provisional: bool = False) -> PerformanceCurveTable:
    """Load an official BMP performance table from CSV points.

    Parameters
    ----------
    source : str or pathlib.Path
        CSV text or path; ``#`` lines are comments; columns ``bmp, pollutant,
        infiltration_rate_in_hr, storage_depth_in, removal``. ``removal`` is a fraction (0-1) or a
        percentage (any value > 1 makes the whole file read as percent); an empty rate means the
        curve does not depend on infiltration rate.
    name : str
        The table's name as shown on every result (e.g. "MS4 App. F Att. 3 Table 3-1").
    source_note : str
        Where the numbers come from.
    provisional : bool
        Mark every result as provisional.

    Notes
    -----
    Each (bmp, pollutant, rate) curve needs at least two depths, strictly increasing, with
    removals between 0 and 1 (or 0-100 %).
    """
    text = source.read_text(encoding="utf-8") if isinstance(source, Path) else source
    rows = csv_text_rows(text)
    if not rows:
        raise ValueError("table: no rows")
    missing = [c for c in PERFORMANCE_TABLE_COLUMNS if c not in rows[0]]
    if missing:
        raise ValueError(f"table: missing column(s) {', '.join(missing)}")
    known = set(rberost_provisional_table().bmps())  # the EPA Region 1 BMP categories
    raw: dict[tuple[str, str], dict[float | None, list[tuple[float, float, int]]]] = {}
    fractions, percents = [], []
    for i, r in enumerate(rows, 1):
        if any(r.get(c) is None for c in PERFORMANCE_TABLE_COLUMNS) or None in r:
            have = sum(1 for k, v in r.items() if k is not None and v is not None)
            raise ValueError(f"table: row {i}: {have} fields where the header has "
                             f"{len(rows[0])} (a cut-off or re-saved file?)")
        try:
            depth = float(r["storage_depth_in"])
            rem = float(r["removal"])
            rate_s = (r["infiltration_rate_in_hr"] or "").strip()
            rate = None if rate_s in ("", "NA", "na", "-") else float(rate_s)
        except ValueError:
            raise ValueError(f"table: row {i}: unreadable number") from None
        if not all(math.isfinite(v) for v in (depth, rem, rate if rate is not None else 0.0)):
            raise ValueError(f"table: row {i}: a number that is not finite")
        if depth < 0:
            raise ValueError(f"table: row {i} (storage_depth_in): {depth:g} is negative")
        if rate is not None and rate < 0:
            raise ValueError(f"table: row {i} (infiltration_rate_in_hr): {rate:g} in/hr is negative")
        if not 0 <= rem <= 100:
            raise ValueError(f"table: row {i} (removal): {rem:g} is outside 0-100 %")
        if 0 < rem < 1:
            fractions.append(i)
        elif rem > 1:
            percents.append(i)
        bmp = _norm_bmp(r["bmp"])
        if bmp not in known:
            raise ValueError(f"table: row {i} (bmp): {r['bmp']!r} is not an EPA Region 1 BMP category "
                             f"({', '.join(sorted(known))})")
        key = (bmp, _norm_pollutant(r["pollutant"]))
        raw.setdefault(key, {}).setdefault(rate, []).append((depth, rem, i))
    if fractions and percents:
        # "90" among fractions used to turn the whole file into percent (0.6 read as 0.6 %).
        raise ValueError(f"table: removal written both as fractions (0-1, rows {', '.join(map(str, fractions[:5]))}) "
                         f"and as percent (rows {', '.join(map(str, percents[:5]))}): write every removal one way")
    as_pct = bool(percents)
    curves: dict[tuple[str, str], dict[float | None, PointsCurve | FittedCurve]] = {}
    for key, by_rate in raw.items():
        curves[key] = {}
        for rate, pts in by_rate.items():
            pts.sort()
            if len(pts) < 2 or any(b[0] <= a[0] for a, b in zip(pts, pts[1:])):
                raise ValueError(f"table: {key[0]} {key[1]} rate {rate}: needs two or more distinct depths")
            falling = [f"row {b[2]}" for a, b in zip(pts, pts[1:]) if b[1] < a[1]]
            if falling:
                # More storage never treats less (EPA Region 1 BMP performance curves rise with depth).
                raise ValueError(f"table: {key[0]} {key[1]} rate {rate}: removal falls as storage grows "
                                 f"({', '.join(falling)})")
            scaled = tuple((d, v / 100.0 if as_pct else v) for d, v, _ in pts)
            curves[key][rate] = PointsCurve(scaled)
    return PerformanceCurveTable(name, source_note, provisional, curves)


# --- RBEROST fits (provisional) ----------------------------------------------------------------

RBEROST_TABLE_NAME = "RBEROST regression fits to EPA Region 1 BMP performance curves (provisional)"
RBEROST_DEPTH_RANGE_IN = (0.1, 2.0)  # RBEROST 01_UserSpecs_BMPs.csv design-depth range
RBEROST_POROUS_PAVEMENT_FILTER_RANGE_IN = (12.0, 32.0)  # x is filter-course depth for this BMP
_RBEROST_POLLUTANT = {"P": "TP", "N": "TN"}


def _rberost_eval(form: str, c1: float, c2: float, c3: float, x: float) -> float:
    form = form.replace(" ", "")
    if form == "y~Coef.1+Coef.2*log(x)":
        return c1 + c2 * math.log(x)
    if form == "y~Coef.1+Coef.2*(x^2)+Coef.3*x":
        return c1 + c2 * x * x + c3 * x
    if form == "y~Coef.1+Coef.2*x":
        return c1 + c2 * x
    if form == "y~Coef.1+Coef.2*(1-exp(Coef.3*x))":
        return c1 + c2 * (1.0 - math.exp(c3 * x))
    raise ValueError(f"unknown RBEROST curve form {form!r}")


@lru_cache(maxsize=None)
def rberost_provisional_table() -> PerformanceCurveTable:
    """The RBEROST fits (TP, TN) as a provisional performance table.

    Each fit is evaluated directly within its valid depth range (0.1-2.0 in of runoff from the
    impervious area; 12-32 in filter course for porous pavement with underdrain), clipped to [0, 1];
    outside that range it is an error. Rate-dependent infiltration curves (0.17-8.27 in/hr) are interpolated linearly in rate; a
    BMP's "NA" fit (rate pooled) is used when no rate is given.

    References
    ----------
    USEPA/RBEROST, Preprocessing/Inputs/UrbanBMPPerformanceCurves.csv (fits to the NH/Region 1 MS4
    permit curves; data file ``region1_bmp_performance_curve_fits_rberost.csv``). Not the permit's
    tabulated points: every result is flagged provisional.
    """
    curves: dict[tuple[str, str], dict[float | None, PointsCurve | FittedCurve]] = {}
    for r in table("region1_bmp_performance_curve_fits_rberost.csv"):
        bmp = _norm_bmp(r["BMP"])
        pol = _RBEROST_POLLUTANT[r["Pollutant"]]
        rate = None if r["InfiltrationRate_inperhr"] == "NA" else float(r["InfiltrationRate_inperhr"])
        c = tuple(0.0 if r[k] == "NA" else float(r[k]) for k in ("Coef.1", "Coef.2", "Coef.3"))
        lo, hi = (RBEROST_POROUS_PAVEMENT_FILTER_RANGE_IN if bmp == "porous_pavement_w_underdrain"
                  else RBEROST_DEPTH_RANGE_IN)
        _rberost_eval(r["Best.Fit.Curve"], *c, lo)  # an unknown curve form fails at load, not at use
        curves.setdefault((bmp, pol), {})[rate] = FittedCurve(r["Best.Fit.Curve"], c, lo, hi)
    return PerformanceCurveTable(RBEROST_TABLE_NAME,
                                 "USEPA/RBEROST UrbanBMPPerformanceCurves.csv (regression fits, not the permit tables)",
                                 True, curves)


def bmp_removal(bmp: str, pollutant: str, storage_depth_in: float, infiltration_rate_in_hr: float | None = None,
                *, tables: Sequence[PerformanceCurveTable] = ()) -> BmpRemoval:
    """Removal of a BMP from the first table that covers it; the RBEROST fits are the last resort.

    Official tables passed in ``tables`` take precedence, in order; when none covers the BMP and
    pollutant, the provisional RBEROST fits are tried (TP and TN only). Raises
    :class:`NotAssessable` when nothing covers it (e.g. any TSS request with no TSS table loaded).
    """
    pol = _norm_pollutant(pollutant)
    for t in (*tables, rberost_provisional_table()):
        if (_norm_bmp(bmp), pol) in t.curves:
            return t.removal(bmp, pol, storage_depth_in, infiltration_rate_in_hr)
    if pol == "TSS":
        raise NotAssessable("pollutant: no TSS performance table is loaded (the EPA Region 1 TSS curves and "
                            "MassDEP TSS credits are not shipped); load the official table")
    raise NotAssessable(f"bmp: no loaded table has a {pol} curve for {bmp!r}")
