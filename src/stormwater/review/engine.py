"""The independent recomputation of a stormwater management plan and its compliance report.

One module because it is one computation: ``review_compute`` (some 500 of these lines) carries the plan from the
design storms through runoff, routing and each standard, every step reading what the earlier ones computed. Its
parts with a subject of their own already live beside it (``hydrology``, ``hydraulics``, ``quality``, ``network``,
``massdep_rows``, ``rows``); splitting further would cut that one function's steps apart.

Pure Python (no Django): :func:`review_compute` takes a parsed :class:`~.plan.Plan` and the BMP
performance tables in force and returns a JSON-ready report. Every number comes from
``stormwater.engineering`` (TR-55, NEH 630, modified Puls routing, the BMP tables), every row names
the provision it decides, and a standard that cannot be decided from what is loaded is
``not_assessable`` with the reason -- never a guessed number. The report carries its working
(TR-55 worksheets, stage-storage-discharge tables, routes, hydrographs, the network and every
assumption) so that a Town engineer can recheck any number from the report alone.

The rows are grouped as MassDEP's "Checklist for Stormwater Report" orders the ten Massachusetts
Stormwater Management Standards (review/massdep.py; Ch. 380 § 380-11 A(1), B(1) incorporate them),
followed by the Chapter 380 standards that go beyond them (§ 380-11 D/E retention and removal, B(2)
nitrogen, B(8) emergency overflow, § 380-12 volumes).

Interpretations (each shown on the report where it decides a result):

- Peak rates: post-development peak ≤ pre-development peak at every design point for the 2-, 10- and
  100-year 24-hour "NOAA plus" storms (Standard 2 compares the 2- and 10-year storms and evaluates the
  100-year; § 380-12 A(3)(g)[5], [11] require the three storms and Longmeadow holds the 100-year storm
  to the same comparison).
- Rainfall: a NOAA PFDS file's site must lie within the town's limit of the project (§ 380-11 A(2)(a):
  "NOAA Atlas 14 data for Longmeadow"); typed-in depths cannot be located.
- Water quality (Ch. 380): § 380-11 D(2)/E(2) -- the TSS and TP targets are met by retention of the
  required volume, or by BMP removal (impervious-area-weighted trains, 1 - Π(1 - rᵢ)); a BMP whose
  removal is not assessable counts as 0 %.
- The capacity fed to a performance curve is the capacity that does what the curve assumes: for an
  infiltration curve the storage below the BMP's lowest outlet (what infiltrates), otherwise the
  treatment storage below the lowest weir crest (issue 19).
- Water that stays in a BMP that does not infiltrate is held, not "infiltrated"; such a BMP starts
  full to its lowest outlet unless the plan says otherwise (issue 19).
- MassDEP Standard 4 TSS uses MassDEP's worksheet with the credit the applicant claims per BMP
  (``tss_removal_pct``) or a loaded TSS table; runoff from non-metal roofs only (``roof_runoff``) is
  treated as clean: no pretreatment before infiltration and no TSS train is required for it.
- Total nitrogen: § 380-11 B(2) asks that BMPs be optimized for nitrogen and sets no percentage; TN
  removal is reported, not judged.
"""
from __future__ import annotations

from stormwater.engineering import water_quality as wq
from stormwater.engineering.hydrograph import Hydrograph, hydrograph_sum, unit_hydrograph_time_step_hr
from stormwater.engineering.rainfall import (great_circle_distance_mi, noaa_plus_design_rainfall_in, pfds_merge,
                                             pfds_site_coordinates, read_pfds_csv)
from stormwater.engineering.runoff import potential_retention_in
from stormwater.rules.town import TownConfig

from . import massdep as md
from .coupling import TailwaterIteration
from .elevations import datum_of, stage_plot_series
from .hydraulics import (INFILTRATION, dead_storage_cuft, lowest_outlet_ft, outlet_rows, retention_cuft, route,
                         with_tailwater,
                         ssd_table, stage_storage, starting_stage)
from .hydrology import (RUNOFF_METHOD_LABELS, SITE_STORM_TYPE, HydrologyError, SubResult, storm_type_row,
                        subcatchment_compute)
from .massdep_rows import checklist_grouped, massdep_computed, statement_row
from .network import assumptions_of, network_of
from .plan import SQFT_PER_ACRE, Plan
from .quality import (CAPTURE_MIN_FRACTION, FAIL, INFO, NOT_APPLICABLE, NOT_ASSESSABLE, PASS,
                      RAPID_INFILTRATION_IN_HR, RECHARGE_F_SOURCE, recharge_required, removal, storage_capacity,
                      tss_credit)
from .reaches import ReachRouting
from .rows import STATUS_LABELS, _r, row as _row, worst  # noqa: F401  (worst: re-exported for callers)

ENGINE_VERSION = "review-3"  # issue 31: Type III always, overtopping routed, one storage per BMP


SRC_TR55 = "USDA NRCS TR-55, Urban Hydrology for Small Watersheds, 2nd ed. (1986), ch. 2-4"
SRC_NEH630 = "USDA NRCS NEH Part 630 ch. 16 (unit hydrograph, PRF 484) and ch. 17 (storage-indication routing)"
SRC_NOAA = "Ch. 380 § 380-11 A(2): 0.9 × NOAA Atlas 14 upper 90 % confidence bound ('NOAA plus')"
SRC_DIST = "NRCS 24-hour Type {t} distribution (WinTR-20 0.1-h ordinates)"
PLOT_STEP_HR = 0.1  # hydrographs kept for the plots: every 0.1 h (the tables carry the exact peaks)


class ReviewError(ValueError):
    """The plan cannot be computed (e.g. a value outside a method's range); message names the item."""


# --- rainfall ----------------------------------------------------------------------------------

def _design_storms(plan: Plan, town: TownConfig) -> tuple[list[dict], dict[int, float], list[str], list[str], bool,
                                                          dict, dict]:
    rf = plan.rainfall
    storms, depth, notes, provisional = [], {}, [], False
    pfds_meta: dict = {}
    p = plan.project
    if p.latitude is not None:
        ref_lat, ref_lon, ref_name = p.latitude, p.longitude, "the project (project.latitude/longitude)"
    else:
        ref_lat, ref_lon = town.rainfall_reference_latitude, town.rainfall_reference_longitude
        ref_name = f"{town.name} (town centre; the plan gives no coordinates)"
    limit = town.rainfall_max_distance_miles
    loc = _row("rainfall_location", "Rainfall data for the site", "§ 380-11 A(2)(a) (NOAA Atlas 14 data for Longmeadow)",
               NOT_ASSESSABLE, required=f"PFDS point within {limit:g} mi of {ref_name}",
               sources=["NOAA HDSC PFDS file header (Latitude, Longitude)", "haversine great-circle distance"])
    if rf.pfds_csv:
        try:
            parts = [read_pfds_csv(t) for t in rf.pfds_csv]
            data = pfds_merge(*parts) if len(parts) > 1 else parts[0]
            for y in rf.storms_years:
                upper = data.depth_in(duration="24-hr", ari_years=y, statistic="upper")
                d = noaa_plus_design_rainfall_in(upper)
                depth[y] = d
                storms.append({"ari_years": y, "upper_ci_in": upper, "design_in": _r(d, 3),
                               "working": f"0.9 × {upper:g} = {d:.3f} in",
                               "basis": "NOAA Atlas 14 PFDS file, 24-hr upper 90 % bound × 0.9"})
        except ValueError as e:
            raise ReviewError(f"rainfall.pfds_csv: {e}") from None
        site = ", ".join(x for x in (data.location, data.station, f"{data.latitude} {data.longitude}".strip()) if x)
        source = f"{SRC_NOAA}; PFDS file: {data.atlas}, {site}"
        coords = pfds_site_coordinates(data)
        pfds_meta = {"atlas": data.atlas, "location": data.location, "station": data.station,
                     "latitude": coords[0] if coords else None, "longitude": coords[1] if coords else None}
        if coords is None:
            loc.update(reason="the PFDS file's header gives no readable latitude and longitude", provided="unknown")
        else:
            dist = great_circle_distance_mi(ref_lat, ref_lon, *coords)
            ok = dist <= limit
            loc.update(status=PASS if ok else FAIL, status_label=STATUS_LABELS[PASS if ok else FAIL],
                       provided=f"{data.location or data.station or 'PFDS point'} ({coords[0]:g}, {coords[1]:g}), "
                                f"{dist:.1f} mi away",
                       reason="" if ok else (f"the rainfall file is for a point {dist:.1f} mi from {ref_name}; "
                                             "§ 380-11 A(2)(a) requires NOAA Atlas 14 data for Longmeadow: download the "
                                             "PFDS CSV for the site"),
                       numbers={"pfds_latitude": coords[0], "pfds_longitude": coords[1], "reference_latitude": ref_lat,
                                "reference_longitude": ref_lon, "distance_mi": round(dist, 1), "limit_mi": limit})
    elif rf.upper_ci_in:
        for y in rf.storms_years:
            d = noaa_plus_design_rainfall_in(rf.upper_ci_in[y])
            depth[y] = d
            storms.append({"ari_years": y, "upper_ci_in": rf.upper_ci_in[y], "design_in": _r(d, 3),
                           "working": f"0.9 × {rf.upper_ci_in[y]:g} = {d:.3f} in",
                           "basis": "upper 90 % bound as stated in the plan × 0.9"})
        source = f"{SRC_NOAA}; upper bounds as stated in the plan"
        notes.append("Rainfall: the NOAA upper bounds were typed into the plan, not read from a PFDS file; "
                     "check them against the PFDS download for the site.")
        loc.update(provided="typed-in upper bounds", reason="no PFDS file: the site of the numbers cannot be checked")
    else:
        for y in rf.storms_years:
            depth[y] = rf.design_in[y]
            storms.append({"ari_years": y, "upper_ci_in": None, "design_in": rf.design_in[y],
                           "working": "as stated", "basis": "design depth as stated in the plan (not checked against "
                                                            "NOAA Atlas 14)"})
        source = "design depths as stated in the plan -- not verified as 'NOAA plus' (§ 380-11 A(2))"
        notes.append("Rainfall: design depths were given directly; § 380-11 A(2) requires 0.9 × the NOAA Atlas 14 "
                     "upper bound, which this review could not verify. Upload the PFDS CSV to check it.")
        loc.update(provided="typed-in design depths", reason="no PFDS file: the site of the numbers cannot be checked")
        provisional = True
    if rf.source_note:
        source += f" ({rf.source_note})"
    for s in storms:
        s["storm_type"] = SITE_STORM_TYPE
    return storms, depth, [source, SRC_DIST.format(t=SITE_STORM_TYPE)], notes, provisional, loc, pfds_meta


# --- hydrographs for the plots -----------------------------------------------------------------

def _peak_at(q_cfs: float, t_hr) -> str:
    """A peak and its time; a hydrograph that never rises has no time of peak."""
    return f"{q_cfs:.2f} cfs at {t_hr} h" if q_cfs > 0 else f"{q_cfs:.2f} cfs (no runoff)"


def _downsample(flows: tuple[float, ...] | list[float], dt: float, n: int) -> list[float]:
    k = max(1, round(PLOT_STEP_HR / dt))
    return [round(flows[i], 3) if i < len(flows) else 0.0 for i in range(0, n, k)]


def _plot_series(series: dict[str, dict[str, tuple[float, ...]]], dt: float) -> dict:
    """Every node's series at the plot step, cut where all have fallen below 0.5 % of their peak."""
    end = 0
    for named in series.values():
        for f in named.values():
            if not f:
                continue
            peak = max(f)
            last = max((i for i, q in enumerate(f) if q > 0.005 * peak), default=0) if peak > 0 else 0
            end = max(end, last)
    end = min(end + int(round(1.0 / dt)) + 1, int(round(72.0 / dt)) + 1)
    k = max(1, round(PLOT_STEP_HR / dt))
    return {"step_hr": round(k * dt, 6), "nodes": {node: {name: _downsample(f, dt, end) for name, f in named.items()}
                                                    for node, named in series.items()}}


# --- the computation ---------------------------------------------------------------------------

def review_compute(plan: Plan, *, tables=(), town: TownConfig | None = None, swmm_compare=None) -> dict:
    """Recompute the plan, decide each standard the numbers can decide, and show the working.

    Parameters
    ----------
    plan : Plan
        From :func:`~stormwater.review.plan.plan_parse`.
    tables : sequence of PerformanceCurveTable
        Official BMP performance tables in force, in order of precedence; the provisional RBEROST
        TP/TN fits are always tried last.
    town : TownConfig, optional
        The town's configuration (the reference point and distance for the rainfall location check);
        Longmeadow's defaults when not given.
    swmm_compare : callable, optional
        ``(plan.swmm, results, depths_in, storm_type) -> dict`` (review/swmm.py ``compare``): when the
        plan carries the applicant's SWMM model, its re-run beside this review's numbers. Injected so
        that this module stays free of the solver.

    Returns
    -------
    dict
        JSON-ready report: ``project``, ``rainfall``, ``subcatchments``, ``bmps``, ``design_points``,
        ``standards`` (one row per decision), ``checklist`` (the rows in MassDEP's order), ``network``,
        ``hydrographs``, ``assumptions``, ``tables_used``, ``sources``, ``notes``, ``overall``,
        ``provisional``.
    """
    town = town or TownConfig()
    notes: list[str] = []
    storms, depth, rain_sources, rain_notes, rain_provisional, loc_row, pfds_meta = _design_storms(plan, town)
    notes.extend(rain_notes)
    years = list(plan.rainfall.storms_years)
    p2 = depth[2]
    storm_type = SITE_STORM_TYPE   # whatever the plan states: the rainfall_distribution row names a difference

    try:
        subs: list[SubResult] = [subcatchment_compute(s, f"{s.phase}[{i}]", p2)
                                 for phase in (plan.pre, plan.post) for i, s in enumerate(phase)]
    except HydrologyError as e:
        raise ReviewError(str(e)) from None
    for s in subs:
        notes.extend(s.notes)
    dt = min(unit_hydrograph_time_step_hr(t) for s in subs for t in (s.tc_hr, s.imp_tc_hr) if t is not None)
    series: dict[int, dict[str, dict[str, tuple[float, ...]]]] = {y: {} for y in years}

    # Hydrographs of every subcatchment and storm (one common step so they can be summed).
    hydro: dict[tuple[str, str, int], Hydrograph] = {}
    sub_rows = []
    for s in subs:
        row = {"phase": s.spec.phase, "id": s.spec.id, "description": s.spec.description, "to": s.spec.to,
               "area_acres": s.spec.area_acres, "cn": _r(s.cn, 1), "cn_method": s.cn_method,
               "cn_working": s.cn_working, "cover": s.cover_rows, "runoff_method": s.runoff_method,
               "runoff_method_label": RUNOFF_METHOD_LABELS[s.runoff_method], "roof_runoff": s.spec.roof_runoff,
               "impervious_sqft": round(s.impervious_sqft), "tc_hr": _r(s.tc_hr, 3),
               "tc_computed_hr": _r(s.tc_computed_hr, 4), "tc_raised": s.tc_computed_hr < s.tc_hr,
               "tc_segments": s.tc_segments, "storms": {}}
        if s.imp_tc_hr is not None:  # the impervious parts' own flow path (issue 31)
            row.update(impervious_tc_hr=_r(s.imp_tc_hr, 3), impervious_tc_computed_hr=_r(s.imp_tc_computed_hr, 4),
                       impervious_tc_segments=s.imp_tc_segments)
        for y in years:
            try:
                h = s.hydrograph(depth[y], storm_type, dt)
            except ValueError as e:
                raise ReviewError(f"{s.spec.phase} {s.spec.id}: {e}") from None
            hydro[(s.spec.phase, s.spec.id, y)] = h
            series[y][f"sub:{s.spec.phase}:{s.spec.id}"] = {"runoff": h.flows_cfs}
            q = s.runoff_in(depth[y])
            graphical, graphical_note = s.graphical_peak(depth[y], storm_type)
            parts = s.runoff_working(depth[y])
            row["storms"][str(y)] = {"rainfall_in": _r(depth[y], 3), "runoff_in": _r(q, 3), "parts": parts,
                                     "s_in": _r(potential_retention_in(s.cn), 3) if len(parts) == 1 else None,
                                     "volume_cuft": round(q / 12.0 * s.spec.area_acres * SQFT_PER_ACRE),
                                     "peak_cfs": _r(h.peak_cfs, 2), "peak_time_hr": _r(h.peak_time_hr, 2),
                                     "graphical_peak_cfs": _r(graphical, 2), "graphical_note": graphical_note}
        sub_rows.append(row)
    post_subs = [s for s in subs if s.spec.phase == "post"]
    reach_routing = ReachRouting(plan.reaches)
    for s in post_subs:   # a subcatchment's runoff through its reach, if it has one, to the node it drains to
        for y in years:
            hydro[("post", s.spec.id, y)] = reach_routing.carry(s.spec.id, y, hydro[("post", s.spec.id, y)])

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

    def path_from(node: str) -> list[str]:
        out = []
        while node in bmps:
            out.append(node)
            node = bmps[node].to
        return out

    direct_imp = {b.id: 0.0 for b in plan.bmps}
    for s in post_subs:
        if s.spec.to in direct_imp:
            direct_imp[s.spec.to] += s.impervious_sqft
    contrib_imp: dict[str, float] = {}
    for bid in order:
        contrib_imp[bid] = direct_imp[bid] + sum(contrib_imp[u] for u in upstream_of[bid])

    coupling = TailwaterIteration(plan.bmps, years)
    while True:   # one pass, or passes until a tailwater from the basin downstream agrees (review/coupling.py)
        stages_of: dict[tuple[str, int], tuple[float, ...]] = {}
        outflow: dict[tuple[str, int], Hydrograph | None] = {}
        bmp_rows: dict[str, dict] = {}
        overtopped: dict[str, list[int]] = {b.id: [] for b in plan.bmps}
        overtop_notes: dict[tuple[str, int], str] = {}
        for bid in order:
            b, tw_basis = with_tailwater(bmps[bid], bmps)
            retention = retention_cuft(b)
            cap, cap_basis = storage_capacity(b)
            imp = contrib_imp[bid]
            row = {"id": bid, "type": b.type, "description": b.description, "to": b.to,
                   "infiltration_rate_in_hr": b.infiltration_rate_in_hr, "bottom_area_sqft": b.bottom_area_sqft,
                   "contributing_impervious_sqft": round(imp), "retention_cuft": round(retention),
                   "storage_cuft": _r(cap, 0), "storage_basis": cap_basis,
                   "storage_depth_in": _r(cap / imp * 12.0, 4) if cap is not None and imp else None,
                   "tss_removal_pct": b.tss_removal_pct,
                   "routed": bool(b.stage_storage), "outlets": outlet_rows(b) if b.stage_storage else [],
                   "top_stage_ft": b.stage_storage[-1][0] if b.stage_storage else None,
                   "bottom_elevation_ft": b.bottom_elevation_ft,
                   "datum": datum_of(b.stage_storage[0][0] if b.stage_storage else None, b.bottom_elevation_ft),
                   "tailwater_ft": b.tailwater_ft, "tailwater_basis": tw_basis,
                   "storms": {}, "removal": {}}
            if b.stage_storage:
                h0, basis = starting_stage(b)
                row.update(starting_stage_ft=h0, starting_basis=basis,
                           starting_storage_cuft=round(stage_storage(b).storage_cuft(h0)),
                           dead_storage_cuft=round(dead_storage_cuft(b)), lowest_outlet_ft=lowest_outlet_ft(b),
                           ssd=ssd_table(b))
            for y in years:
                ins = [hydro[("post", s.spec.id, y)] for s in post_subs if s.spec.to == bid]
                ins += [outflow[(u, y)] for u in upstream_of[bid] if outflow[(u, y)] is not None]
                if not ins:
                    outflow[(bid, y)] = None
                    row["storms"][str(y)] = {"inflow_peak_cfs": 0.0, "outflow_peak_cfs": 0.0, "routes": []}
                    continue
                inflow = hydrograph_sum(*ins)
                st = {"inflow_peak_cfs": _r(inflow.peak_cfs, 2), "inflow_peak_time_hr": _r(inflow.peak_time_hr, 2),
                      "inflow_volume_cuft": round(inflow.volume_cuft)}
                if b.stage_storage:
                    try:
                        rst, out, per, stages_of[(bid, y)] = route(b, inflow, coupling.tailwater(bid, y))
                    except ValueError as e:
                        raise ReviewError(f"bmps {bid}, {y}-year storm: {e}") from None
                    if rst["overtops"]:
                        overtopped[bid].append(y)
                        overtop_notes[(bid, y)] = rst["note"]
                    st.update(rst)
                    outflow[(bid, y)] = reach_routing.carry(bid, y, out)
                    named = {"inflow": inflow.flows_cfs, "outflow": out.flows_cfs}
                    if INFILTRATION in per:
                        named["infiltration"] = per[INFILTRATION]
                    series[y][f"bmp:{bid}"] = named
                else:
                    st.update(outflow_peak_cfs=_r(inflow.peak_cfs, 2), outflow_peak_time_hr=_r(inflow.peak_time_hr, 2),
                              note="not routed (no stage-storage table): passes its inflow on", routes=[])
                    outflow[(bid, y)] = reach_routing.carry(bid, y, inflow)
                    series[y][f"bmp:{bid}"] = {"inflow": inflow.flows_cfs}
                row["storms"][str(y)] = st
            for pol in wq.POLLUTANTS:
                row["removal"][pol] = removal(b, pol, imp, tables)
            credit, credit_src = tss_credit(b, row["removal"]["TSS"], bmps)
            row["tss_credit"] = {"rate": _r(credit, 4), "source": credit_src}
            if b.infiltration_rate_in_hr and retention > 0:
                dd = wq.drawdown_time_hr(retention, b.infiltration_rate_in_hr, b.bottom_area_sqft)
                row["drawdown_hr"] = _r(dd, 1)
                row["drawdown_working"] = (f"{retention:,.0f} ft³ / ({b.infiltration_rate_in_hr:g}/12 ft/h × "
                                           f"{b.bottom_area_sqft:,.0f} ft²) = {dd:.1f} h")
            else:
                row["drawdown_hr"] = None
            bmp_rows[bid] = row
        if not coupling.next_pass(stages_of):
            break
    stages: dict[int, dict[str, tuple[float, ...]]] = {y: {} for y in years}   # routed BMPs' water levels [ft]
    for (bid, y), levels in stages_of.items():
        stages[y][bid] = levels

    # Design points: pre vs post.
    dp_rows = []
    for d in plan.design_points:
        drow = {"id": d.id, "description": d.description, "storms": {},
                "pre_from": [s.spec.id for s in subs if s.spec.phase == "pre" and s.spec.to == d.id],
                "post_from": [s.spec.id + reach_routing.via(s.spec.id) for s in post_subs if s.spec.to == d.id] +
                             [f"{b.id} outflow{reach_routing.via(b.id)}" for b in plan.bmps if b.to == d.id]}
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
            series[y][f"dp:{d.id}"] = {"pre": hp.flows_cfs if hp else (), "post": hq.flows_cfs if hq else ()}
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
               "disturbance_acres": p.disturbance_acres, "latitude": p.latitude, "longitude": p.longitude,
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
    standards.append(loc_row)
    standards.append(storm_type_row(plan.rainfall.storm_type))

    # -- peak rates per design point and storm
    for d in dp_rows:
        for y in years:
            st = d["storms"][str(y)]
            ok = st["post_peak_cfs"] <= st["pre_peak_cfs"]
            over = [b for b, ys in overtopped.items() if y in ys]
            reason = "" if ok else (f"post-development peak exceeds pre-development by "
                                    f"{st['post_peak_cfs'] - st['pre_peak_cfs']:.2f} cfs")
            if over:
                reason = (reason + "; " if reason else "") + "; ".join(f"{b} {overtop_notes[(b, y)]}" for b in over)
            standards.append(_row(
                f"peak_{d['id']}_{y}", f"Peak discharge, {y}-year 24-hour storm, {d['id']}",
                "§ 380-11 B(1) (MA Stormwater Standard 2), A(2) rainfall; § 380-12 A(3)(g)[5], [11]",
                PASS if ok and not over else FAIL,
                required=f"≤ {st['pre_peak_cfs']:.2f} cfs (pre-development)", provided=f"{st['post_peak_cfs']:.2f} cfs",
                reason=reason, numbers={**st, "rainfall_in": _r(depth[y], 3)}, provisional=rain_provisional,
                working=[f"pre: {' + '.join(d['pre_from']) or 'nothing'} = "
                         f"{_peak_at(st['pre_peak_cfs'], st['pre_peak_time_hr'])} ({depth[y]:.3f} in)",
                         f"post: {' + '.join(d['post_from']) or 'nothing'} = "
                         f"{_peak_at(st['post_peak_cfs'], st['post_peak_time_hr'])} (hydrographs added step by step)"],
                sources=[SRC_NEH630, "design storms: 0.9 × NOAA Atlas 14 upper bound (see Design storms)"]))
            standards.append(_row(
                f"volume_{d['id']}_{y}", f"Runoff volume, {y}-year 24-hour storm, {d['id']}",
                "§ 380-12 A(3)(g)[5], [11] (total runoff volumes, increase in volume)", INFO,
                required="reported", provided=f"{st['post_volume_cuft']:,} ft³ (pre {st['pre_volume_cuft']:,} ft³)",
                numbers={"pre_volume_cuft": st["pre_volume_cuft"], "post_volume_cuft": st["post_volume_cuft"]},
                sources=[SRC_TR55, SRC_NEH630]))

    # -- retention (Ch. 380 D(2)(b)/E(2)(b))
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
            working=[f"required = {std.retention_depth_in:g}/12 × {post_imp:,.0f} = {required:,.1f} ft³",
                     "provided = storage below the lowest outlet of each infiltrating BMP that drains in 72 h: " +
                     (" + ".join(f"{r['id']} {r['retention_cuft']:,}" for r in bmp_rows.values()
                                 if r["retention_cuft"] and r["id"] not in slow) or "none")],
            sources=[std.source]))

    # -- treatment trains: TSS, TP (targets) and TN (reported)
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
                           "removals_pct": [round(100 * x, 1) for x in rs], "removal_pct": round(100 * train, 1)})
        total_imp = sum(s.impervious_sqft for s in post_subs)
        site = 100.0 * weighted / total_imp if total_imp else 0.0
        missing = sorted(set(missing))
        numbers = {"site_removal_pct": round(site, 1), "trains": trains, "missing": missing}
        working = [f"{t['subcatchment']}: 1 − Π(1 − r) over {' → '.join(t['bmps']) or 'no BMP'} "
                   f"({', '.join(f'{x:g} %' for x in t['removals_pct']) or '—'}) = {t['removal_pct']:g} %"
                   for t in trains]
        if trains:
            working.append("site = Σ removal × impervious / Σ impervious = " +
                           " + ".join(f"{t['removal_pct']:g} % × {t['impervious_sqft']:,}" for t in trains) +
                           f" / {total_imp:,.0f} = {site:.1f} %")
        if pol == "TN":
            standards.append(_row(
                "removal_TN", "Total nitrogen removal (reported)", "§ 380-11 B(2); § 380-12 A(3)(g)[12]", INFO,
                required="optimized for nitrogen (no percentage set)",
                provided=f"{site:.1f} %" + (" (lower bound: some BMPs not assessable)" if missing else ""),
                reason="; ".join(missing), numbers=numbers, provisional=provisional_used, working=working,
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
            provisional=provisional, working=working,
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
            reason="" if ok else "drains too slowly; its storage is not counted as retention or recharge",
            numbers={"retention_cuft": r["retention_cuft"], "infiltration_rate_in_hr": r["infiltration_rate_in_hr"],
                     "bottom_area_sqft": r["bottom_area_sqft"]}, working=[r["drawdown_working"]],
            sources=["MassDEP Stormwater Handbook Vol. 3 ch. 1: TD = Rv / (K × bottom area), 72 h"]))

    # -- recharge (MassDEP Standard 3 through § 380-11 B(1))
    imp_by_hsg: dict[str, float] = {}
    for s in post_subs:
        for h, a in s.impervious_by_hsg.items():
            imp_by_hsg[h] = imp_by_hsg.get(h, 0.0) + a
    if p.post_impervious_sqft is not None and post_imp > sum(imp_by_hsg.values()) + 1e-6:
        imp_by_hsg["?"] = imp_by_hsg.get("?", 0.0) + post_imp - sum(imp_by_hsg.values())
    infiltrating = {b.id for b in plan.bmps if b.infiltration_rate_in_hr and b.stage_storage}
    captured = sum(s.impervious_sqft for s in post_subs if set(path_from(s.spec.to)) & infiltrating)
    recharge_provided = retention_provided
    rq = recharge_required(imp_by_hsg, post_imp, captured, p.recharge_target_depth_in)
    rec_sources = [RECHARGE_F_SOURCE if p.recharge_target_depth_in is None else "recharge target depth as stated in the plan"]
    rec_working = [rq["working"], rq["adjustment"],
                   "provided = storage below the lowest outlet of the infiltrating BMPs that drain in 72 h "
                   f"(static method) = {recharge_provided:,.0f} ft³"]
    rec_numbers = {**rq, "provided_cuft": round(recharge_provided)}
    if not infiltrating and post_imp > 0:
        standards.append(_row(
            "recharge", "Groundwater recharge", "§ 380-11 B(1) (MA Stormwater Standard 3); § 380-12 A(3)(g)[8]",
            FAIL, required=f"{rq['required_unadjusted_cuft']:,.0f} ft³ ({rq['working']})", provided="0 ft³",
            reason="no BMP infiltrates: the required recharge volume is not provided", numbers=rec_numbers,
            working=rec_working, sources=rec_sources))
    elif rq["unknown_hsg"]:
        standards.append(_row(
            "recharge", "Groundwater recharge", "§ 380-11 B(1) (MA Stormwater Standard 3); § 380-12 A(3)(g)[8]",
            NOT_ASSESSABLE, required="F × impervious area", provided=f"{recharge_provided:,.0f} ft³",
            reason=("impervious area with no hydrologic soil group ('?'): give each impervious part its HSG, or "
                    "project.recharge_target_depth_in"), numbers=rec_numbers, working=rec_working, sources=rec_sources))
    elif post_imp > 0 and rq["capture_fraction"] < CAPTURE_MIN_FRACTION:
        standards.append(_row(
            "recharge", "Groundwater recharge", "§ 380-11 B(1) (MA Stormwater Standard 3); § 380-12 A(3)(g)[8]",
            FAIL, required=f"at least 65 % of the impervious area to recharge BMPs; {rq['required_unadjusted_cuft']:,.0f} ft³",
            provided=f"{100 * rq['capture_fraction']:.1f} % captured; {recharge_provided:,.0f} ft³",
            reason=(f"only {100 * rq['capture_fraction']:.1f} % of the impervious area drains to recharge BMPs; MassDEP "
                    "allows the capture area adjustment only when at least 65 % does"),
            numbers=rec_numbers, working=rec_working, sources=rec_sources))
    else:
        ok = recharge_provided >= rq["required_cuft"]
        standards.append(_row(
            "recharge", "Groundwater recharge", "§ 380-11 B(1) (MA Stormwater Standard 3); § 380-12 A(3)(g)[8]",
            PASS if ok else FAIL, required=f"{rq['required_cuft']:,.0f} ft³", provided=f"{recharge_provided:,.0f} ft³",
            reason="" if ok else "the infiltrated (retained) volume is less than the required recharge volume",
            numbers=rec_numbers, working=rec_working, sources=rec_sources))

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
                *(f"{y}-year storm: {overtop_notes[(b.id, y)]}" for y in over)) if x),
            sources=[SRC_NEH630]))

    # -- MassDEP Standards 1 and 4 (computed)
    ma = plan.massdep
    rapid_bmps = [b.id for b in plan.bmps if b.infiltration_rate_in_hr and b.infiltration_rate_in_hr > RAPID_INFILTRATION_IN_HR]
    rapid = ma.rapid_infiltration if ma.rapid_infiltration is not None else bool(rapid_bmps)
    luhppl = ma.luhppl or ma.high_vehicle_trips
    standards.extend(massdep_computed(plan, post_subs, bmp_rows, path_from, contrib_imp, rapid, rapid_bmps, luhppl))

    # -- MassDEP statements
    cond = md.conditions(luhppl=luhppl, critical=ma.critical_area or ma.zone_ii_or_iwpa,
                         redevelopment=ptype == wq.ProjectType.REDEVELOPMENT, infiltration=bool(infiltrating),
                         high_vehicle_trips=ma.high_vehicle_trips)
    for item in md.ITEMS:
        if item.kind == "statement":
            standards.append(statement_row(item, ma.statement(item.key), cond[item.applies]))

    checklist = checklist_grouped(standards)
    decided = [s["status"] for s in standards]
    overall = FAIL if FAIL in decided else NOT_ASSESSABLE if NOT_ASSESSABLE in decided else PASS
    provisional = any(s["provisional"] for s in standards)
    sources = [*rain_sources, SRC_TR55, SRC_NEH630, "USDA NRCS NEH 630 ch. 10 (runoff equation on cumulative rainfall)",
               md.CHECKLIST_SOURCE]
    used = [{"name": k, "provisional": v["provisional"], "pollutants": sorted(v["pollutants"]),
             "bmps": sorted(v["bmps"])} for k, v in tables_used.items()]
    out = {"engine": ENGINE_VERSION, "project": project,
            "rainfall": {"storm_type": storm_type, "storm_type_stated": plan.rainfall.storm_type, "storms": storms, "dt_hr": dt, "pfds": pfds_meta},
            "subcatchments": sub_rows, "bmps": [bmp_rows[b.id] for b in plan.bmps],
            "design_points": dp_rows, "standards": standards, "checklist": checklist,
            "massdep_facts": {"critical_area": ma.critical_area, "zone_ii_or_iwpa": ma.zone_ii_or_iwpa,
                              "luhppl": ma.luhppl, "high_vehicle_trips": ma.high_vehicle_trips,
                              "rapid_infiltration": rapid, "rapid_infiltration_stated": ma.rapid_infiltration is not None},
            "network": network_of(plan), "assumptions": assumptions_of(plan, subs, bmp_rows, dt) + (
                [coupling.basis()] if coupling.pairs else []), "reaches": reach_routing.rows(years),
            "hydrographs": {str(y): _plot_series(series[y], dt) for y in years},
            "tables_used": used, "sources": sources,
            "notes": notes, "overall": overall, "overall_label": STATUS_LABELS[overall], "provisional": provisional,
            "counts": {k: decided.count(k) for k in (PASS, FAIL, NOT_ASSESSABLE, INFO, NOT_APPLICABLE)}}
    out["stages"] = {str(y): stage_plot_series(stages[y], dt, out["hydrographs"][str(y)]) for y in years}
    if plan.swmm:
        if swmm_compare is None:
            out["swmm"] = {"error": "the SWMM comparison was not run here (no solver)", "name": plan.swmm.get("name", "")}
        else:
            try:
                out["swmm"] = swmm_compare(plan.swmm, out, depth, storm_type)
            except ValueError as e:
                out["swmm"] = {"error": str(e), "name": plan.swmm.get("name", "")}
    return out
