"""Reaches: the pipes and channels between the nodes of a plan -- their part of the plan file and their routing.

A plan's ``reaches:`` list (optional) names, for a link the plan already has (a post-development subcatchment or a
BMP and the node its ``to`` names), the pipe or channel the water takes; the node downstream receives the routed
hydrograph (Muskingum–Cunge with variable parameters, :mod:`stormwater.engineering.reach`; the method WinTR-20
uses for reaches, NRCS NEH 630 ch. 17). The fields are those of an EPA SWMM 5 conduit, so that an imported SWMM
model's conduits map onto them::

    reaches:
      - {name: C1, from: B1, to: DP1, length_ft: 400, slope: 0.01, roughness: 0.013, shape: circular, geom1_ft: 1.5}
      - {name: S1, from: P2, to: B1, length_ft: 600, slope: 0.005, roughness: 0.035, shape: trapezoidal,
         geom1_ft: 2, geom2_ft: 4, geom3: 3, geom4: 3}   # depth, bottom width, side slopes H:V

Pure Python (no Django).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from stormwater.engineering.hydrograph import Hydrograph
from stormwater.engineering.reach import SHAPES, ReachSection, muskingum_cunge_route

from .planread import PlanError, _Obj

SRC_REACH = ("Muskingum–Cunge with variable parameters (Cunge 1969; Ponce and Yevjevich 1978; Ponce, Engineering "
             "Hydrology (1989) ch. 9) on the Manning normal-depth rating; NRCS NEH 630 ch. 17 and WinTR-20 reach routing")


@dataclass(frozen=True)
class Reach:
    name: str
    from_node: str
    to: str
    length_ft: float
    slope: float
    roughness: float
    shape: str
    geom1_ft: float           # circular: diameter; trapezoidal: bank-full depth
    geom2_ft: float = 0.0     # trapezoidal: bottom width
    geom3: float = 0.0        # trapezoidal: left side slope (H:V)
    geom4: float = 0.0        # trapezoidal: right side slope (H:V; default the left)
    description: str = ""

    def section(self) -> ReachSection:
        return ReachSection(self.shape, self.geom1_ft, self.length_ft, self.slope, self.roughness,
                            self.geom2_ft, self.geom3, self.geom4)

    def size(self) -> str:
        if self.shape == "circular":
            return f"{self.geom1_ft * 12:g} in pipe"
        return (f"trapezoidal channel, bottom {self.geom2_ft:g} ft, sides {self.geom3:g}:1 and {self.geom4:g}:1, "
                f"{self.geom1_ft:g} ft deep")


def _reach(raw: Any, path: str) -> Reach:
    o = _Obj(raw, path, {"name", "from", "to", "length_ft", "slope", "roughness", "shape", "geom1_ft", "geom2_ft",
                         "geom3", "geom4", "description"})
    shape = o.str("shape", required=True).lower()
    if shape not in SHAPES:
        raise PlanError(f"{o.at('shape')}: must be circular (a pipe: geom1_ft the diameter) or trapezoidal (a channel: "
                        "geom1_ft the depth, geom2_ft the bottom width, geom3/geom4 the side slopes H:V)")
    g2, g3 = o.num("geom2_ft", lo=0) or 0.0, o.num("geom3", lo=0, hi=100) or 0.0
    g4 = o.num("geom4", lo=0, hi=100)
    if shape == "circular" and (g2 or g3 or g4):
        raise PlanError(f"{path}: a circular pipe takes geom1_ft (its diameter) only")
    if shape == "trapezoidal" and not g2 and not (g3 or g4):
        raise PlanError(f"{o.at('geom2_ft')}: a trapezoidal channel needs a bottom width or side slopes")
    return Reach(name=o.str("name", required=True), from_node=o.str("from", required=True), to=o.str("to", required=True),
                 length_ft=o.num("length_ft", required=True, positive=True, hi=50000),
                 slope=o.num("slope", required=True, positive=True, hi=1),
                 roughness=o.num("roughness", required=True, positive=True, hi=0.2), shape=shape,
                 geom1_ft=o.num("geom1_ft", required=True, positive=True, hi=100), geom2_ft=g2, geom3=g3,
                 geom4=g3 if g4 is None else g4, description=o.str("description"))


def reaches_from(raw: Any, post, bmps) -> tuple[Reach, ...]:
    """``reaches`` of the plan file, checked against its links: each from a post-development subcatchment or a BMP
    to the node that item's ``to`` names, at most one per item, and none where the BMP takes its tailwater from
    the basin downstream (the reach would be between them)."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise PlanError("reaches: a list of {name, from, to, length_ft, slope, roughness, shape, geom1_ft, ...}")
    out = tuple(_reach(x, f"reaches[{i}]") for i, x in enumerate(raw))
    items = {s.id: s for s in post} | {b.id: b for b in bmps}
    names, froms = set(), set()
    for i, r in enumerate(out):
        path = f"reaches[{i}]"
        if r.name in names:
            raise PlanError(f"{path}.name: {r.name!r} is used twice")
        names.add(r.name)
        item = items.get(r.from_node)
        if item is None:
            raise PlanError(f"{path}.from: {r.from_node!r} is neither a post-development subcatchment nor a BMP")
        if item.to != r.to:
            raise PlanError(f"{path}.to: {r.from_node} discharges to {item.to!r}, not {r.to!r} (a reach carries an "
                            "item's flow to the node its to names)")
        if r.from_node in froms:
            raise PlanError(f"{path}.from: {r.from_node} already has a reach")
        froms.add(r.from_node)
        if getattr(item, "tailwater_from", "") == "downstream":
            raise PlanError(f"{path}: {r.from_node} takes its tailwater from {r.to}, but this reach lies between "
                            "them; give its tailwater elevation instead")
    return out


class ReachRouting:
    """Routes each storm's flow through the plan's reaches and keeps the report's rows."""

    def __init__(self, reaches: tuple[Reach, ...]):
        self.by_from = {r.from_node: r for r in reaches}
        self.reaches = reaches
        self.storms: dict[tuple[str, int], dict] = {}

    def via(self, node: str) -> str:
        """" via reach C1" when the flow leaving ``node`` takes a reach, else ""."""
        r = self.by_from.get(node)
        return f" via reach {r.name}" if r else ""

    def carry(self, node: str, year: int, h: Hydrograph) -> Hydrograph:
        """The hydrograph leaving ``node`` as it reaches the node downstream (unchanged without a reach)."""
        r = self.by_from.get(node)
        if r is None:
            return h
        res = muskingum_cunge_route(h, r.section())
        dt_s = h.dt_hr * 3600.0

        def vol(f):
            return (sum(f) - (f[0] + f[-1]) / 2.0) * dt_s if f else 0.0

        out = res.outflow
        self.storms[(r.name, year)] = {
            "peak_in_cfs": round(h.peak_cfs, 2), "peak_in_time_hr": round(h.peak_time_hr, 2),
            "peak_out_cfs": round(out.peak_cfs, 2), "peak_out_time_hr": round(out.peak_time_hr, 2),
            "lag_hr": round(out.peak_time_hr - h.peak_time_hr, 2) if h.peak_cfs > 0 else None,
            "volume_in_cuft": round(vol(h.flows_cfs)), "volume_out_cuft": round(vol(out.flows_cfs)),
            "held_at_end_cuft": round(res.end_storage_cuft), "subreaches": res.subreaches, "substeps": res.substeps,
            "celerity_ft_s": round(res.celerity_ft_s, 3), "travel_time_hr": round(res.travel_time_hr, 3),
            "exceeds_capacity": res.exceeds_capacity}
        return out

    def rows(self, years) -> list[dict]:
        """One row per reach: its section and, per storm, the peaks in and out and the lag."""
        out = []
        for r in self.reaches:
            sec = r.section()
            storms = {str(y): self.storms[(r.name, y)] for y in years if (r.name, y) in self.storms}
            notes = [f"{y}-year storm: the inflow peak {st['peak_in_cfs']} cfs exceeds the pipe's capacity "
                     f"{sec.capacity_cfs:.2f} cfs (normal flow at 0.94 D): it surcharges, which this routing does not "
                     "model (its result is an estimate)" for y, st in storms.items() if st["exceeds_capacity"]]
            out.append({"name": r.name, "from": r.from_node, "to": r.to, "description": r.description,
                        "length_ft": r.length_ft, "slope": r.slope, "roughness": r.roughness, "shape": r.shape,
                        "geom1_ft": r.geom1_ft, "geom2_ft": r.geom2_ft, "geom3": r.geom3, "geom4": r.geom4,
                        "size": r.size(), "capacity_cfs": round(sec.capacity_cfs, 2), "storms": storms,
                        "notes": notes, "method": SRC_REACH})
        return out
