"""Issue 31: reach routing (Muskingum–Cunge, variable parameters) against independent calculations written here.

- A small wave on a steady flow in a long prismatic rectangular channel obeys the linear convection–diffusion
  equation with the kinematic celerity c = dQ/dA and the hydraulic diffusivity D = Q/(2 B S) of that flow; its
  response at distance L to an inflow is the inflow convolved with Hayami's kernel
  h(t) = L / sqrt(4 π D t³) exp(−(L − c t)² / (4 D t)) (S. Hayami, "On the propagation of flood waves", Disaster
  Prevention Research Institute Bulletin 1, Kyoto University, 1951). Peak attenuation and lag are checked against it.
- Volume: what leaves plus what the reach still holds is what came in (to 0.1 %).
"""
from __future__ import annotations

import math

import pytest

from stormwater.engineering.hydrograph import Hydrograph
from stormwater.engineering.reach import ReachSection, muskingum_cunge_route

B, S, N_MANNING, L = 20.0, 0.001, 0.03, 60000.0
Q0, AMP = 100.0, 4.0


def _manning_rect(y: float) -> float:
    a, p = B * y, B + 2 * y
    return 1.486 / N_MANNING * a * (a / p) ** (2 / 3) * math.sqrt(S)


def _normal_depth(q: float) -> float:
    lo, hi = 1e-6, 50.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _manning_rect(mid) < q else (lo, mid)
    return (lo + hi) / 2


def _pulse(dt_hr: float, n: int) -> list[float]:
    return [Q0 + AMP * math.exp(-((k * dt_hr - 4.0) / 1.0) ** 2) for k in range(n)]


def test_a_small_wave_on_a_long_channel_matches_the_linear_diffusion_wave_of_its_celerity():
    dt = 0.1
    inflow = _pulse(dt, 160)
    res = muskingum_cunge_route(Hydrograph(dt, tuple(inflow)),
                                ReachSection("trapezoidal", 10.0, L, S, N_MANNING, geom2_ft=B), tail_hr=0)
    # independent: c = dQ/dA = (dQ/dy)/B at the steady depth; D = Q/(2 B S)
    y0 = _normal_depth(Q0)
    c = (_manning_rect(y0 + 1e-4) - _manning_rect(y0 - 1e-4)) / (2e-4 * B)
    d = Q0 / (2 * B * S)
    dts = dt * 3600

    def kernel(t_s: float) -> float:
        return L / math.sqrt(4 * math.pi * d * t_s ** 3) * math.exp(-(L - c * t_s) ** 2 / (4 * d * t_s)) if t_s > 0 else 0.0

    fine = 20   # the convolution on a finer step, the inflow perturbation linear between ordinates
    h = dts / fine
    u = [(inflow[min(k // fine, len(inflow) - 1)] * (1 - (k % fine) / fine) +
          inflow[min(k // fine + 1, len(inflow) - 1)] * (k % fine) / fine) - Q0 for k in range(len(inflow) * fine)]
    ker = [kernel(k * h) * h for k in range(len(u))]
    resp = [sum(u[j] * ker[i - j] for j in range(max(0, i - 4000), i + 1)) for i in range(0, len(u), fine)]
    peak_exact = max(resp)
    lag_exact = resp.index(peak_exact) * dt - 4.0
    out = res.outflow.flows_cfs
    peak_mc = max(out[:len(resp)]) - Q0
    lag_mc = out.index(max(out[:len(resp)])) * dt - 4.0
    assert lag_exact == pytest.approx(L / c / 3600, abs=0.15)          # translation at the kinematic celerity
    assert peak_exact < 0.9 * AMP                                     # and attenuation to check
    assert peak_mc == pytest.approx(peak_exact, rel=0.03)
    assert lag_mc == pytest.approx(lag_exact, abs=dt + 1e-9)
    assert res.celerity_ft_s == pytest.approx(c, rel=0.01)


@pytest.mark.parametrize("sec", [
    ReachSection("circular", 3.0, 4000.0, 0.01, 0.013),
    ReachSection("circular", 2.0, 300.0, 0.005, 0.013),
    ReachSection("trapezoidal", 3.0, 2500.0, 0.004, 0.035, geom2_ft=4.0, geom3=3.0, geom4=2.0),
])
def test_volume_is_conserved_to_a_tenth_of_a_percent(sec):
    dt = 0.05
    flows = [min(0.9 * sec.capacity_cfs, 40.0) * math.exp(-((k * dt - 3) / 0.5) ** 2) for k in range(160)]
    res = muskingum_cunge_route(Hydrograph(dt, tuple(flows)), sec)

    def vol(f):
        return (sum(f) - (f[0] + f[-1]) / 2) * dt * 3600

    assert vol(res.outflow.flows_cfs) + res.end_storage_cuft == pytest.approx(vol(flows), rel=1e-6)
    assert vol(res.outflow.flows_cfs) == pytest.approx(vol(flows), rel=1e-3)
    assert res.outflow.peak_cfs <= max(flows) * (1 + 1e-9)
    assert res.outflow.peak_time_hr >= Hydrograph(dt, tuple(flows)).peak_time_hr


def test_a_pipe_over_its_capacity_is_flagged():
    sec = ReachSection("circular", 1.0, 200.0, 0.005, 0.013)
    flows = [0.0, 2 * sec.capacity_cfs, 0.0, 0.0]
    assert muskingum_cunge_route(Hydrograph(0.1, tuple(flows)), sec).exceeds_capacity


@pytest.mark.parametrize("kw, message", [
    ({"shape": "oval"}, "shape"), ({"slope": 0.0}, "greater than zero"), ({"geom1_ft": -1.0}, "greater than zero")])
def test_a_bad_section_is_refused(kw, message):
    base = {"shape": "circular", "geom1_ft": 1.0, "length_ft": 100.0, "slope": 0.01, "roughness": 0.013}
    with pytest.raises(ValueError, match=message):
        ReachSection(**{**base, **kw})
