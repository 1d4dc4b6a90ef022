"""Storage-indication routing against a tailwater that changes through the storm (the level of the basin downstream).

The modified Puls step (NEH 630 ch. 17; Chow, Maidment and Mays, *Applied Hydrology* (1988) § 8.2),
2 S₂/Δt + O(h₂, TW₂) = I₁ + I₂ + 2 S₁/Δt − O₁, with the outlets' flow depending on the stage and on the tailwater at
the end of the step. The storage-indication curve 2S/Δt + O is tabulated against stage for tailwater levels a fixed
step apart (``tw_step_ft``); a step whose tailwater lies between two of them is solved on both and the two results
are blended linearly by where the tailwater lies, which keeps continuity exact (both satisfy it).

A culvert's flow at each stage of a column is read from its rating computed the forward way (the governing
headwater of HDS-5 for a range of flows, inverted), which is the same relation
:meth:`~stormwater.engineering.culvert.Culvert.discharge_cfs` solves stage by stage, at a fraction of the cost.
"""
from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import replace
from typing import Sequence

from .culvert import Culvert
from .hydrograph import Hydrograph
from .routing import OVER_TOP, RoutingResult, StageStorage

CULVERT_RATING_POINTS = 200
_COLUMNS: dict[tuple, dict] = {}   # tabulated columns by (outlets, stage grid, Δt, step), kept across calls
_COLUMNS_MAX = 32


def _culvert_column(dev: Culvert, stages: list[float], q_top: float) -> list[float]:
    """The culvert's flow at each stage, inverted from its forward rating (HW as a function of Q, its running
    maximum where outlet control takes over) on flows 0 … q_top spaced finer at the low end."""
    qs = [q_top * (k / CULVERT_RATING_POINTS) ** 2 for k in range(CULVERT_RATING_POINTS + 1)]
    hw, run = [], -math.inf
    for q in qs:
        run = max(run, dev.headwater_ft(q)[0])
        hw.append(run)
    floor = dev.invert_ft if dev.tailwater_ft is None else max(dev.invert_ft, dev.tailwater_ft)
    out = []
    for h in stages:
        if h <= floor or h <= hw[0]:
            out.append(0.0)
        elif h >= hw[-1]:
            out.append(dev.discharge_cfs(h))
        else:
            i = bisect_right(hw, h) - 1
            while i > 0 and hw[i] == hw[i - 1]:
                i -= 1
            f = (h - hw[i]) / (hw[i + 1] - hw[i]) if hw[i + 1] > hw[i] else 0.0
            out.append(qs[i] + f * (qs[i + 1] - qs[i]))
    return out


class _Columns:
    """Per tailwater level: each outlet's flow, the total and 2S/Δt + O on the stage grid (built when first needed)."""

    def __init__(self, stages, storage, outlets: dict, dt_s: float, tw_step: float):
        self.stages, self.storage, self.outlets, self.dt_s, self.step = stages, storage, outlets, dt_s, tw_step
        self.names = list(outlets)
        self.q_top = {n: d.discharge_cfs(stages[-1]) for n, d in outlets.items() if isinstance(d, Culvert)}
        key = (tuple(outlets.items()), tuple(stages), dt_s, tw_step)
        if key not in _COLUMNS and len(_COLUMNS) >= _COLUMNS_MAX:
            _COLUMNS.pop(next(iter(_COLUMNS)))
        self.cache: dict[int, tuple[list[list[float]], list[float], list[float]]] = _COLUMNS.setdefault(key, {})

    def at(self, j: int):
        if j not in self.cache:
            tw = j * self.step
            cols = []
            for n in self.names:
                d = self.outlets[n]
                if hasattr(d, "tailwater_ft"):
                    d = replace(d, tailwater_ft=tw)
                if isinstance(d, Culvert):
                    cols.append(_culvert_column(d, self.stages, max(self.q_top[n], 1e-6) * 1.02))
                else:
                    cols.append([d.discharge_cfs(h) for h in self.stages])
            out = [sum(c[i] for c in cols) for i in range(len(self.stages))]
            si = [2.0 * s / self.dt_s + o for s, o in zip(self.storage, out)]
            for i in range(1, len(si)):   # a flat step of the rating must still rise: keep 2S/Δt + O increasing
                if si[i] <= si[i - 1]:
                    si[i] = si[i - 1] + 1e-12
            self.cache[j] = (cols, out, si)
        return self.cache[j]


def _solve(cols, out, si, stages, storage, rhs: float, inflow_cfs: float) -> tuple[float, float, list[float], float]:
    """(stage, storage, flows per outlet, over the top) on one column for the step's right-hand side."""
    if rhs > si[-1]:   # full: held at the top; what the outlets do not pass leaves over the top (outflow = inflow)
        return stages[-1], storage[-1], [c[-1] for c in cols], max(inflow_cfs - out[-1], 0.0)
    v = max(rhs, si[0])
    i = min(max(bisect_right(si, v) - 1, 0), len(si) - 2)
    f = (v - si[i]) / (si[i + 1] - si[i])
    return (stages[i] + f * (stages[i + 1] - stages[i]), storage[i] + f * (storage[i + 1] - storage[i]),
            [c[i] + f * (c[i + 1] - c[i]) for c in cols], 0.0)


def storage_indication_route_tailwater(inflow: Hydrograph, stage_storage: StageStorage, outlets: dict,
                                       tailwater_ft: Sequence[float], *, initial_stage_ft: float,
                                       tail_hr: float = 72.0, subdivisions: int = 50, extend_ft: float = 0.0,
                                       tw_step_ft: float = 0.05) -> RoutingResult:
    """Route ``inflow`` through a basin whose outlets discharge against ``tailwater_ft[k]`` at step k (the last
    value holds after the series ends).

    ``outlets``: named devices; those with a ``tailwater_ft`` field (orifice, weir, culvert) take the tailwater of
    each step. ``extend_ft``: the table continued this far above its top at the top's surface area (a basin with an
    emergency spillway); above that (or with 0) a full basin is held at its top and what its outlets do not pass
    leaves as the route ``OVER_TOP`` (outflow = inflow while full, as the fixed-tailwater routing's "spill").
    Returns the same :class:`RoutingResult` as the fixed-tailwater routing.
    """
    hs, ss = list(stage_storage.stages_ft), list(stage_storage.storages_cuft)
    top = hs[-1]
    if extend_ft > 0:
        area = (ss[-1] - ss[-2]) / (hs[-1] - hs[-2])
        s_top = ss[-1]
        for k in range(1, 9):   # in eight intervals, each tabulated as finely as the table's own
            hs.append(top + extend_ft * k / 8)
            ss.append(s_top + area * extend_ft * k / 8)
    table = StageStorage(tuple(hs), tuple(ss))
    stages: list[float] = []
    for h0, h1 in zip(hs, hs[1:]):
        stages.extend(h0 + (h1 - h0) * k / subdivisions for k in range(subdivisions))
    stages.append(hs[-1])
    storage = [table.storage_cuft(h) for h in stages]
    dt_s = inflow.dt_hr * 3600.0
    grid = _Columns(stages, storage, dict(outlets), dt_s, tw_step_ft)
    tws = list(tailwater_ft) or [0.0]

    def step(k: int, rhs: float | None, q_in: float = 0.0):
        tw = tws[k] if k < len(tws) else tws[-1]
        j = math.floor(tw / tw_step_ft)
        w = tw / tw_step_ft - j
        a = grid.at(j)
        if rhs is None:   # the starting state: the stage given, flows at the first tailwater
            ra = (initial_stage_ft, table.storage_cuft(initial_stage_ft),
                  [_interp(stages, c, initial_stage_ft) for c in a[0]], 0.0)
            rb = (ra[0], ra[1], [_interp(stages, c, initial_stage_ft) for c in grid.at(j + 1)[0]], 0.0)
        else:
            ra = _solve(*a, stages, storage, rhs, q_in)
            if w < 1e-12:
                return ra
            rb = _solve(*grid.at(j + 1), stages, storage, rhs, q_in)
        v = 1.0 - w
        return (v * ra[0] + w * rb[0], v * ra[1] + w * rb[1], [v * x + w * y for x, y in zip(ra[2], rb[2])],
                v * ra[3] + w * rb[3])

    h, s1, flows_now, over = step(0, None)
    names = list(outlets) + [OVER_TOP]
    per = [[q] for q in flows_now] + [[0.0]]
    o1 = sum(flows_now)
    res_h, res_s, res_o = [h], [s1], [o1]
    s_start, s_max = s1, s1
    flows = list(inflow.flows_cfs) + [0.0] * int(round(tail_hr / inflow.dt_hr))
    for k in range(1, len(flows)):
        rhs = flows[k - 1] + flows[k] + 2.0 * s1 / dt_s - o1
        h, s1, flows_now, spill = step(k, rhs, flows[k])
        o1 = sum(flows_now) + spill
        for col, q in zip(per, flows_now + [spill]):
            col.append(q)
        res_h.append(h)
        res_s.append(s1)
        res_o.append(o1)
        s_max = max(s_max, s1)
        if k >= len(inflow.flows_cfs) and s1 - s_start <= 1e-6 * s_max and o1 < 1e-9:
            break
    return RoutingResult(Hydrograph(inflow.dt_hr, tuple(res_o)), tuple(res_h), tuple(res_s),
                         {n: tuple(c) for n, c in zip(names, per)}, table_top_ft=top, stages_table_ft=tuple(hs))


def _interp(xs: list[float], ys: list[float], x: float) -> float:
    if x <= xs[0]:
        return ys[0]
    if x >= xs[-1]:
        return ys[-1]
    i = bisect_right(xs, x) - 1
    return ys[i] + (x - xs[i]) / (xs[i + 1] - xs[i]) * (ys[i + 1] - ys[i])
