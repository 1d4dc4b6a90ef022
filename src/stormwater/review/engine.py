"""The independent recomputation of a stormwater management plan and its § 380-11 compliance.

Pure Python (no Django): :func:`review_compute` takes a parsed :class:`~.plan.Plan` and the BMP
performance tables in force and returns a JSON-ready report. Every number comes from
``stormwater.engineering`` (TR-55, NEH 630, modified Puls routing, the BMP tables), every standard
row names the provision it decides, and a standard that cannot be decided from what is loaded is
``not_assessable`` with the reason -- never a guessed number.

Interpretations (each shown on the report where it decides a result):

- Peak rates: post-development peak ≤ pre-development peak at every design point for the 2-, 10- and
  100-year 24-hour "NOAA plus" storms (Ch. 380 § 380-11 B(1) incorporates the Massachusetts
  Stormwater Standards, whose Standard 2 compares peak rates; § 380-12 A(3)(g)[5], [11] require the
  three storms; Longmeadow holds the 100-year storm to the same comparison). Peaks come from NRCS
  unit-hydrograph runoff routed through each BMP by modified Puls; the TR-55 graphical peak of each
  subcatchment is shown alongside (it cannot route).
- Water quality: § 380-11 D(2)/E(2) -- the TSS and TP targets are met by (b) retention of the
  required volume, or by (a)/(c) BMP removal. Removal of the site = impervious-area-weighted removal
  of each treatment train (trains combine as 1 - Π(1 - rᵢ)); the EPA curves credit retention through
  the BMP's storage depth, so (a) and (c) are one computation. A BMP whose removal is not assessable
  counts as 0 % removal: if the site still meets the target, the standard passes; if not, it is not
  assessable (not "fail"), because the missing table might make up the difference.
- A BMP's storage depth larger than the largest depth of its curve is credited at that largest
  depth, and an infiltration rate above the curves' largest rate at that rate (both can only lower
  the removal: no extrapolation).
- Retention provided = storage of infiltrating BMPs below their lowest surface outlet (water that
  leaves only by infiltration).
- Total nitrogen: § 380-11 B(2) asks that BMPs be optimized for nitrogen and sets no percentage; TN
  removal is reported, not judged.
"""
from __future__ import annotations

from dataclasses import dataclass

from stormwater.engineering import water_quality as wq
from stormwater.engineering.hydrograph import Hydrograph, hydrograph_sum, scs_unit_hydrograph_runoff, unit_hydrograph_time_step_hr
from stormwater.engineering.peak import graphical_peak_discharge
from stormwater.engineering.rainfall import NOAA_PLUS_FACTOR, noaa_plus_design_rainfall_in, pfds_merge, read_pfds_csv
from stormwater.engineering.routing import Exfiltration, Orifice, RectangularWeir, StageStorage, storage_indication_route
from stormwater.engineering.runoff import (composite_cn_connected_impervious, composite_cn_unconnected_impervious,
                                           curve_number_lookup, runoff_depth_in, weighted_curve_number)
from stormwater.engineering.tc import (TC_MIN_HR, ChannelFlow, ShallowConcentratedFlow, SheetFlow,
                                       time_of_concentration_hr)

from .plan import SQFT_PER_ACRE, Bmp, Plan, Subcatchment

ENGINE_VERSION = "review-1"

PASS, FAIL, NOT_ASSESSABLE, INFO, NOT_APPLICABLE = "pass", "fail", "not_assessable", "info", "not_applicable"
STATUS_LABELS = {PASS: "Pass", FAIL: "Fail", NOT_ASSESSABLE: "Not assessable", INFO: "Reported",
                 NOT_APPLICABLE: "Not applicable"}

# MassDEP Standard 3 recharge target depth factor F [in] by HSG, as read (secondary source) in
# shared/reference/engineering/massdep_stormwater_handbook_facts.json; A and C were not retrieved.
RECHARGE_F_IN = {"B": 0.35, "D": 0.10}
RECHARGE_F_SOURCE = ("MassDEP Stormwater Handbook Table 2.3.2 target depth factor F (B 0.35 in, D 0.10 in), read from "
                     "a secondary source (Northampton MA stormwater report) -- provisional")

SRC_TR55 = "USDA NRCS TR-55, Urban Hydrology for Small Watersheds, 2nd ed. (1986), ch. 2-4"
SRC_NEH630 = "USDA NRCS NEH Part 630 ch. 16 (unit hydrograph, PRF 484) and ch. 17 (storage-indication routing)"
SRC_NOAA = "Ch. 380 § 380-11 A(2): 0.9 × NOAA Atlas 14 upper 90 % confidence bound ('NOAA plus')"
SRC_DIST = "NRCS 24-hour Type {t} distribution (WinTR-20 0.1-h ordinates)"


class ReviewError(ValueError):
    """The plan cannot be computed (e.g. a value outside a method's range); message names the item."""


def _r(x: float | None, nd: int) -> float | None:
    return None if x is None else round(x, nd)


# --- rainfall ----------------------------------------------------------------------------------

def _design_storms(plan: Plan) -> tuple[list[dict], dict[int, float], list[str], list[str], bool]:
    rf = plan.rainfall
    storms, depth, notes, provisional = [], {}, [], False
    if rf.pfds_csv:
        try:
            parts = [read_pfds_csv(t) for t in rf.pfds_csv]
            data = pfds_merge(*parts) if len(parts) > 1 else parts[0]
            for y in rf.storms_years:
                upper = data.depth_in(duration="24-hr", ari_years=y, statistic="upper")
                d = noaa_plus_design_rainfall_in(upper)
                depth[y] = d
                storms.append({"ari_years": y, "upper_ci_in": upper, "design_in": _r(d, 3),
                               "basis": "NOAA Atlas 14 PFDS file, 24-hr upper 90 % bound × 0.9"})
        except ValueError as e:
            raise ReviewError(f"rainfall.pfds_csv: {e}") from None
        site = ", ".join(x for x in (data.location, data.station, f"{data.latitude} {data.longitude}".strip()) if x)
        source = f"{SRC_NOAA}; PFDS file: {data.atlas}, {site}"
    elif rf.upper_ci_in:
        for y in rf.storms_years:
            d = noaa_plus_design_rainfall_in(rf.upper_ci_in[y])
            depth[y] = d
            storms.append({"ari_years": y, "upper_ci_in": rf.upper_ci_in[y], "design_in": _r(d, 3),
                           "basis": "upper 90 % bound as stated in the plan × 0.9"})
        source = f"{SRC_NOAA}; upper bounds as stated in the plan"
        notes.append("Rainfall: the NOAA upper bounds were typed into the plan, not read from a PFDS file; "
                     "check them against the PFDS download for the site.")
    else:
        for y in rf.storms_years:
            depth[y] = rf.design_in[y]
            storms.append({"ari_years": y, "upper_ci_in": None, "design_in": rf.design_in[y],
                           "basis": "design depth as stated in the plan (not checked against NOAA Atlas 14)"})
        source = "design depths as stated in the plan -- not verified as 'NOAA plus' (§ 380-11 A(2))"
        notes.append("Rainfall: design depths were given directly; § 380-11 A(2) requires 0.9 × the NOAA Atlas 14 "
                     "upper bound, which this review could not verify. Upload the PFDS CSV to check it.")
        provisional = True
    if rf.source_note:
        source += f" ({rf.source_note})"
    for s in storms:
        s["storm_type"] = rf.storm_type
    return storms, depth, [source, SRC_DIST.format(t=rf.storm_type)], notes, provisional


# --- subcatchments -----------------------------------------------------------------------------

@dataclass
class _Sub:
    spec: Subcatchment
    cn: float
    cn_method: str
    impervious_sqft: float
    impervious_by_hsg: dict[str, float]
    tc_hr: float
    tc_computed_hr: float
    tc_segments: list[dict]
    notes: list[str]


def _curve_number(s: Subcatchment, path: str) -> tuple[float, str, float, dict[str, float], list[str]]:
    notes: list[str] = []
    if s.cn is not None:
        imp = (s.impervious_acres or 0.0) * SQFT_PER_ACRE
        by_hsg = {s.hsg: imp} if s.hsg and imp else ({"?": imp} if imp else {})
        return s.cn, "CN as stated in the plan", imp, by_hsg, notes
    parts = []
    imp_conn = imp_unconn = 0.0
    by_hsg: dict[str, float] = {}
    perv = []
    for i, p in enumerate(s.cover):
        try:
            cn = p.cn if p.cn is not None else float(curve_number_lookup(p.cover, p.hsg))
        except ValueError as e:
            raise ReviewError(f"{path}.cover[{i}]: {e}") from None
        parts.append((p.area_acres, cn))
        if p.impervious:
            a = p.area_acres * SQFT_PER_ACRE
            by_hsg[p.hsg or "?"] = by_hsg.get(p.hsg or "?", 0.0) + a
            if p.connected:
                imp_conn += p.area_acres
            else:
                imp_unconn += p.area_acres
        else:
            perv.append((p.area_acres, cn))
    imp_sqft = (imp_conn + imp_unconn) * SQFT_PER_ACRE
    total = sum(a for a, _ in parts)
    if imp_unconn > 0:
        pimp = 100.0 * (imp_conn + imp_unconn) / total
        if pimp < 30 and perv:
            cnp = weighted_curve_number(perv)
            r_pct = 100.0 * imp_unconn / (imp_conn + imp_unconn)
            cn = composite_cn_unconnected_impervious(cnp, pimp, r_pct)
            return cn, (f"TR-55 Fig. 2-4 (unconnected impervious {r_pct:.0f} % of {pimp:.1f} % impervious, "
                        f"pervious CN {cnp:.1f})"), imp_sqft, by_hsg, notes
        notes.append(f"{s.id}: unconnected impervious area treated as connected (total impervious {pimp:.1f} % "
                     "is 30 % or more; TR-55 Fig. 2-4 applies only below 30 %).")
    return weighted_curve_number(parts), "TR-55 worksheet 2, area-weighted (Tables 2-2a-c)", imp_sqft, by_hsg, notes


def _time_of_concentration(s: Subcatchment, path: str, p2_in: float) -> tuple[float, float, list[dict], list[str]]:
    notes: list[str] = []
    if s.tc_hr is not None:
        tc = s.tc_hr
        segs = [{"flow": "as stated", "travel_time_hr": _r(tc, 3)}]
    else:
        objs, segs = [], []
        for i, g in enumerate(s.tc):
            try:
                if g.flow == "sheet":
                    o = SheetFlow(g.manning_n, g.length_ft, g.p2_in or p2_in, g.slope_ft_per_ft)
                elif g.flow == "shallow":
                    o = ShallowConcentratedFlow(g.length_ft, g.slope_ft_per_ft, g.surface)
                else:
                    o = ChannelFlow(g.length_ft, g.flow_area_sqft, g.wetted_perimeter_ft, g.slope_ft_per_ft, g.manning_n)
                tt = o.travel_time_hr()
            except ValueError as e:
                raise ReviewError(f"{path}.tc[{i}]: {e}") from None
            objs.append(o)
            segs.append({"flow": g.flow, "length_ft": g.length_ft, "slope_ft_per_ft": g.slope_ft_per_ft,
                         "manning_n": g.manning_n, "surface": g.surface,
                         "p2_in": _r(g.p2_in or p2_in, 2) if g.flow == "sheet" else None,
                         "travel_time_hr": _r(tt, 3)})
        tc = time_of_concentration_hr(objs)
    used = max(tc, TC_MIN_HR)
    if tc < TC_MIN_HR:
        notes.append(f"{s.id}: Tc {tc:.3f} h raised to the TR-55 minimum of 0.1 h.")
    return used, tc, segs, notes


def _sub(s: Subcatchment, path: str, p2_in: float) -> _Sub:
    cn, method, imp, by_hsg, n1 = _curve_number(s, path)
    tc, tc_raw, segs, n2 = _time_of_concentration(s, path, p2_in)
    return _Sub(s, cn, method, imp, by_hsg, tc, tc_raw, segs, n1 + n2)


# --- BMP hydraulics ----------------------------------------------------------------------------

def _outlets(b: Bmp) -> dict:
    out = {}
    for o in b.outlets:
        if o.kind == "orifice":
            dev = Orifice(o.elevation_ft, o.diameter_in / 12.0, o.coefficient or 0.6)
        else:
            dev = RectangularWeir(o.elevation_ft, o.length_ft, o.coefficient or 3.33)
        name = o.name
        k = 2
        while name in out:
            name, k = f"{o.name} ({k})", k + 1
        out[name] = dev
    if b.infiltration_rate_in_hr:
        out["exfiltration"] = Exfiltration(b.stage_storage[0][0], b.infiltration_rate_in_hr, b.bottom_area_sqft)
    return out


def _stage_storage(b: Bmp) -> StageStorage:
    return StageStorage(tuple(h for h, _ in b.stage_storage), tuple(s for _, s in b.stage_storage))


def _retention_cuft(b: Bmp) -> float:
    """Storage below the lowest surface outlet of an infiltrating BMP (leaves only by infiltration)."""
    if not b.infiltration_rate_in_hr or not b.stage_storage:
        return 0.0
    ss = _stage_storage(b)
    lowest = min((o.elevation_ft for o in b.outlets), default=ss.stages_ft[-1])
    return ss.storage_cuft(lowest)


def _treatment_storage_cuft(b: Bmp) -> tuple[float | None, str]:
    if b.treatment_storage_cuft is not None:
        return b.treatment_storage_cuft, "treatment storage as stated in the plan"
    if not b.stage_storage:
        return None, ""
    ss = _stage_storage(b)
    weirs = [o for o in b.outlets if o.kind == "weir"]
    if weirs:
        crest = min(o.elevation_ft for o in weirs)
        return ss.storage_cuft(crest), f"storage below the lowest weir crest ({crest:g} ft)"
    if b.outlets:
        top = max(o.elevation_ft for o in b.outlets)
        return ss.storage_cuft(top), f"storage below the highest outlet ({top:g} ft)"
    return ss.storages_cuft[-1], "full storage (no surface outlet)"


# --- BMP removal -------------------------------------------------------------------------------

def _curve_range(curve) -> tuple[float, float]:
    if hasattr(curve, "points"):
        return curve.points[0][0], curve.points[-1][0]
    return curve.lo, curve.hi


def _removal(bmp_type: str, pollutant: str, depth_in: float, rate: float | None, tables) -> dict:
    """Removal of one BMP for one pollutant, or the reason it is not assessable."""
    key = (wq._norm_bmp(bmp_type), pollutant)
    for t in (*tables, wq.rberost_provisional_table()):
        if key not in t.curves:
            continue
        by_rate = t.curves[key]
        rates = sorted(r for r in by_rate if r is not None)
        note = []
        use_rate = None
        if rates and rate is not None:
            use_rate = rate
            if rate > rates[-1]:
                use_rate = rates[-1]
                note.append(f"infiltration rate {rate:g} in/hr credited at the curves' largest, {rates[-1]:g} in/hr")
            elif rate < rates[0]:
                return {"status": NOT_ASSESSABLE, "table": t.name, "provisional": t.provisional,
                        "reason": f"infiltration rate {rate:g} in/hr is below the curves' smallest "
                                  f"({rates[0]:g} in/hr) in {t.name}"}
        elif None not in by_rate:
            return {"status": NOT_ASSESSABLE, "table": t.name, "provisional": t.provisional,
                    "reason": f"{t.name} has only rate-dependent {pollutant} curves for {bmp_type}; "
                              "the BMP gives no infiltration rate"}
        curves = [by_rate[r] for r in (rates if use_rate is not None else [None])]
        lo = max(_curve_range(c)[0] for c in curves)
        hi = min(_curve_range(c)[1] for c in curves)
        d = depth_in
        if d > hi:
            note.append(f"storage depth {depth_in:.2f} in credited at the curve's largest, {hi:g} in")
            d = hi
        if d < lo:
            return {"status": NOT_ASSESSABLE, "table": t.name, "provisional": t.provisional,
                    "reason": f"storage depth {depth_in:.3f} in is below the curve's smallest ({lo:g} in)"}
        try:
            r = t.removal(bmp_type, pollutant, d, use_rate)
        except ValueError as e:
            return {"status": NOT_ASSESSABLE, "table": t.name, "provisional": t.provisional, "reason": str(e)}
        return {"status": "ok", "removal_pct": round(r.removal_pct, 1), "removal": r.removal, "table": r.table,
                "provisional": r.provisional, "depth_used_in": round(d, 3), "rate_used_in_hr": use_rate,
                "note": "; ".join(note)}
    if pollutant == "TSS":
        reason = ("no TSS performance table is loaded (the EPA Region 1 TSS curves and MassDEP TSS credits are not "
                  "shipped); a DPW engineer must load the official table")
    else:
        reason = f"no loaded table has a {pollutant} curve for {bmp_type!r}"
    return {"status": NOT_ASSESSABLE, "table": None, "provisional": False, "reason": reason}


# --- the computation ---------------------------------------------------------------------------

def _row(key: str, title: str, provision: str, status: str, *, required: str = "", provided: str = "",
         reason: str = "", numbers: dict | None = None, provisional: bool = False, sources: list | None = None) -> dict:
    return {"key": key, "title": title, "provision": provision, "status": status,
            "status_label": STATUS_LABELS[status], "required": required, "provided": provided, "reason": reason,
            "numbers": numbers or {}, "provisional": provisional, "sources": sources or []}


def review_compute(plan: Plan, *, tables=()) -> dict:
    """Recompute the plan and decide each § 380-11 standard the numbers can decide.

    Parameters
    ----------
    plan : Plan
        From :func:`~stormwater.review.plan.plan_parse`.
    tables : sequence of PerformanceCurveTable
        Official BMP performance tables in force, in order of precedence; the provisional RBEROST
        TP/TN fits are always tried last.

    Returns
    -------
    dict
        JSON-ready report: ``project``, ``rainfall``, ``subcatchments``, ``bmps``, ``design_points``,
        ``standards`` (one row per decision), ``tables_used``, ``sources``, ``notes``, ``overall``,
        ``provisional``.
    """
    notes: list[str] = []
    storms, depth, rain_sources, rain_notes, rain_provisional = _design_storms(plan)
    notes.extend(rain_notes)
    years = list(plan.rainfall.storms_years)
    p2 = depth[2]
    storm_type = plan.rainfall.storm_type

    subs = [_sub(s, f"{s.phase}[{i}]", p2) for phase in (plan.pre, plan.post) for i, s in enumerate(phase)]
    for s in subs:
        notes.extend(s.notes)
    dt = min(unit_hydrograph_time_step_hr(s.tc_hr) for s in subs)

    # Hydrographs of every subcatchment and storm (one common step so they can be summed).
    hydro: dict[tuple[str, str, int], Hydrograph] = {}
    sub_rows = []
    for s in subs:
        row = {"phase": s.spec.phase, "id": s.spec.id, "description": s.spec.description, "to": s.spec.to,
               "area_acres": s.spec.area_acres, "cn": _r(s.cn, 1), "cn_method": s.cn_method,
               "impervious_sqft": round(s.impervious_sqft), "tc_hr": _r(s.tc_hr, 3),
               "tc_computed_hr": _r(s.tc_computed_hr, 3), "tc_segments": s.tc_segments, "storms": {}}
        for y in years:
            try:
                h = scs_unit_hydrograph_runoff(drainage_area_acres=s.spec.area_acres, curve_number=s.cn,
                                               tc_hr=s.tc_hr, rainfall_in=depth[y], storm_type=storm_type, dt_hr=dt)
            except ValueError as e:
                raise ReviewError(f"{s.spec.phase} {s.spec.id}: {e}") from None
            hydro[(s.spec.phase, s.spec.id, y)] = h
            q = runoff_depth_in(depth[y], s.cn)
            graphical = None
            graphical_note = ""
            try:
                graphical = graphical_peak_discharge(drainage_area_acres=s.spec.area_acres, curve_number=s.cn,
                                                     tc_hr=s.tc_hr, rainfall_in=depth[y],
                                                     storm_type=storm_type).peak_cfs
            except ValueError as e:
                graphical_note = str(e)
            row["storms"][str(y)] = {"rainfall_in": _r(depth[y], 3), "runoff_in": _r(q, 3),
                                     "volume_cuft": round(q / 12.0 * s.spec.area_acres * SQFT_PER_ACRE),
                                     "peak_cfs": _r(h.peak_cfs, 2), "peak_time_hr": _r(h.peak_time_hr, 2),
                                     "graphical_peak_cfs": _r(graphical, 2), "graphical_note": graphical_note}
        sub_rows.append(row)
    post_subs = [s for s in subs if s.spec.phase == "post"]

    # BMP network, upstream first.
    bmps = {b.id: b for b in plan.bmps}
    upstream_of: dict[str, list[str]] = {b.id: [] for b in plan.bmps}
    for b in plan.bmps:
        if b.to in bmps:
            upstream_of[b.to].append(b.id)
    order, done = [], set()

    def visit(bid: str) -> None:
        if bid in done:
            return
        for u in upstream_of[bid]:
            visit(u)
        done.add(bid)
        order.append(bid)

    for b in plan.bmps:
        visit(b.id)

    direct_imp = {b.id: 0.0 for b in plan.bmps}
    for s in post_subs:
        if s.spec.to in direct_imp:
            direct_imp[s.spec.to] += s.impervious_sqft
    contrib_imp: dict[str, float] = {}
    for bid in order:
        contrib_imp[bid] = direct_imp[bid] + sum(contrib_imp[u] for u in upstream_of[bid])

    outflow: dict[tuple[str, int], Hydrograph | None] = {}
    bmp_rows: dict[str, dict] = {}
    overtopped: dict[str, list[int]] = {b.id: [] for b in plan.bmps}
    for bid in order:
        b = bmps[bid]
        retention = _retention_cuft(b)
        treat, treat_basis = _treatment_storage_cuft(b)
        imp = contrib_imp[bid]
        row = {"id": bid, "type": b.type, "description": b.description, "to": b.to,
               "infiltration_rate_in_hr": b.infiltration_rate_in_hr, "bottom_area_sqft": b.bottom_area_sqft,
               "contributing_impervious_sqft": round(imp), "retention_cuft": round(retention),
               "treatment_storage_cuft": _r(treat, 0), "treatment_storage_basis": treat_basis,
               "storage_depth_in": _r(treat / imp * 12.0, 3) if treat and imp else None,
               "routed": bool(b.stage_storage), "outlets": [
                   {"kind": o.kind, "name": o.name, "elevation_ft": o.elevation_ft, "diameter_in": o.diameter_in,
                    "length_ft": o.length_ft, "emergency": o.emergency} for o in b.outlets],
               "top_stage_ft": b.stage_storage[-1][0] if b.stage_storage else None,
               "storms": {}, "removal": {}}
        for y in years:
            ins = [hydro[("post", s.spec.id, y)] for s in post_subs if s.spec.to == bid]
            ins += [outflow[(u, y)] for u in upstream_of[bid] if outflow[(u, y)] is not None]
            if not ins:
                outflow[(bid, y)] = None
                row["storms"][str(y)] = {"inflow_peak_cfs": 0.0, "outflow_peak_cfs": 0.0}
                continue
            inflow = hydrograph_sum(*ins)
            st = {"inflow_peak_cfs": _r(inflow.peak_cfs, 2), "inflow_volume_cuft": round(inflow.volume_cuft)}
            if b.stage_storage:
                try:
                    res = storage_indication_route(inflow, _stage_storage(b), _outlets(b))
                except ValueError as e:
                    if "overtops" not in str(e):
                        raise ReviewError(f"bmps {bid}, {y}-year storm: {e}") from None
                    overtopped[bid].append(y)
                    # Overtopping: report it and pass the inflow on unattenuated (the berm is exceeded).
                    st.update(overtops=True, outflow_peak_cfs=_r(inflow.peak_cfs, 2), note=str(e))
                    outflow[(bid, y)] = inflow
                    row["storms"][str(y)] = st
                    continue
                out = res.outflow
                if "exfiltration" in res.outlet_flows_cfs:
                    surf = tuple(o - e for o, e in zip(out.flows_cfs, res.outlet_flows_cfs["exfiltration"]))
                    out = Hydrograph(out.dt_hr, tuple(max(0.0, f) for f in surf))
                # Infiltrated volume by mass balance: summing the exfiltration outlet over-counts the
                # steps where the stage sits just above the bottom (the outlet runs at full rate there).
                infiltrated = max(0.0, inflow.volume_cuft - out.volume_cuft - res.storages_cuft[-1])
                st.update(overtops=False, outflow_peak_cfs=_r(out.peak_cfs, 2), peak_stage_ft=_r(res.peak_stage_ft, 2),
                          peak_storage_cuft=round(res.peak_storage_cuft), infiltrated_cuft=round(infiltrated),
                          outflow_volume_cuft=round(out.volume_cuft),
                          freeboard_ft=_r(b.stage_storage[-1][0] - res.peak_stage_ft, 2))
                outflow[(bid, y)] = out
            else:
                st.update(outflow_peak_cfs=_r(inflow.peak_cfs, 2), note="not routed (no stage-storage table)")
                outflow[(bid, y)] = inflow
            row["storms"][str(y)] = st
        # Removal by pollutant.
        depth_in = treat / imp * 12.0 if treat and imp else None
        for pol in wq.POLLUTANTS:
            if depth_in is None:
                why = ("no impervious area drains to it" if not imp else
                       "no storage volume (give stage_storage or treatment_storage_cuft)")
                row["removal"][pol] = {"status": NOT_ASSESSABLE, "table": None, "provisional": False,
                                       "reason": f"storage depth unknown: {why}"}
            else:
                row["removal"][pol] = _removal(b.type, pol, depth_in, b.infiltration_rate_in_hr, tables)
        # Drawdown of the retained volume (MassDEP: 72 h).
        if b.infiltration_rate_in_hr and retention > 0:
            row["drawdown_hr"] = _r(wq.drawdown_time_hr(retention, b.infiltration_rate_in_hr, b.bottom_area_sqft), 1)
        else:
            row["drawdown_hr"] = None
        bmp_rows[bid] = row

    # Design points: pre vs post.
    dp_rows = []
    for d in plan.design_points:
        drow = {"id": d.id, "description": d.description, "storms": {}}
        for y in years:
            pre = [hydro[("pre", s.spec.id, y)] for s in subs if s.spec.phase == "pre" and s.spec.to == d.id]
            post = [hydro[("post", s.spec.id, y)] for s in post_subs if s.spec.to == d.id]
            post += [outflow[(b.id, y)] for b in plan.bmps if b.to == d.id and outflow[(b.id, y)] is not None]
            hp = hydrograph_sum(*pre) if pre else None
            hq = hydrograph_sum(*post) if post else None
            drow["storms"][str(y)] = {
                "pre_peak_cfs": _r(hp.peak_cfs, 2) if hp else 0.0, "post_peak_cfs": _r(hq.peak_cfs, 2) if hq else 0.0,
                "pre_volume_cuft": round(hp.volume_cuft) if hp else 0, "post_volume_cuft": round(hq.volume_cuft) if hq else 0,
                "pre_peak_time_hr": _r(hp.peak_time_hr, 2) if hp else None,
                "post_peak_time_hr": _r(hq.peak_time_hr, 2) if hq else None}
        dp_rows.append(drow)

    # Project facts.
    p = plan.project
    post_imp = sum(s.impervious_sqft for s in post_subs)
    if p.post_impervious_sqft is not None and abs(p.post_impervious_sqft - post_imp) > 0.01 * max(post_imp, 1.0):
        notes.append(f"The plan states {p.post_impervious_sqft:,.0f} ft² of post-construction impervious area; its "
                     f"subcatchments hold {post_imp:,.0f} ft². The review uses the larger.")
        post_imp = max(post_imp, p.post_impervious_sqft)
    ptype = wq.project_type_determine(disturbance_acres=p.disturbance_acres,
                                      previously_developed_with_impervious=p.previously_developed_with_impervious,
                                      part_of_common_plan_disturbing_one_acre=p.part_of_common_plan)
    project = {"name": p.name, "location": p.location, "applicant": p.applicant, "preparer": p.preparer,
               "disturbance_acres": p.disturbance_acres,
               "previously_developed_with_impervious": p.previously_developed_with_impervious,
               "part_of_common_plan": p.part_of_common_plan, "post_impervious_sqft": round(post_imp),
               "project_type": ptype.value if ptype else None,
               "project_type_label": ptype.value.replace("_", " ").capitalize() if ptype else None}

    standards: list[dict] = []
    # -- applicability
    if ptype is None:
        standards.append(_row("applicability", "Project type", "Ch. 380 Definitions; § 380-3", NOT_APPLICABLE,
                              required="≥ 1 acre disturbed, or part of a common plan",
                              provided=f"{p.disturbance_acres:g} acres", reason=(
                                  "The project disturbs less than 1 acre and is not part of a larger common plan: "
                                  "the § 380-11 D/E performance standards do not apply (see § 380-11 B for LID).")))
    else:
        standards.append(_row("applicability", "Project type", "Ch. 380 Definitions (new development, redevelopment)",
                              INFO, required="", provided=ptype.value.replace("_", " ").capitalize(), reason=(
                                  f"{p.disturbance_acres:g} acres disturbed; the site "
                                  f"{'was' if p.previously_developed_with_impervious else 'was not'} previously "
                                  "developed with impervious surface.")))

    # -- peak rates per design point and storm
    for d in dp_rows:
        for y in years:
            st = d["storms"][str(y)]
            ok = st["post_peak_cfs"] <= st["pre_peak_cfs"]
            over = [b for b, ys in overtopped.items() if y in ys]
            reason = "" if ok else (f"post-development peak exceeds pre-development by "
                                    f"{st['post_peak_cfs'] - st['pre_peak_cfs']:.2f} cfs")
            if over:
                reason = (reason + "; " if reason else "") + f"{', '.join(over)} overtops its stage-storage table"
            standards.append(_row(
                f"peak_{d['id']}_{y}", f"Peak discharge, {y}-year 24-hour storm, {d['id']}",
                "§ 380-11 B(1) (MA Stormwater Standard 2), A(2) rainfall; § 380-12 A(3)(g)[5], [11]",
                PASS if ok and not over else FAIL,
                required=f"≤ {st['pre_peak_cfs']:.2f} cfs (pre-development)", provided=f"{st['post_peak_cfs']:.2f} cfs",
                reason=reason, numbers={**st, "rainfall_in": _r(depth[y], 3)}, provisional=rain_provisional,
                sources=[SRC_NEH630, "design storms: 0.9 × NOAA Atlas 14 upper bound (see Design storms)"]))
            standards.append(_row(
                f"volume_{d['id']}_{y}", f"Runoff volume, {y}-year 24-hour storm, {d['id']}",
                "§ 380-12 A(3)(g)[5], [11] (total runoff volumes, increase in volume)", INFO,
                required="reported", provided=f"{st['post_volume_cuft']:,} ft³ (pre {st['pre_volume_cuft']:,} ft³)",
                numbers={"pre_volume_cuft": st["pre_volume_cuft"], "post_volume_cuft": st["post_volume_cuft"]},
                sources=[SRC_TR55, SRC_NEH630]))

    # -- retention
    retention_provided = sum(r["retention_cuft"] for r in bmp_rows.values()
                             if r["drawdown_hr"] is not None and r["drawdown_hr"] <= wq.DRAWDOWN_LIMIT_HR)
    slow = [r["id"] for r in bmp_rows.values() if r["drawdown_hr"] is not None and r["drawdown_hr"] > wq.DRAWDOWN_LIMIT_HR]
    retention_ok = False
    if ptype is None:
        standards.append(_row("retention", "Retention volume", "§ 380-11 D(2)(b) / E(2)(b)", NOT_APPLICABLE,
                              reason="the performance standards do not apply (under 1 acre)"))
    else:
        std = wq.STANDARDS[ptype]
        required = wq.required_retention_volume_cuft(post_imp, ptype)
        retention_ok = retention_provided >= required
        prov = "D(2)(b)" if ptype == wq.ProjectType.NEW_DEVELOPMENT else "E(2)(b)"
        standards.append(_row(
            "retention", "Retention volume", f"§ 380-11 {prov}", PASS if retention_ok else FAIL,
            required=f"{required:,.0f} ft³ ({std.retention_depth_in:g} in × {post_imp:,.0f} ft² impervious)",
            provided=f"{retention_provided:,.0f} ft³",
            reason=("" if retention_ok else "less than the required volume; the standard can still be met by "
                    "treatment (D(2)(a)/E(2)(a)) -- see the TSS and TP rows") +
                   (f"; not counted (drains in more than 72 h): {', '.join(slow)}" if slow else ""),
            numbers={"required_cuft": round(required, 1), "provided_cuft": round(retention_provided),
                     "retention_depth_in": std.retention_depth_in, "impervious_sqft": round(post_imp),
                     "by_bmp": {r["id"]: r["retention_cuft"] for r in bmp_rows.values() if r["retention_cuft"]}},
            sources=[std.source]))

    # -- treatment trains: TSS, TP (targets) and TN (reported)
    def path_from(node: str) -> list[str]:
        out = []
        while node in bmps:
            out.append(node)
            node = bmps[node].to
        return out

    tables_used: dict[str, dict] = {}
    for r in bmp_rows.values():
        for pol, rem in r["removal"].items():
            if rem.get("status") == "ok":
                t = rem["table"]
                tables_used.setdefault(t, {"name": t, "provisional": rem["provisional"], "pollutants": set(),
                                           "bmps": set()})
                tables_used[t]["pollutants"].add(pol)
                tables_used[t]["bmps"].add(r["id"])

    for pol in wq.POLLUTANTS:
        trains, missing, provisional_used = [], [], False
        weighted = 0.0
        for s in post_subs:
            if s.impervious_sqft <= 0:
                continue
            chain = path_from(s.spec.to)
            rs = []
            for bid in chain:
                rem = bmp_rows[bid]["removal"][pol]
                if rem["status"] == "ok":
                    rs.append(rem["removal"])
                    provisional_used = provisional_used or rem["provisional"]
                else:
                    missing.append(f"{bid}: {rem['reason']}")
                    rs.append(0.0)
            train = wq.treatment_train_removal(rs) if rs else 0.0
            weighted += train * s.impervious_sqft
            trains.append({"subcatchment": s.spec.id, "impervious_sqft": round(s.impervious_sqft), "bmps": chain,
                           "removal_pct": round(100 * train, 1)})
        total_imp = sum(s.impervious_sqft for s in post_subs)
        site = 100.0 * weighted / total_imp if total_imp else 0.0
        missing = sorted(set(missing))
        numbers = {"site_removal_pct": round(site, 1), "trains": trains, "missing": missing}
        if pol == "TN":
            standards.append(_row(
                "removal_TN", "Total nitrogen removal (reported)", "§ 380-11 B(2); § 380-12 A(3)(g)[12]", INFO,
                required="optimized for nitrogen (no percentage set)",
                provided=f"{site:.1f} %" + (" (lower bound: some BMPs not assessable)" if missing else ""),
                reason="; ".join(missing), numbers=numbers, provisional=provisional_used,
                sources=sorted(t for t, u in tables_used.items() if pol in u["pollutants"])))
            continue
        if ptype is None:
            standards.append(_row(f"removal_{pol}", f"{pol} removal", "§ 380-11 D(1) / E(1)", NOT_APPLICABLE,
                                  reason="the performance standards do not apply (under 1 acre)", numbers=numbers))
            continue
        std = wq.STANDARDS[ptype]
        target = std.tss_removal_target_pct if pol == "TSS" else std.tp_removal_target_pct
        prov = "D(1), D(2)" if ptype == wq.ProjectType.NEW_DEVELOPMENT else "E(1), E(2)"
        numbers["target_pct"] = target
        if retention_ok:
            status, reason, provisional = PASS, "met by retention of the required volume (§ 380-11 D(2)(b)/E(2)(b))", False
        elif round(site, 1) >= target:
            status, provisional = PASS, provisional_used
            reason = "met by BMP treatment" + (" (counting not-assessable BMPs as 0 %)" if missing else "")
        elif missing:
            status, provisional = NOT_ASSESSABLE, provisional_used
            reason = (f"the assessable BMPs remove {site:.1f} % (< {target:g} %) and the rest cannot be assessed: "
                      + "; ".join(missing))
        else:
            status, provisional = FAIL, provisional_used
            reason = f"the treatment trains remove {site:.1f} % of the {pol} load of the impervious area"
        standards.append(_row(
            f"removal_{pol}", f"{'Total suspended solids' if pol == 'TSS' else 'Total phosphorus'} removal",
            f"§ 380-11 {prov}; A(4)", status, required=f"≥ {target:g} % (or retention of the required volume)",
            provided=("not assessable (no BMP has a curve)" if missing and not site else
                      f"{site:.1f} %" + (" (lower bound)" if missing else "")), reason=reason, numbers=numbers,
            provisional=provisional,
            sources=sorted(t for t, u in tables_used.items() if pol in u["pollutants"]) + [std.source]))

    # -- drawdown
    for r in bmp_rows.values():
        if r["drawdown_hr"] is None:
            continue
        ok = r["drawdown_hr"] <= wq.DRAWDOWN_LIMIT_HR
        standards.append(_row(
            f"drawdown_{r['id']}", f"Drawdown (time to empty), {r['id']}",
            "§ 380-12 A(3)(g)[8]; § 380-11 A(1), B(1) (MassDEP Handbook: 72 h)", PASS if ok else FAIL,
            required=f"≤ {wq.DRAWDOWN_LIMIT_HR:g} h", provided=f"{r['drawdown_hr']:.1f} h",
            reason="" if ok else "drains too slowly; its storage is not counted as retention",
            numbers={"retention_cuft": r["retention_cuft"], "infiltration_rate_in_hr": r["infiltration_rate_in_hr"],
                     "bottom_area_sqft": r["bottom_area_sqft"]},
            sources=["MassDEP Stormwater Handbook Vol. 3 ch. 1: TD = Rv / (K × bottom area), 72 h "
                     "(secondary source)"]))

    # -- recharge (MassDEP Standard 3 through § 380-11 B(1))
    imp_by_hsg: dict[str, float] = {}
    for s in post_subs:
        for h, a in s.impervious_by_hsg.items():
            imp_by_hsg[h] = imp_by_hsg.get(h, 0.0) + a
    recharge_provided = retention_provided
    if p.recharge_target_depth_in is not None:
        req = wq.recharge_volume_cuft(p.recharge_target_depth_in, post_imp)
        basis, rprov = f"F = {p.recharge_target_depth_in:g} in as stated in the plan × {post_imp:,.0f} ft²", False
        unknown = []
    else:
        unknown = sorted(h for h in imp_by_hsg if h not in RECHARGE_F_IN)
        req = sum(RECHARGE_F_IN[h] / 12.0 * a for h, a in imp_by_hsg.items() if h in RECHARGE_F_IN)
        basis = "; ".join(f"HSG {h}: {RECHARGE_F_IN[h]:g} in × {a:,.0f} ft²" for h, a in sorted(imp_by_hsg.items())
                          if h in RECHARGE_F_IN)
        rprov = True
    if unknown:
        standards.append(_row(
            "recharge", "Groundwater recharge", "§ 380-11 B(1) (MA Stormwater Standard 3); § 380-12 A(3)(g)[8]",
            NOT_ASSESSABLE, required="F × impervious area", provided=f"{recharge_provided:,.0f} ft³",
            reason=(f"no target depth factor F for HSG {', '.join(unknown)} (only B and D were retrieved; '?' = "
                    "impervious area with no HSG given); give project.recharge_target_depth_in"),
            numbers={"impervious_by_hsg_sqft": {h: round(a) for h, a in imp_by_hsg.items()}},
            sources=[RECHARGE_F_SOURCE]))
    else:
        ok = recharge_provided >= req
        standards.append(_row(
            "recharge", "Groundwater recharge", "§ 380-11 B(1) (MA Stormwater Standard 3); § 380-12 A(3)(g)[8]",
            PASS if ok else FAIL, required=f"{req:,.0f} ft³ ({basis})", provided=f"{recharge_provided:,.0f} ft³",
            reason="" if ok else "the infiltrated (retained) volume is less than the required recharge volume",
            numbers={"required_cuft": round(req, 1), "provided_cuft": round(recharge_provided)}, provisional=rprov,
            sources=[RECHARGE_F_SOURCE if rprov else "recharge target depth as stated in the plan"]))

    # -- emergency overflow § 380-11 B(8)
    for b in plan.bmps:
        if not b.stage_storage:
            continue
        has = any(o.emergency for o in b.outlets)
        over = overtopped[b.id]
        ok = has and not over
        big = max(years)
        fb = bmp_rows[b.id]["storms"].get(str(big), {}).get("freeboard_ft")
        standards.append(_row(
            f"overflow_{b.id}", f"Emergency overflow, {b.id}", "§ 380-11 B(8)", PASS if ok else FAIL,
            required=f"an emergency overflow; the {big}-year storm passes without overtopping",
            provided=("emergency overflow: " + ", ".join(o.name for o in b.outlets if o.emergency) if has
                      else "no outlet marked emergency") + (f"; freeboard {fb:.2f} ft" if fb is not None else ""),
            reason="" if ok else "; ".join(x for x in (
                "" if has else "no emergency overflow in the outlet structure",
                f"overtops in the {', '.join(map(str, over))}-year storm" if over else "") if x),
            sources=[SRC_NEH630]))

    decided = [s["status"] for s in standards]
    overall = FAIL if FAIL in decided else NOT_ASSESSABLE if NOT_ASSESSABLE in decided else PASS
    provisional = any(s["provisional"] for s in standards)
    sources = [*rain_sources, SRC_TR55, SRC_NEH630, "USDA NRCS NEH 630 ch. 10 (runoff equation on cumulative rainfall)"]
    used = [{"name": k, "provisional": v["provisional"], "pollutants": sorted(v["pollutants"]),
             "bmps": sorted(v["bmps"])} for k, v in tables_used.items()]
    return {"engine": ENGINE_VERSION, "project": project, "rainfall": {"storm_type": storm_type, "storms": storms,
            "dt_hr": dt}, "subcatchments": sub_rows, "bmps": [bmp_rows[b.id] for b in plan.bmps],
            "design_points": dp_rows, "standards": standards, "tables_used": used, "sources": sources,
            "notes": notes, "overall": overall, "overall_label": STATUS_LABELS[overall], "provisional": provisional,
            "counts": {k: decided.count(k) for k in (PASS, FAIL, NOT_ASSESSABLE, INFO, NOT_APPLICABLE)}}

