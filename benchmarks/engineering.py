"""Benchmark: 10,000 subcatchment-storm computations by the engineering core vs a plain loop.

    .venv/bin/python benchmarks/engineering.py [--n 10000] [--seed 7]

Each computation is one subcatchment (area 0.5-50 acres, CN 55-98, Tc 0.1-2 h) under one Type III
24-hour storm (the three "NOAA plus" depths of the Mt Sunapee stand-in, 3.28 / 4.97 / 8.47 in):

- ``peak``: runoff depth (TR-55 Eq. 2-3) and graphical peak discharge (Eq. 4-1, Table F-1) through
  ``stormwater.engineering.peak.graphical_peak_discharge`` -- with its range checks and dataclass result;
- ``hydrograph``: the NRCS unit-hydrograph runoff hydrograph (step: the largest of 0.1 ... 0.005 h not over
  0.133 Tc) through
  ``stormwater.engineering.hydrograph.scs_unit_hydrograph_runoff``.

The baseline is the same arithmetic as a plain loop over lists (coefficients and ratios read once,
no validation, no objects), run in the same process on the same inputs; the results are checked to
agree before any timing is reported (exit 1 if not). The ratio engine / baseline is what to watch (the
machine's speed cancels out); no test asserts a time. ``--n 30`` is the smoke run of the test suite
(tests/benchmarks).
"""
from __future__ import annotations

import argparse
import math
import random
import time

from stormwater.engineering.hydrograph import _duh, scs_unit_hydrograph_runoff
from stormwater.engineering.peak import _f1, graphical_peak_discharge
from stormwater.engineering.rainfall import nrcs_24hr_cumulative_fraction

STORMS_IN = (3.276, 4.968, 8.469)
STEPS_HR = (0.1, 0.05, 0.025, 0.02, 0.01, 0.005)  # as the engine: the largest step <= 0.133 Tc


def cases(n: int, seed: int) -> list[tuple[float, float, float, float]]:
    rng = random.Random(seed)
    return [(round(rng.uniform(0.5, 50.0), 2), round(rng.uniform(55.0, 98.0), 1), round(rng.uniform(0.1, 2.0), 2),
             STORMS_IN[i % 3]) for i in range(n)]


# --- engine ------------------------------------------------------------------------------------

def engine_peaks(cs):
    return [graphical_peak_discharge(drainage_area_acres=a, curve_number=cn, tc_hr=tc, rainfall_in=p).peak_cfs
            for a, cn, tc, p in cs]


def engine_hydrographs(cs):
    return [scs_unit_hydrograph_runoff(drainage_area_acres=a, curve_number=cn, tc_hr=tc, rainfall_in=p).peak_cfs
            for a, cn, tc, p in cs]


# --- plain-loop baseline -----------------------------------------------------------------------

def baseline_peaks(cs):
    rows = _f1("III")
    xs = [r[0] for r in rows]
    out = []
    for a, cn, tc, p in cs:
        s = 1000.0 / cn - 10.0
        ia = 0.2 * s
        q = (p - ia) ** 2 / (p - ia + s) if p > ia else 0.0
        r = min(max(min(ia / p, 1.0), xs[0]), xs[-1])
        lt = math.log10(tc)
        i = 1
        while i < len(rows) - 1 and r > xs[i]:
            i += 1
        _, a0, a1, a2 = rows[i - 1]
        _, b0, b1, b2 = rows[i]
        q0 = 10.0 ** (a0 + a1 * lt + a2 * lt * lt)
        q1 = 10.0 ** (b0 + b1 * lt + b2 * lt * lt)
        qu = q0 + (q1 - q0) * (r - xs[i - 1]) / (xs[i] - xs[i - 1])
        out.append(qu * a / 640.0 * q)
    return out


def baseline_hydrographs(cs):
    ts, qs = _duh()
    fracs = {}
    out = []
    for a, cn, tc, p in cs:
        dt = next(d for d in STEPS_HR if d <= 0.133 * tc + 1e-12)
        n_steps = round(24.0 / dt)
        if dt not in fracs:
            fracs[dt] = [nrcs_24hr_cumulative_fraction(min(k * dt, 24.0), "III") for k in range(n_steps + 1)]
        frac = fracs[dt]
        s = 1000.0 / cn - 10.0
        ia = 0.2 * s
        cum = []
        for f in frac:
            pp = p * f
            cum.append((pp - ia) ** 2 / (pp - ia + s) if pp > ia else 0.0)
        excess = [cum[k + 1] - cum[k] for k in range(n_steps)]
        am = a / 640.0
        tp = dt / 2.0 + 0.6 * tc
        qp = 484.0 * am / tp
        m = int(ts[-1] * tp / dt) + 1
        uh = []
        j = 1
        for k in range(m + 1):
            x = min(k * dt / tp, ts[-1])
            while j < len(ts) - 1 and x > ts[j]:
                j += 1
            uh.append(qp * (qs[j - 1] + (qs[j] - qs[j - 1]) * (x - ts[j - 1]) / (ts[j] - ts[j - 1])))
        scale = am * 27878400.0 / 12.0 / (sum(uh) * dt * 3600.0)
        uh = [u * scale for u in uh]
        flows = [0.0] * (n_steps + len(uh))
        for i, e in enumerate(excess):
            if e > 0:
                for k, u in enumerate(uh):
                    flows[i + k + 1] += e * u
        out.append(max(flows))
    return out


def _time(fn, cs):
    t0 = time.perf_counter()
    res = fn(cs)
    return res, time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    cs = cases(args.n, args.seed)
    print(f"{args.n} subcatchment-storm computations (Type III, 24 h; area 0.5-50 ac, CN 55-98, Tc 0.1-2 h)")
    for name, engine, baseline, tol in (("peak (TR-55 graphical)", engine_peaks, baseline_peaks, 1e-9),
                                        ("hydrograph (NRCS unit hydrograph)", engine_hydrographs, baseline_hydrographs,
                                         1e-9)):
        e, te = _time(engine, cs)
        b, tb = _time(baseline, cs)
        worst = max(abs(x - y) / max(abs(y), 1e-12) for x, y in zip(e, b))
        if len(e) != args.n or len(b) != args.n or worst > tol:
            print(f"{name}: engine and baseline disagree (worst relative difference {worst:.2e})")
            print(f"correctness: FAILED — {name}: the engine's results differ from the plain loop's")
            return 1
        print(f"{name:34s} engine {te:7.3f} s ({args.n / te:9,.0f}/s)   baseline {tb:7.3f} s ({args.n / tb:9,.0f}/s)"
              f"   ratio {te / tb:5.2f}x   (results agree to {worst:.0e})")
    print(f"correctness: ok — the engine's peaks and hydrograph peaks of all {args.n:,} computations equal the plain "
          "loop's (relative difference at most 1e-9)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
