"""Reach routing: a pipe or channel between two nodes, by the Muskingum–Cunge method with variable parameters.

The flood wave moves down the reach at the kinematic celerity c = dQ/dA of the normal-depth (Manning) rating and
spreads by the hydraulic diffusivity D = Q / (2 T S); Cunge (1969) showed that the Muskingum scheme with

    K = Δx / c,    X = ½ (1 − Q / (T S c Δx))

reproduces that convection–diffusion wave to second order. "Variable parameters": c, T and so K and X are read
from the rating at every step and sub-reach, at the three-point average flow (I_j + I_j+1 + O_j) / 3.

References
----------
- J. A. Cunge, "On the subject of a flood propagation computation method (Muskingum method)", J. Hydraulic
  Research 7(2) (1969) 205-230: the Muskingum–Cunge parameters above.
- V. M. Ponce and V. Yevjevich, "Muskingum-Cunge method with variable parameters", J. Hydraulics Division ASCE
  104(HY12) (1978) 1663-1667; V. M. Ponce, *Engineering Hydrology: Principles and Practices* (Prentice Hall,
  1989), ch. 9 (Muskingum–Cunge: the routing coefficients C0, C1, C2 and the choice of Δx ≤ ½ (c Δt + Q/(T S c))).
- USDA NRCS National Engineering Handbook Part 630 ch. 17 "Flood Routing" (reach routing; the Muskingum–Cunge
  method is the one WinTR-20 uses for reaches).
- Manning's equation in US units, Q = (1.486 / n) A R^(2/3) S^(1/2) (e.g. TR-55 ch. 3, Eq. 3-4).

Pure Python; the section numbers of NEH 630 ch. 17 and the WinTR-20 documentation are not cited by number here
(not checked against the text).
"""
from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass

from ._tables import require_finite
from .hydrograph import Hydrograph

MANNING_K = 1.486          # US customary units
CIRCULAR_QMAX_DEPTH = 0.9382   # y/D of the largest normal-depth flow in a circular pipe
RATING_POINTS = 400
MAX_SUBREACHES = 100
MAX_SUBSTEPS = 200
SHAPES = ("circular", "trapezoidal")


@dataclass(frozen=True)
class ReachSection:
    """A prismatic reach: ``shape`` circular (``geom1_ft`` = diameter) or trapezoidal (``geom1_ft`` = bank-full
    depth, ``geom2_ft`` = bottom width, ``geom3``/``geom4`` = left/right side slopes H:V) -- the geometry fields of
    an EPA SWMM 5 conduit's cross-section -- with its length [ft], slope [ft/ft] and Manning's n."""

    shape: str
    geom1_ft: float
    length_ft: float
    slope: float
    roughness: float
    geom2_ft: float = 0.0
    geom3: float = 0.0
    geom4: float = 0.0

    def __post_init__(self) -> None:
        if self.shape not in SHAPES:
            raise ValueError(f"shape: one of {', '.join(SHAPES)}")
        for name in ("geom1_ft", "length_ft", "slope", "roughness", "geom2_ft", "geom3", "geom4"):
            require_finite(getattr(self, name), name)
        if self.geom1_ft <= 0 or self.length_ft <= 0 or self.slope <= 0 or self.roughness <= 0:
            raise ValueError("geom1_ft, length_ft, slope, roughness: must be greater than zero")
        if self.shape == "trapezoidal" and (self.geom2_ft < 0 or self.geom3 < 0 or self.geom4 < 0 or
                                            self.geom2_ft == 0 and self.geom3 + self.geom4 == 0):
            raise ValueError("a trapezoidal channel needs a bottom width or side slopes (none negative)")

    def wet(self, y: float) -> tuple[float, float, float]:
        """Flow area [ft²], wetted perimeter [ft] and top width [ft] at depth y [ft]."""
        if self.shape == "circular":
            d = self.geom1_ft
            th = 2.0 * math.acos(max(-1.0, min(1.0, 1.0 - 2.0 * y / d)))
            return d * d / 8.0 * (th - math.sin(th)), d * th / 2.0, d * math.sin(th / 2.0)
        b, z1, z2 = self.geom2_ft, self.geom3, self.geom4
        return (y * (b + (z1 + z2) * y / 2.0), b + y * (math.sqrt(1 + z1 * z1) + math.sqrt(1 + z2 * z2)),
                b + (z1 + z2) * y)

    def normal_flow_cfs(self, y: float) -> float:
        """Manning's equation at normal depth y: Q = 1.486/n A R^(2/3) S^(1/2)."""
        a, p, _ = self.wet(y)
        return MANNING_K / self.roughness * a * (a / p) ** (2.0 / 3.0) * math.sqrt(self.slope) if a > 0 else 0.0

    @property
    def capacity_cfs(self) -> float:
        """A pipe's largest normal-depth flow (at 0.938 D); a channel's bank-full flow (at geom1_ft)."""
        y = CIRCULAR_QMAX_DEPTH * self.geom1_ft if self.shape == "circular" else self.geom1_ft
        return self.normal_flow_cfs(y)


class Rating:
    """The normal-depth rating of a section tabulated against flow: Q → (celerity dQ/dA, top width T, depth)."""

    def __init__(self, sec: ReachSection, q_max: float):
        if sec.shape == "circular":
            y_top = CIRCULAR_QMAX_DEPTH * sec.geom1_ft
        else:   # a channel's banks are continued above bank-full until the rating covers q_max
            y_top = sec.geom1_ft
            while sec.normal_flow_cfs(y_top) < q_max:
                y_top *= 1.5
        ys = [y_top * (k / RATING_POINTS) ** 1.5 for k in range(1, RATING_POINTS + 1)]
        qs = [sec.normal_flow_cfs(y) for y in ys]
        wets = [sec.wet(y) for y in ys]
        cs = []
        for i in range(len(ys)):
            j, k = max(i - 1, 0), min(i + 1, len(ys) - 1)
            cs.append((qs[k] - qs[j]) / (wets[k][0] - wets[j][0]))
        self.qs, self.cs, self.ts, self.ys = qs, cs, [w[2] for w in wets], ys
        self.areas = [w[0] for w in wets]

    def area_celerity(self, q: float) -> tuple[float, float]:
        """(A [ft²], c [ft/s]) at normal flow q, one look-up (as :meth:`area` and :meth:`at`)."""
        qs, a, cs = self.qs, self.areas, self.cs
        if q <= qs[0]:
            return a[0] * max(q, 0.0) / qs[0], cs[0]
        if q >= qs[-1]:
            return a[-1] + (q - qs[-1]) / cs[-1], cs[-1]
        i = bisect_right(qs, q) - 1
        f = (q - qs[i]) / (qs[i + 1] - qs[i])
        return a[i] + f * (a[i + 1] - a[i]), cs[i] + f * (cs[i + 1] - cs[i])

    def area(self, q: float) -> float:
        """Flow area [ft²] at normal flow q (linear between the tabulated flows; beyond the top at the top's
        celerity, dA = dQ / c)."""
        qs, a = self.qs, self.areas
        if q <= qs[0]:
            return a[0] * max(q, 0.0) / qs[0]
        if q >= qs[-1]:
            return a[-1] + (q - qs[-1]) / self.cs[-1]
        i = bisect_right(qs, q) - 1
        return a[i] + (q - qs[i]) / (qs[i + 1] - qs[i]) * (a[i + 1] - a[i])

    def at(self, q: float) -> tuple[float, float, float]:
        """(c [ft/s], T [ft], y [ft]) at flow q, linear between the tabulated flows (held at the ends)."""
        qs = self.qs
        if q <= qs[0]:
            return self.cs[0], self.ts[0], self.ys[0]
        if q >= qs[-1]:
            return self.cs[-1], self.ts[-1], self.ys[-1]
        i = bisect_right(qs, q) - 1
        f = (q - qs[i]) / (qs[i + 1] - qs[i])
        return (self.cs[i] + f * (self.cs[i + 1] - self.cs[i]), self.ts[i] + f * (self.ts[i + 1] - self.ts[i]),
                self.ys[i] + f * (self.ys[i + 1] - self.ys[i]))


@dataclass(frozen=True)
class ReachResult:
    """The routed outflow and what the routing used: ``subreaches`` N (Δx = L/N), ``substeps`` m (Δt = dt/m),
    the reference celerity [ft/s] and travel time L/c [h], and whether the inflow exceeded the section's capacity."""

    outflow: Hydrograph
    subreaches: int
    substeps: int
    celerity_ft_s: float
    travel_time_hr: float
    capacity_cfs: float
    exceeds_capacity: bool
    end_storage_cuft: float = 0.0
    routing_step_hr: float = 0.0

    def lag_hr(self, inflow: Hydrograph) -> float:
        """Time of peak out − time of peak in [h]."""
        return self.outflow.peak_time_hr - inflow.peak_time_hr


def muskingum_cunge_route(inflow: Hydrograph, sec: ReachSection, *, tail_hr: float = 72.0,
                          coarsen: bool = True) -> ReachResult:
    """Route ``inflow`` through the reach (Muskingum–Cunge, variable parameters).

    Δx and Δt are fixed for the run from the reference flow Q_r = Q_min + ½ (Q_peak − Q_min) (Ponce 1989): Δx ≤
    ½ (c Δt + Q_r / (T S c)) (accuracy) or, where longer, c_max Δt (Courant number 1), then for a reach shorter than
    that Δt is split into m sub-steps so that the Courant number c Δt / Δx ≤ 1 at the fastest celerity reached
    (C2 ≥ 0: no oscillation). Inflow is linear between its ordinates; the outflow is
    returned at the inflow's step, routed on until the reach holds less than 0.05 % of the inflow volume (at most
    ``tail_hr`` after the inflow ends; ``end_storage_cuft`` is what it still holds).
    At each sub-step and sub-reach, with X (and c, T) at (I_j + I_j+1 + O_j)/3, the sub-reach stores
    S = Δx A(X I + (1 − X) O) (A the normal-flow area, so dS = K [X dI + (1 − X) dO] with K = Δx/c: the Muskingum
    storage) and continuity S_j+1 = S_j + Δt/2 (I_j + I_j+1 − O_j − O_j+1) gives O_j+1 (Newton; never below zero),
    S_j carried from the step before. For a linear rating this is exactly O_j+1 = C0 I_j+1 + C1 I_j + C2 O_j with
    C0 = (Δt − 2KX)/(2K(1−X) + Δt), C1 = (Δt + 2KX)/(2K(1−X) + Δt), C2 = (2K(1−X) − Δt)/(2K(1−X) + Δt) (Ponce
    1989); carrying S by continuity keeps the volume exact when the parameters vary -- the classic
    variable-parameter form loses or gains volume (Tang, Knight and Samuels, J. Hydraulic Engineering
    125(6) (1999) 610-620; Todini, Hydrol. Earth Syst. Sci. 11 (2007) 1645-1659, whose remedy this follows in
    spirit, not his MCT scheme).
    The routing step Δt may be a whole multiple of the inflow's (``coarsen``): at most a tenth of the
    inflow's final rise (half-rise to peak) and the fastest travel time through the reach (``routing_step_hr``).
    A pipe carrying more than its capacity is routed at the celerity of its fullest normal flow (it surcharges:
    ``exceeds_capacity``; the Muskingum–Cunge wave is then only an estimate).
    """
    flows = inflow.flows_cfs
    peak = max(flows, default=0.0)
    cap = sec.capacity_cfs
    if peak <= 0:
        return ReachResult(Hydrograph(inflow.dt_hr, tuple(0.0 for _ in flows)), 1, 1, 0.0, 0.0, cap, False)
    rating = Rating(sec, peak)
    # The routing step: the inflow's, or a whole multiple of it up to a tenth of the hydrograph's final rise (from
    # half the rise above the lowest flow to the peak) and no longer than the fastest travel time through the reach;
    # the inflow is carried to it and the outflow back by weights that keep the volume (hat-weighted means; linear
    # between ordinates).
    ipk = flows.index(peak)
    i0 = ipk
    low = min(flows)
    while i0 > 0 and flows[i0 - 1] >= low + 0.5 * (peak - low):
        i0 -= 1
    c_fast = max(c for q, c in zip(rating.qs, rating.cs) if q <= peak) if peak > rating.qs[0] else rating.cs[0]
    span_hr = min((ipk - i0) * inflow.dt_hr / 10.0, sec.length_ft / c_fast / 3600.0)
    kf = max(1, int(span_hr / inflow.dt_hr)) if coarsen else 1
    if kf == 1:
        return _route(flows, inflow.dt_hr, sec, rating, tail_hr)
    n_co = (len(flows) - 1) // kf + 2
    co = [sum((kf - abs(j)) / (kf * kf) * (flows[i] if 0 <= (i := max(k * kf + j, 0)) < len(flows) else 0.0)
              for j in range(1 - kf, kf)) for k in range(n_co)]
    r = _route(co, inflow.dt_hr * kf, sec, rating, tail_hr)
    o = r.outflow.flows_cfs
    fine = tuple(o[f // kf] + (o[f // kf + 1] - o[f // kf]) * (f % kf) / kf if f // kf + 1 < len(o) else o[-1]
                 for f in range((len(o) - 1) * kf + 1))
    return ReachResult(Hydrograph(inflow.dt_hr, fine), r.subreaches, r.substeps, r.celerity_ft_s,
                       r.travel_time_hr, r.capacity_cfs, r.exceeds_capacity, r.end_storage_cuft, inflow.dt_hr * kf)


def _route(flows, dt_hr: float, sec: ReachSection, rating: Rating, tail_hr: float) -> ReachResult:
    dt_s = dt_hr * 3600.0
    peak, low = max(flows), min(flows)
    cap = sec.capacity_cfs
    s, length = sec.slope, sec.length_ft
    q_ref = low + 0.5 * (peak - low)
    c_ref, t_ref, _ = rating.at(q_ref)
    c_max = max(c for q, c in zip(rating.qs, rating.cs) if q <= max(peak, rating.qs[0])) if peak > rating.qs[0] \
        else rating.cs[0]
    c_max = max(c_max, rating.at(peak)[0])
    # Δx: Ponce's ½ (c Δt + Q/(T S c)), or c_max Δt where that is longer (Courant number ≤ 1 without sub-steps)
    dx_max = max(0.5 * (c_ref * dt_s + q_ref / (t_ref * s * c_ref)), c_max * dt_s)
    n = min(MAX_SUBREACHES, max(1, int(length / dx_max)))
    dx = length / n
    m = min(MAX_SUBSTEPS, max(1, math.ceil(c_max * dt_s / dx)))
    h = dt_s / m
    floor, steady = 1e-6 * peak, 1e-6 * peak
    tail = int(math.ceil(tail_hr / dt_hr))
    ext = list(flows) + [0.0] * tail
    state = [flows[0]] * (n + 1)      # flow at each node (0 = inflow end) at the current sub-step
    store = [0.0] + [dx * rating.area(flows[0])] * n   # storage of each sub-reach [ft³]: steady at the first flow
    vol_in = (sum(flows) - (flows[0] + flows[-1]) / 2.0) * dt_s
    fine = [flows[0]]   # the outflow at every sub-step
    for k in range(1, len(ext)):
        a, b = ext[k - 1], ext[k]
        for j in range(1, m + 1):
            prev = state[:]
            state[0] = a + (b - a) * j / m
            for i in range(1, n + 1):
                i_j, i_j1, o_j = prev[i - 1], state[i - 1], prev[i]
                if abs(i_j1 - o_j) <= steady and abs(i_j - o_j) <= steady:   # steady: passes on (by continuity)
                    store[i] += h / 2.0 * (i_j - o_j)
                    state[i] = i_j1
                    continue
                q = max((i_j + i_j1 + o_j) / 3.0, floor)
                c, t, _ = rating.at(q)
                x = min(0.5, max(0.0, 0.5 * (1.0 - q / (t * s * c * dx))))
                pred = store[i] + h / 2.0 * (i_j + i_j1 - o_j)
                o = o_j
                for _ in range(2):   # Newton on Δx A(X I + (1 − X) O) + Δt/2 O = pred
                    qw = x * i_j1 + (1.0 - x) * o
                    aw, cw = rating.area_celerity(qw)
                    f = dx * aw + h / 2.0 * o - pred
                    if abs(f) <= 1e-8 * (pred + 1.0):
                        break
                    o -= f / (dx * (1.0 - x) / cw + h / 2.0)
                    o = max(o, 0.0)
                state[i] = o
                store[i] = pred - h / 2.0 * o
            fine.append(state[-1])
        if k >= len(flows) and sum(store) <= 5e-4 * vol_in:
            break
    # Back to the inflow's step: each ordinate the hat-weighted mean of the sub-step outflows around it (weights
    # (m − |j|)/m², which add up to one across ordinates), so the volume at the inflow's step is the sub-steps'.
    last = len(fine) - 1
    out = [sum((m - abs(j)) / (m * m) * fine[min(max(k * m + j, 0), last)] for j in range(1 - m, m))
           for k in range(last // m + 1)]
    return ReachResult(Hydrograph(dt_hr, tuple(out)), n, m, c_ref, length / c_ref / 3600.0, cap,
                       peak > cap * (1 + 1e-9) if sec.shape == "circular" else False, sum(store), dt_hr)
