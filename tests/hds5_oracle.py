"""An independent FHWA HDS-5 (3rd ed., 2012) culvert calculation and storage-indication routing, written out
from the equations for the tests (issue 31): nothing of ``stormwater.engineering`` is used.

Circular barrel; inlet control HDS-5 Appendix A Eq. A.1 (form 1) and A.3 with a straight line between
Q/AD^0.5 = 3.5 and 4.0; outlet control ch. 3 full flow, H = [1 + ke + 29 n² L / R^1.33] V²/2g,
HW = max(TW, (dc + D)/2) + H − L S, counted from HW ≥ 0.75 D or where the tailwater sets h_o.
"""
from __future__ import annotations

import bisect
import math

G = 32.174


class CircularCulvertOracle:
    def __init__(self, *, d, length, inv, out_inv, n, ke, k, m, c, y, ks):
        self.d, self.length, self.inv, self.out_inv, self.n, self.ke = d, length, inv, out_inv, n, ke
        self.k, self.m, self.c, self.y, self.ks = k, m, c, y, ks
        self.s = (inv - out_inv) / length
        self.a = math.pi * d * d / 4.0

    def seg(self, y):
        r = self.d / 2.0
        th = 2.0 * math.acos((r - y) / r)
        return r * r * (th - math.sin(th)) / 2.0, 2.0 * r * math.sin(th / 2.0)

    def dc(self, q):
        if q <= 0:
            return 0.0
        lo, hi = 0.0, self.d * (1 - 1e-12)
        for _ in range(60):
            mid = (lo + hi) / 2.0
            a, t = self.seg(mid)
            if a ** 3 / t < q * q / G:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2.0

    def hw_unsub(self, q):  # HDS-5 Eq. A.1
        d = self.d
        dc = self.dc(q)
        hc = dc + (q / self.seg(dc)[0]) ** 2 / (2 * G) if q > 0 else 0.0
        return d * (hc / d + self.k * (q / (self.a * d ** 0.5)) ** self.m + self.ks * self.s)

    def hw_sub(self, q):  # HDS-5 Eq. A.3
        d = self.d
        return d * (self.c * (q / (self.a * d ** 0.5)) ** 2 + self.y + self.ks * self.s)

    def hw_inlet(self, q):
        ad = self.a * self.d ** 0.5
        x = q / ad
        if x <= 3.5:
            return self.hw_unsub(q)
        if x >= 4.0:
            return self.hw_sub(q)
        h1, h2 = self.hw_unsub(3.5 * ad), self.hw_sub(4.0 * ad)
        return h1 + (h2 - h1) * (x - 3.5) / 0.5

    def hw_outlet(self, q, tw):
        v = q / self.a
        h = (1 + self.ke + 29 * self.n ** 2 * self.length / (self.d / 4) ** 1.33) * v * v / (2 * G)
        ho = (self.dc(q) + self.d) / 2.0
        tw_sets = tw is not None and tw - self.out_inv >= ho
        if tw is not None:
            ho = max(ho, tw - self.out_inv)
        hw = ho + h - self.length * self.s
        return hw, (tw_sets or hw >= 0.75 * self.d)

    def hw(self, q, tw=None):
        """Governing headwater depth above the inlet invert and the control."""
        hi = self.hw_inlet(q)
        ho, applies = self.hw_outlet(q, tw)
        return (max(hi, ho) if applies else hi), ("outlet" if applies and ho > hi else "inlet")

    def q_at(self, stage, tw=None):
        if stage <= max(self.inv, tw if tw is not None else self.inv):
            return 0.0
        lo, hi = 0.0, 1.0
        while self.inv + self.hw(hi, tw)[0] < stage:
            hi *= 2
        for _ in range(60):
            mid = (lo + hi) / 2
            if self.inv + self.hw(mid, tw)[0] < stage:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2

    def forward_rating(self, tw, q_max, n=2000):
        """Discharge as a function of stage from HW(Q) on a grid of Q (the other way round from a solve)."""
        qs = [q_max * k / n for k in range(n + 1)]
        hs = [self.inv + self.hw(q, tw)[0] for q in qs]
        floor = max(self.inv, tw if tw is not None else self.inv)

        def q_of(h):
            if h <= floor or h <= hs[0]:
                return 0.0
            for i in range(1, len(hs)):
                if hs[i] >= h:
                    return qs[i - 1] + (qs[i] - qs[i - 1]) * (h - hs[i - 1]) / (hs[i] - hs[i - 1])
            raise AssertionError("stage above the rating")
        return q_of


def storage_indication(inflow, dt_hr, stages, storages, q_of, h0, *, per_interval=100, tail_steps=400):
    """Peak outflow [cfs] and peak stage [ft]: 2S/Δt + O on a fine stage grid, linear between."""
    dt = dt_hr * 3600
    grid, s_grid = [], []
    for (h_a, s_a), (h_b, s_b) in zip(zip(stages, storages), zip(stages[1:], storages[1:])):
        for k in range(per_interval):
            f = k / per_interval
            grid.append(h_a + (h_b - h_a) * f)
            s_grid.append(s_a + (s_b - s_a) * f)
    grid.append(stages[-1])
    s_grid.append(storages[-1])
    o_grid = [q_of(h) for h in grid]
    si = [2 * s / dt + o for s, o in zip(s_grid, o_grid)]

    def lookup(v, col):
        assert si[0] <= v <= si[-1], "outside the table"
        i = min(bisect.bisect_right(si, v), len(si) - 1) - 1
        f = (v - si[i]) / (si[i + 1] - si[i])
        return col[i] + (col[i + 1] - col[i]) * f

    i0 = max(i for i, h in enumerate(grid) if h <= h0)
    s1, o1 = s_grid[i0], o_grid[i0]
    peak_o, peak_h = o1, grid[i0]
    flows = list(inflow) + [0.0] * tail_steps
    for k in range(1, len(flows)):
        v = max(flows[k - 1] + flows[k] + 2 * s1 / dt - o1, si[0])
        h = lookup(v, grid)
        s1, o1 = lookup(v, s_grid), lookup(v, o_grid)
        peak_o, peak_h = max(peak_o, o1), max(peak_h, h)
    return peak_o, peak_h
