"""The drainage network (nodes and links for the diagram) and the assumptions stated on the report
(pure; no Django)."""
from __future__ import annotations

from .hydrology import SITE_STORM_TYPE, SubResult
from .plan import Plan

# --- network and assumptions -----------------------------------------------------------------------

def network_of(plan: Plan) -> dict:
    """Nodes and links of the drainage network, pre and post (the node diagram draws them)."""
    nodes, edges = [], []
    reach = {r.from_node: r.name for r in plan.reaches}   # post links through a pipe or channel (issue 31)
    for phase, subs in (("pre", plan.pre), ("post", plan.post)):
        for s in subs:
            nodes.append({"id": f"{phase}:{s.id}", "label": s.id, "kind": "subcatchment", "phase": phase,
                          "detail": f"{s.area_acres:g} ac"})
            target = s.to if any(d.id == s.to for d in plan.design_points) else s.to
            edges.append({"from": f"{phase}:{s.id}", "to": f"{phase}:{target}", "phase": phase,
                          **({"reach": reach[s.id]} if phase == "post" and s.id in reach else {})})
    for b in plan.bmps:
        nodes.append({"id": f"post:{b.id}", "label": b.id, "kind": "bmp", "phase": "post",
                      "detail": b.type.replace("_", " ")})
        edges.append({"from": f"post:{b.id}", "to": f"post:{b.to}", "phase": "post",
                      **({"reach": reach[b.id]} if b.id in reach else {})})
    for phase in ("pre", "post"):
        for d in plan.design_points:
            nodes.append({"id": f"{phase}:{d.id}", "label": d.id, "kind": "design_point", "phase": phase,
                          "detail": d.description})
    return {"nodes": nodes, "edges": edges}


def assumptions_of(plan: Plan, subs: list[SubResult], bmp_rows: dict, dt: float) -> list[str]:
    out = [
        f"Time step Δt = {dt:g} h for every hydrograph and every routing (the largest of 0.1, 0.05, 0.025, 0.02, "
        f"0.01, 0.005 h not over 0.133 × the shortest Tc, {min(s.tc_hr for s in subs):g} h; NEH 630 ch. 16).",
        f"Rainfall: NRCS Type {SITE_STORM_TYPE} 24-hour distribution (WinTR-20 0.1-h ordinates, linear "
        "between); the runoff equation (TR-55 Eq. 2-3, Ia = 0.2 S) applied to cumulative rainfall at each step.",
        "Unit hydrograph: NRCS curvilinear, peak rate factor 484, Tp = Δt/2 + 0.6 Tc, Table 16-1 shape rescaled to "
        "hold exactly 1 in; each step's excess responds from the start of its step.",
        "Tc is at least 0.1 h (TR-55 minimum); sheet flow at most 300 ft; sheet flow uses the 2-year design depth "
        "as P2 unless a segment states p2_in.",
        "Routing: modified Puls (storage-indication); stage-storage linear between the plan's points; 2S/Δt + O "
        "tabulated on 200 points per interval; free outfall unless a BMP states its tailwater (below: a fixed level, "
        "which a submerged orifice works against on the head difference, a submerged weir by Villemonte's relation and "
        "a culvert through outlet control, FHWA HDS-5); routing continues up to 72 h after the inflow ends.",
        "Infiltration: at the design rate over the bottom area only (no side walls), whenever water stands on the "
        "bottom; what infiltrates is that outlet's routed volume.",
        "A BMP whose water rises above the top of its stage-storage table overtops (and fails the peak and overflow "
        "rows): with an emergency outlet, the basin is taken above its top at the top's surface area and its "
        "outlets route the water (the peak stage is given); without one, it is held full and the excess leaves "
        "over the top (outflow = inflow while full), which is not a hydraulic result.",
        "BMP trains combine as 1 − Π(1 − rᵢ) (MassDEP worksheet chain).",
    ]
    for s in subs:
        if s.spec.runoff_method == "separate":
            out.append(f"{s.spec.phase} {s.spec.id}: pervious and impervious runoff computed separately "
                       "(HydroCAD Weighted-Q); the others use one area-weighted CN.")
    for bid, r in bmp_rows.items():
        if r.get("starting_basis"):
            out.append(f"{bid} starts at {r['starting_stage_ft']:g} ft ({r['starting_storage_cuft']:,} ft³): "
                       f"{r['starting_basis']}.")
        if r.get("tailwater_basis"):
            out.append(f"{bid} tailwater {r['tailwater_basis']}.")
        for o in r["outlets"]:
            if o.get("manning_n_default") or o.get("entrance_loss_default"):
                out.append(f"{bid} {o['name']}: Manning's n and/or the entrance loss k_e assumed (typical FHWA HDS-5 "
                           "values; the plan gives none).")
            if o.get("coefficient_default"):
                out.append(f"{bid} {o['name']}: coefficient {o['coefficient']:g} assumed (the plan gives none).")
    return out
