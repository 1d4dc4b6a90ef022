"""Subcatchments in the review: the TR-55 worksheets (cover table and CN, Tc segments) and the runoff.

Pure Python (no Django). Each function returns the numbers *and* the working a Town engineer needs to
recheck them from the report alone: every cover part with its TR-55 table row and CN, the CN
arithmetic, every Tc segment with its formula, inputs and result.

References
----------
USDA NRCS TR-55 (1986): worksheet 2 (CN, Tables 2-2a-c, Fig. 2-3/2-4), worksheet 3 (Tc: Eq. 3-3 sheet
flow, Figure 3-1 / Appendix F shallow concentrated flow, Eq. 3-4 Manning channel flow), Eq. 2-1 to 2-4.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from stormwater.engineering.hydrograph import Hydrograph, hydrograph_sum, scs_unit_hydrograph_runoff
from stormwater.engineering.peak import graphical_peak_discharge, ia_over_p_limits
from stormwater.engineering.runoff import (composite_cn_unconnected_impervious, curve_number_lookup,
                                           curve_number_rows, initial_abstraction_in, potential_retention_in,
                                           runoff_depth_in, weighted_curve_number)
from stormwater.engineering.tc import (SHALLOW_CONCENTRATED_K, SHALLOW_SLOPE_RANGE, TC_MIN_HR, ChannelFlow,
                                       ShallowConcentratedFlow, SheetFlow, shallow_concentrated_outside_figure,
                                       time_of_concentration_hr)

from .plan import SQFT_PER_ACRE, Subcatchment
from .quality import FAIL, PASS
from .rows import row

# The NRCS 24-hour rainfall distribution for Massachusetts: Type III ("Type III represents Gulf of Mexico and
# Atlantic coastal areas"; Massachusetts lies wholly in its region on TR-55 App. B, Fig. B-2). The review
# recomputes every plan on it, whatever distribution the plan states (issue 31).
SITE_STORM_TYPE = "III"
SRC_STORM_TYPE = ("USDA NRCS TR-55 (1986) App. B, Fig. B-2 (approximate geographic boundaries for NRCS rainfall "
                  "distributions): Massachusetts lies in the Type III region")


RUNOFF_METHOD_LABELS = {
    "weighted_cn": "one area-weighted CN for the whole subcatchment (TR-55 worksheet 2, as WinTR-55)",
    "separate": "pervious and impervious runoff computed separately, each by its own CN, then added "
                "(HydroCAD \u201cWeighted-Q\u201d)",
}


class HydrologyError(ValueError):
    """A subcatchment cannot be computed; the message names it (``post[0].tc[1]: …``)."""


def _r(x: float | None, nd: int) -> float | None:
    return None if x is None else round(x, nd)


@dataclass
class SubResult:
    """One subcatchment, computed: its CN(s), Tc and the working behind them."""

    spec: Subcatchment
    cn: float                       # area-weighted (or composite) CN, for the report and the graphical peak
    cn_method: str
    cn_working: str
    runoff_parts: list[tuple[str, float, float]]  # (label, area_acres, CN) whose runoff is added
    impervious_sqft: float
    impervious_by_hsg: dict[str, float]
    cover_rows: list[dict]
    tc_hr: float
    tc_computed_hr: float
    tc_segments: list[dict]
    notes: list[str] = field(default_factory=list)
    # The impervious parts' own flow path ("separate" with impervious_tc; issue 31), else None / [].
    imp_tc_hr: float | None = None
    imp_tc_computed_hr: float | None = None
    imp_tc_segments: list[dict] = field(default_factory=list)

    def tc_of(self, label: str) -> float:
        """Tc of a runoff part: the impervious path for the impervious part when it has one."""
        return self.imp_tc_hr if label == "impervious" and self.imp_tc_hr is not None else self.tc_hr

    @property
    def runoff_method(self) -> str:
        return self.spec.runoff_method

    def runoff_in(self, rainfall_in: float) -> float:
        a = sum(x for _, x, _ in self.runoff_parts)
        return sum(x * runoff_depth_in(rainfall_in, cn) for _, x, cn in self.runoff_parts) / a

    def hydrograph(self, rainfall_in: float, storm_type: str, dt_hr: float) -> Hydrograph:
        """The subcatchment's runoff hydrograph; with separate parts, their hydrographs (each at its Tc) added."""
        hs = [scs_unit_hydrograph_runoff(drainage_area_acres=a, curve_number=cn, tc_hr=self.tc_of(label),
                                         rainfall_in=rainfall_in, storm_type=storm_type, dt_hr=dt_hr)
              for label, a, cn in self.runoff_parts]
        return hs[0] if len(hs) == 1 else hydrograph_sum(*hs)

    def graphical_peak(self, rainfall_in: float, storm_type: str) -> tuple[float | None, str]:
        """The TR-55 graphical peak [cfs] beside the hydrograph, and what the reader must know about it.

        TR-55 ch. 4 (Exhibit 4; App. F Table F-1): "If the computed Ia/P ratio is outside the range shown in
        exhibit 4 for the rainfall distribution of interest, then the limiting value of the curve should be
        used" -- the peak is then read at the limit, and the note says so (issue 31).
        """
        try:
            gp = graphical_peak_discharge(drainage_area_acres=self.spec.area_acres, curve_number=self.cn,
                                          tc_hr=self.tc_hr, rainfall_in=rainfall_in, storm_type=storm_type)
        except ValueError as e:
            return None, str(e)
        notes = []
        if self.runoff_method == "separate":
            notes.append("TR-55 graphical method with the area-weighted CN (it takes one CN)"
                         + (" and the pervious flow path's Tc" if self.imp_tc_hr is not None else ""))
        if gp.runoff_in > 0 and gp.ia_over_p_used != gp.ia_over_p:
            lo, hi = ia_over_p_limits(storm_type)
            side = "largest" if gp.ia_over_p > hi else "smallest"
            notes.append(f"Ia/P {gp.ia_over_p:.3f} ({gp.ia_in:.3f} / {rainfall_in:.3f} in) is outside Exhibit 4 "
                         f"(Type {storm_type}: {lo:.2f} to {hi:.2f}); qu read at its {side} value, "
                         f"{gp.ia_over_p_used:.2f}, as TR-55 ch. 4 directs: the graphical peak is approximate here")
        return gp.peak_cfs, "; ".join(notes)

    def runoff_working(self, rainfall_in: float) -> list[dict]:
        """S, Ia and Q of each part whose runoff is computed (TR-55 Eq. 2-1 to 2-4)."""
        out = []
        for label, a, cn in self.runoff_parts:
            s = potential_retention_in(cn)
            out.append({"label": label, "area_acres": round(a, 4), "cn": _r(cn, 2), "s_in": _r(s, 3),
                        "ia_in": _r(initial_abstraction_in(cn), 3), "runoff_in": _r(runoff_depth_in(rainfall_in, cn), 3)})
        return out


def storm_type_row(stated: str) -> dict:
    """The rainfall distribution row: the plan's stated distribution against the site's (Type III).

    A plan computed on another distribution (Type II is the most intense short-duration storm, TR-55 App. B)
    does not describe the design storm's intensity for Longmeadow (§ 380-12 A(3)(g)[2]); the review
    recomputes on Type III and the row fails, naming the distribution the plan used.
    """
    ok = stated == SITE_STORM_TYPE
    return row("rainfall_distribution", "Rainfall distribution (24-hour design storm)",
               "§ 380-12 A(3)(g)[2] (design storm intensity); § 380-11 A(1), A(2)",
               PASS if ok else FAIL, required=f"NRCS Type {SITE_STORM_TYPE} 24-hour distribution (Massachusetts)",
               provided=f"NRCS Type {stated} 24-hour distribution (as stated in the plan)",
               reason="" if ok else (
                   f"the plan states a Type {stated} distribution; Longmeadow lies in the NRCS Type {SITE_STORM_TYPE} "
                   f"region (TR-55 Fig. B-2). This review computes every storm on Type {SITE_STORM_TYPE}; the "
                   f"applicant's Type {stated} figures do not show compliance: recompute on Type {SITE_STORM_TYPE}"),
               numbers={"stated": stated, "used": SITE_STORM_TYPE}, sources=[SRC_STORM_TYPE])


def _cover_label(key: str) -> tuple[str, str]:
    row = curve_number_rows().get(key)
    return (row.description, f"TR-55 Table {row.table}") if row else (key, "")


def curve_number(s: Subcatchment, path: str) -> tuple[float, str, str, list[tuple[str, float, float]], float,
                                                      dict[str, float], list[dict], list[str]]:
    """CN, its method and working, the runoff parts, impervious area [ft²] (total and by HSG), cover rows."""
    notes: list[str] = []
    if s.cn is not None:
        imp = (s.impervious_acres or 0.0) * SQFT_PER_ACRE
        by_hsg = {s.hsg: imp} if s.hsg and imp else ({"?": imp} if imp else {})
        rows = [{"cover": "as stated", "description": "CN as stated in the plan", "source": "", "hsg": s.hsg,
                 "area_acres": s.area_acres, "cn": s.cn, "area_x_cn": round(s.area_acres * s.cn, 3),
                 "impervious": False, "connected": None}]
        return (s.cn, "CN as stated in the plan", f"CN {s.cn:g} as stated", [("all", s.area_acres, s.cn)], imp,
                by_hsg, rows, notes)
    parts, rows = [], []
    imp_conn = imp_unconn = 0.0
    by_hsg: dict[str, float] = {}
    perv, impv = [], []
    for i, p in enumerate(s.cover):
        try:
            cn = p.cn if p.cn is not None else float(curve_number_lookup(p.cover, p.hsg))
        except ValueError as e:
            raise HydrologyError(f"{path}.cover[{i}]: {e}") from None
        desc, src = _cover_label(p.cover) if p.cover else ("CN as stated", "plan")
        rows.append({"cover": p.cover or "as stated", "description": desc, "source": src, "hsg": p.hsg,
                     "area_acres": p.area_acres, "cn": cn, "area_x_cn": round(p.area_acres * cn, 3),
                     "impervious": p.impervious,
                     "connected": p.connected if p.impervious else None})
        parts.append((p.area_acres, cn))
        if p.impervious:
            a = p.area_acres * SQFT_PER_ACRE
            by_hsg[p.hsg or "?"] = by_hsg.get(p.hsg or "?", 0.0) + a
            impv.append((p.area_acres, cn))
            if p.connected:
                imp_conn += p.area_acres
            else:
                imp_unconn += p.area_acres
        else:
            perv.append((p.area_acres, cn))
    imp_sqft = (imp_conn + imp_unconn) * SQFT_PER_ACRE
    total = sum(a for a, _ in parts)
    weighted = weighted_curve_number(parts)
    working = (f"({' + '.join(f'{a:g} × {cn:g}' for a, cn in parts)}) / {total:g} = "
               f"{sum(a * cn for a, cn in parts):.2f} / {total:g} = {weighted:.2f}")
    if s.runoff_method == "separate" and perv and impv:
        cnp, cni = weighted_curve_number(perv), weighted_curve_number(impv)
        ap, ai = sum(a for a, _ in perv), sum(a for a, _ in impv)
        runoff_parts = [("pervious", ap, cnp), ("impervious", ai, cni)]
        return (weighted, "pervious and impervious separately (area-weighted CN shown for reference)", working,
                runoff_parts, imp_sqft, by_hsg, rows, notes)
    if imp_unconn > 0:
        pimp = 100.0 * (imp_conn + imp_unconn) / total
        if pimp < 30 and perv:
            cnp = weighted_curve_number(perv)
            r_pct = 100.0 * imp_unconn / (imp_conn + imp_unconn)
            cn = composite_cn_unconnected_impervious(cnp, pimp, r_pct)
            working = (f"CNp = {cnp:.2f}; CNc = CNp + (Pimp/100)(98 − CNp)(1 − 0.5R) = {cnp:.2f} + ({pimp:.2f}/100)"
                       f"(98 − {cnp:.2f})(1 − 0.5 × {r_pct / 100:.3f}) = {cn:.2f}")
            return (cn, f"TR-55 Fig. 2-4 (unconnected impervious {r_pct:.0f} % of {pimp:.1f} % impervious, "
                        f"pervious CN {cnp:.1f})", working, [("all", total, cn)], imp_sqft, by_hsg, rows, notes)
        notes.append(f"{s.id}: unconnected impervious area treated as connected (total impervious {pimp:.1f} % "
                     "is 30 % or more; TR-55 Fig. 2-4 applies only below 30 %).")
    return (weighted, "TR-55 worksheet 2, area-weighted (Tables 2-2a-c)", working, [("all", total, weighted)],
            imp_sqft, by_hsg, rows, notes)


def _segment_working(g, p2_in: float) -> tuple[object, dict]:
    if g.flow == "sheet":
        p2 = g.p2_in or p2_in
        o = SheetFlow(g.manning_n, g.length_ft, p2, g.slope_ft_per_ft)
        tt = o.travel_time_hr()
        return o, {"formula": "Tt = 0.007 (n L)^0.8 / (P2^0.5 s^0.4)  [TR-55 Eq. 3-3]",
                   "working": f"0.007 × ({g.manning_n:g} × {g.length_ft:g})^0.8 / ({p2:.3f}^0.5 × "
                              f"{g.slope_ft_per_ft:g}^0.4) = {tt:.4f} h",
                   "p2_in": _r(p2, 3), "travel_time_hr": tt, "velocity_fps": None}
    if g.flow == "shallow":
        o = ShallowConcentratedFlow(g.length_ft, g.slope_ft_per_ft, g.surface)
        k = SHALLOW_CONCENTRATED_K[g.surface]
        v = k * math.sqrt(g.slope_ft_per_ft)
        tt = o.travel_time_hr()
        return o, {"formula": f"V = {k:g} s^0.5 ({g.surface}, TR-55 Fig. 3-1 / App. F); Tt = L / (3600 V)  [Eq. 3-1]",
                   "working": f"V = {k:g} × {g.slope_ft_per_ft:g}^0.5 = {v:.4f} ft/s; "
                              f"Tt = {g.length_ft:g} / (3600 × {v:.4f}) = {tt:.4f} h",
                   "travel_time_hr": tt, "velocity_fps": v}
    o = ChannelFlow(g.length_ft, g.flow_area_sqft, g.wetted_perimeter_ft, g.slope_ft_per_ft, g.manning_n)
    r = g.flow_area_sqft / g.wetted_perimeter_ft
    v = 1.49 * r ** (2.0 / 3.0) * math.sqrt(g.slope_ft_per_ft) / g.manning_n
    tt = o.travel_time_hr()
    return o, {"formula": "r = a / pw; V = 1.49 r^(2/3) s^(1/2) / n  [TR-55 Eq. 3-4]; Tt = L / (3600 V)",
               "working": f"r = {g.flow_area_sqft:g} / {g.wetted_perimeter_ft:g} = {r:.4f} ft; V = 1.49 × "
                          f"{r:.4f}^(2/3) × {g.slope_ft_per_ft:g}^0.5 / {g.manning_n:g} = {v:.4f} ft/s; "
                          f"Tt = {g.length_ft:g} / (3600 × {v:.4f}) = {tt:.4f} h",
               "hydraulic_radius_ft": _r(r, 4), "travel_time_hr": tt, "velocity_fps": v}


def time_of_concentration(s: Subcatchment, path: str, p2_in: float, *,
                          impervious: bool = False) -> tuple[float, float, list[dict], list[str]]:
    """Tc used [h] (at least 0.1 h), Tc computed [h], the segments with their working, notes.

    ``impervious``: the impervious parts' own flow path (``impervious_tc``) instead of ``tc``."""
    notes: list[str] = []
    segments, path = (s.impervious_tc, f"{path}.impervious_tc") if impervious else (s.tc, f"{path}.tc")
    if s.tc_hr is not None and not impervious:
        tc = s.tc_hr
        segs = [{"flow": "as stated", "travel_time_hr": _r(tc, 4), "formula": "Tc as stated in the plan",
                 "working": f"{tc:g} h"}]
    else:
        objs, segs = [], []
        for i, g in enumerate(segments):
            try:
                o, w = _segment_working(g, p2_in)
            except ValueError as e:
                raise HydrologyError(f"{path}[{i}]: {e}") from None
            objs.append(o)
            flag = ""
            if g.flow == "shallow" and shallow_concentrated_outside_figure(g.slope_ft_per_ft):
                lo, hi = SHALLOW_SLOPE_RANGE
                flag = (f"slope {g.slope_ft_per_ft:g} ft/ft is outside Figure 3-1's drawn range ({lo:g}-{hi:g} ft/ft): "
                        "the Appendix F equation (Manning with the figure's n and r) is used beyond it")
                notes.append(f"{s.id}: shallow concentrated segment {i + 1}, {flag} (TR-55 Figure 3-1).")
            segs.append({"flow": g.flow, "length_ft": g.length_ft, "slope_ft_per_ft": g.slope_ft_per_ft,
                         "manning_n": g.manning_n, "surface": g.surface, "flow_area_sqft": g.flow_area_sqft,
                         "wetted_perimeter_ft": g.wetted_perimeter_ft, "p2_in": w.get("p2_in"),
                         "hydraulic_radius_ft": w.get("hydraulic_radius_ft"),
                         "velocity_fps": _r(w["velocity_fps"], 4), "travel_time_hr": _r(w["travel_time_hr"], 4),
                         "formula": w["formula"], "working": w["working"], "flag": flag})
        tc = time_of_concentration_hr(objs)
    used = max(tc, TC_MIN_HR)
    if tc < TC_MIN_HR:
        notes.append(f"{s.id}: {'impervious flow path ' if impervious else ''}Tc {tc:.3f} h raised to the TR-55 "
                     "minimum of 0.1 h.")
    return used, tc, segs, notes


def subcatchment_compute(s: Subcatchment, path: str, p2_in: float) -> SubResult:
    cn, method, working, parts, imp, by_hsg, rows, n1 = curve_number(s, path)
    tc, tc_raw, segs, n2 = time_of_concentration(s, path, p2_in)
    r = SubResult(s, cn, method, working, parts, imp, by_hsg, rows, tc, tc_raw, segs, n1 + n2)
    if s.impervious_tc and any(label == "impervious" for label, _, _ in parts):
        r.imp_tc_hr, r.imp_tc_computed_hr, r.imp_tc_segments, n3 = time_of_concentration(s, path, p2_in,
                                                                                          impervious=True)
        r.notes.extend(n3)
    return r
