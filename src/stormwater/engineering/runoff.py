"""Runoff depth and curve numbers: NRCS TR-55 chapter 2.

References
----------
USDA NRCS, *Urban Hydrology for Small Watersheds*, Technical Release 55 (TR-55), 2nd ed., June 1986
(210-VI-TR-55): Eq. 2-1 to 2-4; Tables 2-2a, 2-2b, 2-2c; Figures 2-3 and 2-4 (equations in Appendix F).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable

from ._tables import require_finite, table

# TR-55 Table 2-2c note 4: where the CN is less than 30, use CN = 30 for runoff computations.
CN_MIN = 30.0
CN_MAX = 100.0
# TR-55 ch. 2 Limitations: "When the weighted CN is less than 40, use another procedure".
CN_MIN_WEIGHTED_TR55 = 40.0
IMPERVIOUS_CN = 98.0  # TR-55 Table 2-2a: impervious areas, CN 98 for every soil group
HSGS = ("A", "B", "C", "D")


def _cn(curve_number: float, name: str = "curve_number") -> float:
    cn = require_finite(curve_number, name)
    if not CN_MIN <= cn <= CN_MAX:
        raise ValueError(f"{name}: must be between 30 and 100 (TR-55 Table 2-2c note 4: use 30 below 30)")
    return cn


def potential_retention_in(curve_number: float) -> float:
    """Potential maximum retention after runoff begins, S [in].

    Parameters
    ----------
    curve_number : float
        Runoff curve number CN [-], 30 to 100.

    Returns
    -------
    float
        S = 1000 / CN - 10 [in].

    References
    ----------
    TR-55 (1986), Eq. 2-4.
    """
    cn = _cn(curve_number)
    return 1000.0 / cn - 10.0


def initial_abstraction_in(curve_number: float) -> float:
    """Initial abstraction Ia = 0.2 S [in] (TR-55 Eq. 2-2; tabulated in Table 4-1).

    Parameters
    ----------
    curve_number : float
        Runoff curve number CN [-], 30 to 100.
    """
    return 0.2 * potential_retention_in(curve_number)


def runoff_depth_in(rainfall_in: float, curve_number: float) -> float:
    """Direct runoff depth Q [in] by the NRCS runoff equation.

    Parameters
    ----------
    rainfall_in : float
        Rainfall P [in], 0 or more.
    curve_number : float
        Runoff curve number CN [-], 30 to 100.

    Returns
    -------
    float
        Q = (P - Ia)^2 / (P - Ia + S) with Ia = 0.2 S, for P > Ia; 0 otherwise [in].

    Notes
    -----
    TR-55 tabulates Q for P = 1 to 15 in and CN 40 to 98 (Table 2-1); the equation itself holds for
    any P >= 0. TR-55 warns that the procedure is less accurate when Q is under 0.5 in and that a
    weighted CN under 40 calls for another procedure (ch. 2 Limitations); CN 30 is the floor of
    Table 2-2c note 4.

    References
    ----------
    TR-55 (1986), Eq. 2-1, 2-2, 2-3 and 2-4; Table 2-1.
    """
    p = require_finite(rainfall_in, "rainfall_in")
    if p < 0:
        raise ValueError("rainfall_in: must be zero or more")
    s = potential_retention_in(curve_number)
    ia = 0.2 * s
    if p <= ia:
        return 0.0
    return (p - ia) ** 2 / (p - ia + s)


def weighted_curve_number(parts: Iterable[tuple[float, float]]) -> float:
    """Area-weighted curve number of a drainage area.

    Parameters
    ----------
    parts : iterable of (area, curve_number)
        Areas in any one consistent unit (e.g. acres, or percent), each greater than 0, and the
        CN [-] of each (30 to 100).

    Returns
    -------
    float
        Sum(CN_i × A_i) / Sum(A_i), unrounded (TR-55 worksheet 2 rounds it for use).

    References
    ----------
    TR-55 (1986) ch. 2, worksheet 2 and Figures 2-5 to 2-8 (Examples 2-1 to 2-4).
    """
    total = 0.0
    weighted = 0.0
    n = 0
    for i, (area, cn) in enumerate(parts):
        a = require_finite(area, f"parts[{i}].area")
        if a <= 0:
            raise ValueError(f"parts[{i}].area: must be greater than zero")
        total += a
        weighted += a * _cn(cn, f"parts[{i}].curve_number")
        n += 1
    if n == 0:
        raise ValueError("parts: at least one (area, curve_number) is required")
    return weighted / total


def runoff_depth_separate_in(rainfall_in: float, parts: Iterable[tuple[float, float]]) -> float:
    """Runoff depth [in] of a mixed area with each part's runoff computed by its own CN.

    Parameters
    ----------
    rainfall_in : float
        Rainfall P [in], 0 or more.
    parts : iterable of (area, curve_number)
        Each part's area (any consistent unit, greater than 0) and CN [-] (30 to 100); typically the
        pervious parts (their area-weighted CN) and the impervious parts (CN 98).

    Returns
    -------
    float
        Q = Σ Aᵢ Q(P, CNᵢ) / Σ Aᵢ [in], Q(P, CN) by TR-55 Eq. 2-3.

    Notes
    -----
    TR-55 ch. 2 ("Limitations") warns that an area-weighted CN understates runoff where the CNs of the
    parts differ widely (e.g. pavement next to lawn at small P): the weighted CN's initial abstraction
    applies to the pavement too. Computing the parts separately and weighting the *runoff* is what
    HydroCAD calls "Weighted-Q"; WinTR-55 weights the CN. The review offers both per subcatchment.

    References
    ----------
    TR-55 (1986), Eq. 2-3 and ch. 2 "Limitations"; HydroCAD Technical Reference, "Weighted-CN vs
    Weighted-Q".
    """
    items = [(require_finite(a, "parts.area"), _cn(cn, "parts.curve_number")) for a, cn in parts]
    if not items:
        raise ValueError("parts: at least one (area, curve number) part is required")
    total = sum(a for a, _ in items)
    if any(a <= 0 for a, _ in items):
        raise ValueError("parts: every area must be greater than zero")
    return sum(a * runoff_depth_in(rainfall_in, cn) for a, cn in items) / total


def _pervious(pervious_cn: float, impervious_pct: float) -> tuple[float, float]:
    cnp = _cn(pervious_cn, "pervious_cn")
    pimp = require_finite(impervious_pct, "impervious_pct")
    if not 0 <= pimp <= 100:
        raise ValueError("impervious_pct: must be between 0 and 100")
    return cnp, pimp


def composite_cn_connected_impervious(pervious_cn: float, impervious_pct: float) -> float:
    """Composite CN with directly connected impervious area (impervious CN 98).

    Parameters
    ----------
    pervious_cn : float
        CN of the pervious part [-], 30 to 100.
    impervious_pct : float
        Impervious share of the area [%], 0 to 100.

    Returns
    -------
    float
        CNc = CNp + (Pimp / 100)(98 - CNp) [-], unrounded.

    References
    ----------
    TR-55 (1986), Figure 2-3; Appendix F equation for Figure 2-3.
    """
    cnp, pimp = _pervious(pervious_cn, impervious_pct)
    return cnp + pimp / 100.0 * (IMPERVIOUS_CN - cnp)


def composite_cn_unconnected_impervious(pervious_cn: float, impervious_pct: float, unconnected_pct: float) -> float:
    """Composite CN with unconnected impervious area (total impervious under 30 %).

    Parameters
    ----------
    pervious_cn : float
        CN of the pervious part [-], 30 to 100.
    impervious_pct : float
        Total impervious share of the area [%], 0 to 30 (exclusive).
    unconnected_pct : float
        Unconnected share of the impervious area [%], 0 to 100 (R = unconnected_pct / 100).

    Returns
    -------
    float
        CNc = CNp + (Pimp / 100)(98 - CNp)(1 - 0.5 R) [-], unrounded.

    Notes
    -----
    TR-55 applies Figure 2-4 only when total impervious area is less than 30 %; at 30 % or more the
    impervious area is treated as connected (Figure 2-3), so this function raises ``ValueError``
    there rather than apply the equation outside its range.

    References
    ----------
    TR-55 (1986), Figure 2-4; Appendix F equation for Figure 2-4.
    """
    cnp, pimp = _pervious(pervious_cn, impervious_pct)
    if pimp >= 30:
        raise ValueError("impervious_pct: Figure 2-4 (unconnected impervious) applies only below 30 %; "
                         "use composite_cn_connected_impervious (Figure 2-3)")
    r_pct = require_finite(unconnected_pct, "unconnected_pct")
    if not 0 <= r_pct <= 100:
        raise ValueError("unconnected_pct: must be between 0 and 100")
    return cnp + pimp / 100.0 * (IMPERVIOUS_CN - cnp) * (1.0 - 0.5 * r_pct / 100.0)


# --- Table 2-2a/b/c lookup -------------------------------------------------------------------

@dataclass(frozen=True)
class CurveNumberRow:
    """One row of TR-55 Table 2-2a, 2-2b or 2-2c."""

    key: str
    table: str
    description: str
    avg_impervious_pct: float | None
    cn: dict[str, int]


def _slug(text: str) -> str:
    text = re.sub(r"\*\d", "", text)
    text = re.sub(r"\([^)]*\)", "", text)
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


# Short keys for the urban rows of Table 2-2a (the CSV's cover text is long); the numbers come
# from the table file, the keys only name rows.
_URBAN_KEYS = {
    "Poor condition (grass cover < 50%)": "open_space_poor",
    "Fair condition (grass cover 50% to 75%)": "open_space_fair",
    "Good condition (grass cover > 75%)": "open_space_good",
    "Paved parking lots, roofs, driveways, etc. (excluding right-of-way)": "impervious",
    "Paved; curbs and storm sewers (excluding right-of-way)": "street_paved_curbs_sewers",
    "Paved; open ditches (including right-of-way)": "street_paved_open_ditches",
    "Gravel (including right-of-way)": "street_gravel",
    "Dirt (including right-of-way)": "street_dirt",
    "Commercial and business": "commercial",
    "Industrial": "industrial",
    "1/8 acre or less (town houses)": "residential_1_8_acre",
    "1/4 acre": "residential_1_4_acre",
    "1/3 acre": "residential_1_3_acre",
    "1/2 acre": "residential_1_2_acre",
    "1 acre": "residential_1_acre",
    "2 acres": "residential_2_acre",
    "Newly graded areas (pervious areas only, no vegetation) *5": "newly_graded",
}


_OTHER_AG_KEYS = (("Pasture", "pasture"), ("Meadow", "meadow"), ("Brush", "brush"),
                  ("Woods--grass", "woods_grass"), ("Woods", "woods"), ("Farmsteads", "farmsteads"))


@lru_cache(maxsize=None)
def curve_number_rows() -> dict[str, CurveNumberRow]:
    """All rows of TR-55 Tables 2-2a, 2-2b and 2-2c with a CN, by key (e.g. ``"open_space_good"``,
    ``"woods_good"``, ``"row_crops_straight_row_good"``)."""
    rows: dict[str, CurveNumberRow] = {}

    def add(key: str, tbl: str, desc: str, imp: str | None, r: dict[str, str]) -> None:
        if key in rows:
            raise RuntimeError(f"duplicate curve-number key {key}")
        rows[key] = CurveNumberRow(key, tbl, desc, float(imp) if imp else None,
                                   {h: int(r[f"CN_{h}"]) for h in HSGS})

    for r in table("tr55_table2-2a_cn_urban.csv"):
        if r["CN_A"] and r["cover_type"] in _URBAN_KEYS:
            add(_URBAN_KEYS[r["cover_type"]], "2-2a", r["cover_type"], r["avg_pct_impervious"], r)
    for r in table("tr55_table2-2b_cn_cultivated_agricultural.csv"):
        key = _slug(" ".join(x for x in (r["cover_type"], r["treatment"], r["hydrologic_condition"]) if x))
        add(key, "2-2b", f"{r['cover_type']}, {r['treatment']}, {r['hydrologic_condition'] or '-'}", None, r)
    for r in table("tr55_table2-2c_cn_other_agricultural.csv"):
        first = next(k for prefix, k in _OTHER_AG_KEYS if r["cover_type"].startswith(prefix))
        key = _slug(" ".join(x for x in (first, r["hydrologic_condition"]) if x))
        add(key, "2-2c", f"{r['cover_type'].strip()} {r['hydrologic_condition']}".strip(), None, r)
    return rows


def curve_number_lookup(cover: str, hsg: str) -> int:
    """Runoff curve number from TR-55 Tables 2-2a to 2-2c.

    Parameters
    ----------
    cover : str
        Row key from :func:`curve_number_rows` (e.g. ``"open_space_good"``, ``"impervious"``,
        ``"residential_1_2_acre"``, ``"woods_good"``, ``"pasture_good"``).
    hsg : {"A", "B", "C", "D"}
        Hydrologic soil group (TR-55 Appendix A).

    Returns
    -------
    int
        CN for average runoff condition and Ia = 0.2 S [-].

    References
    ----------
    TR-55 (1986), Tables 2-2a, 2-2b, 2-2c.
    """
    rows = curve_number_rows()
    if cover not in rows:
        raise ValueError(f"cover: {cover!r} is not a TR-55 Table 2-2 row key")
    h = str(hsg).strip().upper()
    if h not in HSGS:
        raise ValueError("hsg: must be A, B, C or D (a dual group such as A/D: choose the drained or undrained group)")
    return rows[cover].cn[h]
