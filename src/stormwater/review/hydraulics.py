"""BMPs in the review: outlets, starting levels, the stage-storage-discharge table, routing, and where
the water goes (route by route).

Pure Python (no Django). A routed BMP is a basin with a stage-storage table and outlet devices
(orifices, weirs, and infiltration through its bottom at the design rate). What the review states for
each, as HydroCAD's pond reports do:

- **Starting level.** A BMP that infiltrates starts empty (its storage drains between storms). One
  that does not keeps the water below its lowest outlet for good -- a permanent pool or *dead storage*
  -- so it starts full to that outlet (HydroCAD's default starting elevation). A plan may state
  ``starting_stage_ft`` instead; the basis is shown either way.
- **Routes.** Every outlet's volume (trapezoid sums of the routed flows, which continuity used), the
  water infiltrated (the infiltration outlet's volume -- not a mass-balance residual), and the change
  in storage from start to end (water held in the BMP when routing stops). start + inflow = routes + end.

References
----------
NEH 630 ch. 17 (storage-indication routing); HydroCAD Technical Reference ("Starting elevation":
the lowest outlet unless stated; "Exfiltration"); MassDEP Handbook Vol. 3 ch. 1 (static method: the
storage below the lowest outlet is what infiltrates).
"""
from __future__ import annotations

from dataclasses import replace

from stormwater.engineering.culvert import Culvert, inlet_types
from stormwater.engineering.hydrograph import Hydrograph
from stormwater.engineering.routing import (BROAD_CRESTED_C, OVER_TOP, SHARP_CRESTED_C, Exfiltration, Orifice,
                                            RectangularWeir, StageStorage, storage_indication_route)
from stormwater.engineering.tailwater import storage_indication_route_tailwater

from .elevations import check_stages
from .plan import Bmp

INFILTRATION = "infiltration"  # the name of the infiltration outlet in every routed BMP
ORIFICE_C_DEFAULT = 0.6   # sharp-edged orifice
WEIR_C_DEFAULT = 3.33     # sharp-crested rectangular weir (TR-55 uses 3.2)
WEIR_C_BY_TYPE = {"": WEIR_C_DEFAULT, "sharp": SHARP_CRESTED_C, "broad": BROAD_CRESTED_C}
CULVERT_N_DEFAULT = {"concrete": 0.012, "corrugated metal": 0.024}   # typical culvert n (HDS-5; table not cited by number)
# entrance loss coefficients k_e for the inlets of Table A.1 shipped (HDS-5's entrance loss table; not cited by number)
CULVERT_KE_DEFAULT = {"concrete_square_edge_headwall": 0.5, "concrete_groove_end_headwall": 0.2,
                      "concrete_groove_end_projecting": 0.2, "cmp_headwall": 0.5, "cmp_mitered": 0.7,
                      "cmp_projecting": 0.9, "box_wingwall_30_75": 0.4, "box_wingwall_90_15": 0.5,
                      "box_headwall_chamfer_3_4in": 0.2}


def _r(x: float | None, nd: int) -> float | None:
    return None if x is None else round(x, nd)


def stage_storage(b: Bmp) -> StageStorage:
    return StageStorage(tuple(h for h, _ in b.stage_storage), tuple(s for _, s in b.stage_storage))


def outlet_devices(b: Bmp) -> dict[str, object]:
    """The BMP's outlet devices by unique name; infiltration (if any) is named ``infiltration``."""
    out: dict[str, object] = {}
    tw = b.tailwater_ft
    for o in b.outlets:
        if o.kind == "orifice":
            dev = Orifice(o.elevation_ft, o.diameter_in / 12.0, o.coefficient or ORIFICE_C_DEFAULT, tailwater_ft=tw)
        elif o.kind == "culvert":
            dev = culvert_device(o, tw)
        else:
            dev = RectangularWeir(o.elevation_ft, o.length_ft, o.coefficient or WEIR_C_BY_TYPE[o.weir_type],
                                  end_contractions=o.end_contractions, tailwater_ft=tw)
        name, k = o.name, 2
        while name in out or name == INFILTRATION:
            name, k = f"{o.name} ({k})", k + 1
        out[name] = dev
    if b.infiltration_rate_in_hr:
        out[INFILTRATION] = Exfiltration(b.stage_storage[0][0], b.infiltration_rate_in_hr, b.bottom_area_sqft)
    return out


def culvert_device(o, tailwater_ft: float | None) -> Culvert:
    """The HDS-5 culvert an outlet spec describes (defaults: typical n by material and k_e by inlet)."""
    t = inlet_types()[o.inlet]
    rise = o.diameter_in / 12.0 if t.shape == "circular" else o.rise_ft
    n = o.manning_n or CULVERT_N_DEFAULT["corrugated metal" if o.inlet.startswith("cmp_") else "concrete"]
    ke = o.entrance_loss if o.entrance_loss is not None else CULVERT_KE_DEFAULT[o.inlet]
    return Culvert(o.elevation_ft, o.outlet_invert_ft, o.length_ft, rise, inlet=o.inlet, span_ft=o.span_ft,
                   manning_n=n, entrance_loss=ke, tailwater_ft=tailwater_ft, barrels=o.barrels)


def _culvert_row(o, dev: Culvert) -> dict:
    t = dev.coefficients
    size = (f"{o.diameter_in:g} in" if t.shape == "circular" else f"{o.span_ft:g} × {o.rise_ft:g} ft box")
    size = (f"{o.barrels} × " if o.barrels > 1 else "") + size + (
        f", {o.length_ft:g} ft long, outlet invert {o.outlet_invert_ft:g} ft (S = {dev.slope:.4f}), n {dev.manning_n:g}")
    unsub = ("HW/D = Hc/D + K (Q/AD^0.5)^M + ks S" if t.form == 1 else "HW/D = K (Q/AD^0.5)^M")
    eq = (f"FHWA HDS-5 (2012): inlet control, App. A — unsubmerged (Q/AD^0.5 ≤ 3.5) {unsub} (Eq. A.{t.form}), "
          f"submerged (≥ 4.0) HW/D = c (Q/AD^0.5)² + Y + ks S (Eq. A.3), straight line between; Table A.1 "
          f"{t.description}: K {t.k:g}, M {t.m:g}, c {t.c:g}, Y {t.y:g}, ks {t.ks:g}. "
          f"Outlet control, ch. 3: H = (1 + ke + 29 n² L / R^1.33) V²/2g, ke {dev.entrance_loss:g}; "
          "HW = max(TW, (dc + D)/2) + H − L S (used from HW ≥ 0.75 D, or where the tailwater sets it). "
          "The higher headwater governs; Q solved at each stage")
    return {"size": size, "equation": eq, "coefficient": None, "coefficient_default": False,
            "manning_n_default": o.manning_n is None, "entrance_loss_default": o.entrance_loss is None}


def outlet_rows(b: Bmp) -> list[dict]:
    """Each outlet with its device, size, elevation, coefficient and where it discharges."""
    devs = outlet_devices(b)
    names = [n for n in devs if n != INFILTRATION]
    rows = []
    tw = b.tailwater_ft
    for name, o in zip(names, b.outlets):
        row = {"name": name, "kind": o.kind, "elevation_ft": o.elevation_ft, "diameter_in": o.diameter_in,
               "length_ft": o.length_ft, "emergency": o.emergency, "to": b.to,
               "coefficient": o.coefficient or (ORIFICE_C_DEFAULT if o.kind == "orifice" else WEIR_C_BY_TYPE[o.weir_type]),
               "coefficient_default": o.coefficient is None, "size": ""}
        if o.kind == "orifice":
            row["size"] = f"{o.diameter_in:g} in diameter"
            row["equation"] = "Q = C A (2 g (h − D/2))^0.5, full; partly full: wetted segment" + (
                "; tailwater above the centre: h = stage − TW" if tw is not None else "")
        elif o.kind == "culvert":
            row.update(_culvert_row(o, devs[name]))
            row["kind"] = "culvert"
        else:
            label = {"sharp": "sharp-crested", "broad": "broad-crested"}.get(o.weir_type, "")
            row["size"] = f"{o.length_ft:g} ft crest" + (f", {label}" if label else "") + (
                f", {o.end_contractions} end contraction{'s' if o.end_contractions > 1 else ''}" if o.end_contractions else "")
            row["equation"] = ("Q = C (L − 0.1 n H) H^1.5 (Francis)" if o.end_contractions else "Q = C L H^1.5") + (
                "; submerged: × (1 − (H₂/H)^1.5)^0.385 (Villemonte 1947)" if tw is not None else "")
        rows.append(row)
    if b.infiltration_rate_in_hr:
        rows.append({"name": INFILTRATION, "kind": "infiltration", "elevation_ft": b.stage_storage[0][0],
                     "rate_in_hr": b.infiltration_rate_in_hr, "area_sqft": b.bottom_area_sqft, "emergency": False,
                     "to": "ground", "coefficient": None, "coefficient_default": False,
                     "equation": "Q = K A / 43,200 while water stands on the bottom (K in/hr, A ft²)"})
    return rows


def lowest_outlet_ft(b: Bmp) -> float | None:
    """Elevation [ft] of the lowest surface outlet (orifice invert or weir crest), or None."""
    return min((o.elevation_ft for o in b.outlets), default=None)


def retention_cuft(b: Bmp) -> float:
    """Storage [ft³] of an infiltrating BMP below its lowest surface outlet: water that leaves only by
    infiltration (MassDEP's static method for recharge; the capacity an infiltration curve assumes)."""
    if not b.infiltration_rate_in_hr or not b.stage_storage:
        return 0.0
    ss = stage_storage(b)
    lowest = lowest_outlet_ft(b)
    return ss.storage_cuft(ss.stages_ft[-1] if lowest is None else lowest)


def dead_storage_cuft(b: Bmp) -> float:
    """Storage [ft³] below the lowest outlet of a BMP that does not infiltrate: it never leaves."""
    if b.infiltration_rate_in_hr or not b.stage_storage or not b.outlets:
        return 0.0
    return stage_storage(b).storage_cuft(lowest_outlet_ft(b))


def starting_stage(b: Bmp) -> tuple[float, str]:
    """The water level [ft] a storm starts at, and why."""
    bottom = b.stage_storage[0][0]
    if b.starting_stage_ft is not None:
        return b.starting_stage_ft, f"{b.starting_stage_ft:g} ft as stated in the plan"
    if b.infiltration_rate_in_hr:
        return bottom, (f"empty ({bottom:g} ft): the BMP infiltrates, so it drains between storms "
                        f"(drawdown is checked against 72 h)")
    low = lowest_outlet_ft(b)
    if low is None or low <= bottom:
        return bottom, f"empty ({bottom:g} ft): its lowest outlet is at the bottom"
    return low, (f"full to its lowest outlet ({low:g} ft): the BMP does not infiltrate, so the water below that "
                 "outlet stays between storms (permanent pool; HydroCAD's default starting elevation)")


def ssd_table(b: Bmp) -> dict:
    """The stage-storage-discharge table: every stage of the plan's table, every outlet's elevation and the
    check step between them (review/elevations.py: ≤ 0.1 ft, ≥ 20 rows), with the storage and each
    outlet's flow [cfs] there."""
    ss = stage_storage(b)
    devs = outlet_devices(b)
    elevs = {o.elevation_ft for o in b.outlets if ss.stages_ft[0] <= o.elevation_ft <= ss.stages_ft[-1]}
    stages = sorted({*ss.stages_ft, *elevs, *(h for h in check_stages(ss.stages_ft[0], ss.stages_ft[-1])
                                               if all(abs(h - x) > 1e-6 for x in (*ss.stages_ft, *elevs)))})
    rows = []
    for h in stages:
        flows = {n: round(d.discharge_cfs(h), 3) for n, d in devs.items()}
        rows.append({"stage_ft": round(h, 3), "storage_cuft": round(ss.storage_cuft(h)), "flows_cfs": flows,
                     "total_cfs": round(sum(flows.values()), 3),
                     "controls": {n: d.control_at(h) for n, d in devs.items() if isinstance(d, Culvert)},
                     "from_plan": h in ss.stages_ft, "outlet": h in elevs})
    return {"columns": list(devs), "rows": rows, "tailwater_ft": b.tailwater_ft}


def with_tailwater(b: Bmp, bmps: dict[str, Bmp]) -> tuple[Bmp, str]:
    """The BMP with its tailwater elevation resolved, and the basis stated on the report ("" = free outfall).

    ``tailwater_ft: downstream``: the level of the BMP it discharges to at every time step (review/coupling.py
    routes the two in turn until the levels agree); the tailwater returned is that BMP's starting level, where
    the storm begins (and the stage-storage-discharge table's column)."""
    if b.tailwater_from == "downstream":
        down = bmps[b.to]
        h, _ = starting_stage(down)
        return replace(b, tailwater_ft=h), (f"the water level of {down.id}, which it discharges to, at every time step "
                                            f"(from {h:g} ft, its starting level)")
    if b.tailwater_ft is not None:
        return b, f"{b.tailwater_ft:g} ft as stated in the plan, held for the whole storm"
    return b, ""


def _above_top_mode(b: Bmp) -> str:
    """How the water above the top of the table is routed: through the plan's emergency outlet (a spillway's
    weir equation holds above the top), else held at the top with the excess named "over the top"."""
    return "extend" if any(o.emergency for o in b.outlets) else "spill"


def route(b: Bmp, inflow: Hydrograph, tailwater: tuple[float, ...] | None = None
          ) -> tuple[dict, Hydrograph, dict[str, tuple[float, ...]], tuple[float, ...]]:
    """Route one storm's inflow through a BMP.

    Returns the storm's table row (peaks, peak stage, volumes by route, storage at start and end), the
    outflow that goes on downstream (surface outlets, and water over the top), the flows per outlet and
    the stages.

    A BMP whose water would rise above the top of its stage-storage table overtops (issue 31): with an
    outlet marked emergency (a spillway) the table is extended above its top at the top's surface area and
    the outlets route it (the peak stage is computed; a hydraulic result under that stated assumption);
    without one nothing describes the flow over the top, so the BMP is held full and the excess leaves
    "over the top" (outflow = inflow while full) -- reported as not a hydraulic result. Either way the row
    says when it overtops and that the peak stage exceeds the top; the review fails it.

    ``tailwater``: the tailwater elevation [ft] at each step (the downstream BMP's water level), routed by
    :func:`~stormwater.engineering.tailwater.storage_indication_route_tailwater` (above the top, with an emergency
    outlet, the table is continued 8 × its height at the top's area).
    """
    h0, _ = starting_stage(b)
    mode = _above_top_mode(b)
    if tailwater is not None:
        height = b.stage_storage[-1][0] - b.stage_storage[0][0]
        res = storage_indication_route_tailwater(inflow, stage_storage(b), outlet_devices(replace(b, tailwater_ft=None)),
                                                 tailwater, initial_stage_ft=h0,
                                                 extend_ft=8 * height if mode == "extend" else 0.0)
        if res.outlet_volumes_cuft.get(OVER_TOP, 0.0) > 0:
            mode = "spill"
    else:
        devs = outlet_devices(b)
        try:
            res = storage_indication_route(inflow, stage_storage(b), devs, initial_stage_ft=h0, above_top=mode)
        except ValueError as e:
            if "overtops" not in str(e):
                raise
            mode = "spill"   # even extended eightfold its outlets cannot pass the inflow
            res = storage_indication_route(inflow, stage_storage(b), devs, initial_stage_ft=h0, above_top=mode)
    surface = [n for n in res.outlet_flows_cfs if n != INFILTRATION]
    n = len(res.stages_ft)
    out = Hydrograph(inflow.dt_hr, tuple(sum(res.outlet_flows_cfs[k][i] for k in surface) for i in range(n)))
    vols = res.outlet_volumes_cuft
    routes = [{"name": k, "kind": "infiltration" if k == INFILTRATION else "overtopping" if k == OVER_TOP else "outlet",
               "to": "ground (infiltration)" if k == INFILTRATION else b.to,
               "volume_cuft": round(vols[k]), "peak_cfs": _r(max(res.outlet_flows_cfs[k]), 3)}
              for k in res.outlet_flows_cfs if k != OVER_TOP or vols[k] > 0]
    dt_s = inflow.dt_hr * 3600.0
    inflow_trap = (sum(inflow.flows_cfs) - (inflow.flows_cfs[0] + inflow.flows_cfs[-1]) / 2) * dt_s
    balance = res.start_storage_cuft + inflow_trap - sum(vols.values()) - res.end_storage_cuft
    ipk = res.stages_ft.index(res.peak_stage_ft)
    top = b.stage_storage[-1][0]
    t_over = res.first_above_top_hr
    st = {"overtops": t_over is not None, "outflow_hydraulic": True, "peak_stage_exceeds_top": t_over is not None,
          "top_stage_ft": top, "overtop_time_hr": _r(t_over, 2),
          "outflow_peak_cfs": _r(out.peak_cfs, 2), "outflow_peak_time_hr": _r(out.peak_time_hr, 2),
          "peak_stage_ft": _r(res.peak_stage_ft, 2), "peak_stage_time_hr": _r(ipk * inflow.dt_hr, 2),
          "peak_storage_cuft": round(res.peak_storage_cuft),
          "infiltrated_cuft": round(vols.get(INFILTRATION, 0.0)),
          "outflow_volume_cuft": round(sum(v for k, v in vols.items() if k != INFILTRATION)),
          "routes": routes, "start_storage_cuft": round(res.start_storage_cuft),
          "end_storage_cuft": round(res.end_storage_cuft),
          "held_cuft": round(res.end_storage_cuft - res.start_storage_cuft),
          "routed_until_hr": _r((n - 1) * inflow.dt_hr, 2), "balance_error_cuft": round(balance, 3),
          "freeboard_ft": _r(top - res.peak_stage_ft, 2)}
    if t_over is not None and mode == "spill":
        st.update(outflow_hydraulic=False, note=(
            f"overtops at {t_over:.2f} h: the water would rise above the top of its stage-storage table ({top:g} ft) "
            f"and no outlet describes the flow over the top, so the BMP is held full and {vols[OVER_TOP]:,.0f} ft³ "
            f"leaves over the top (outflow = inflow while full): the outflow is not a hydraulic result -- extend "
            "the table and give the emergency spillway"))
    elif t_over is not None:
        area = (b.stage_storage[-1][1] - b.stage_storage[-2][1]) / (top - b.stage_storage[-2][0])
        st.update(note=(
            f"overtops at {t_over:.2f} h: the peak stage, {res.peak_stage_ft:.2f} ft, is {res.peak_stage_ft - top:.2f} ft "
            f"above the top of its stage-storage table ({top:g} ft); above the top the basin is taken at its top "
            f"area ({area:,.0f} ft³ per ft) and the outlets route the water (the emergency spillway's equation "
            "holds there)"))
    return st, out, res.outlet_flows_cfs, res.stages_ft
