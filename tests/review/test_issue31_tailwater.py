"""Issue 31: a tailwater that follows the basin downstream through the storm.

Two basins in series: B1 (the culvert plan of test_issue31_culvert.py, its table continued to 5 ft) discharges
through its 12-in culvert into the wet basin B2, which also takes P2's runoff and rises during the storm, so B1's
culvert outlet is submerged deeper and deeper (B2 starts at 0.9 ft, above the culvert's outlet crown at 0.8 ft).

The independent calculation below solves the two basins together (one system, Heun's method on 9-second steps):
dS1/dt = I1 − Q1(h1, h2), dS2/dt = I2 + Q1 − Q2(h2), with the culvert written out from FHWA HDS-5 (2012): with the
tailwater above the outlet crown, outlet control gives HW = TW + H, H = (1 + ke + 29 n² L / R^1.33) V²/2g (ch. 3);
inlet control Eq. A.1/A.3 (tests/hds5_oracle.py); the higher headwater governs, so Q1 = min(Q_inlet(h1),
√((h1 − h2)/k)); B2's riser a sharp-crested weir with two end contractions, Q = 3.33 (L − 0.2 H) H^1.5 (Francis).
"""
from __future__ import annotations

import bisect
import copy
import math

import pytest
from hds5_oracle import CircularCulvertOracle
from test_issue31_culvert import PLAN

from stormwater.review.engine import review_compute
from stormwater.review.hydrology import subcatchment_compute
from stormwater.review.plan import PlanError, plan_from_dict

B1_TABLE = [[0.0, 0], [1.0, 1500], [2.0, 3500], [3.0, 6000], [5.0, 12000]]
B2_TABLE = [[-2.0, 0], [0.0, 20000], [2.0, 40000], [4.0, 60000]]
ORACLE = CircularCulvertOracle(d=1.0, length=40.0, inv=0.0, out_inv=-0.2, n=0.012, ke=0.5,
                               k=0.0098, m=2.0, c=0.0398, y=0.67, ks=-0.5)


def _plan(tailwater):
    d = copy.deepcopy(PLAN)
    d["project"]["disturbance_acres"] = 5.0
    d["pre"][0]["area_acres"] = 5.0
    d["pre"][0]["cover"][0]["area_acres"] = 5.0
    d["bmps"][0].update(to="B2", tailwater_ft=tailwater, stage_storage=B1_TABLE)
    d["post"].append({"id": "P2", "area_acres": 3.0, "to": "B2", "tc_hr": 0.1,
                      "cover": [{"cover": "impervious", "hsg": "B", "area_acres": 3.0}]})
    d["bmps"].append({"id": "B2", "type": "wet_basin", "to": "DP1", "starting_stage_ft": 0.9, "stage_storage": B2_TABLE,
                      "outlets": [{"kind": "weir", "name": "riser", "crest_ft": 0.9, "length_ft": 2,
                                   "weir_type": "sharp", "end_contractions": 2}]})
    return d


def _lin(x, xs, ys):
    i = min(max(bisect.bisect_right(xs, x) - 1, 0), len(xs) - 2)
    return ys[i] + (x - xs[i]) * (ys[i + 1] - ys[i]) / (xs[i + 1] - xs[i])


def _simultaneous(plan):
    """Peak B1 outflow, B1 stage, B2 outflow and B2 stage, the two basins solved as one system."""
    dt = 0.01
    i1 = subcatchment_compute(plan.post[0], "post[0]", 3.0).hydrograph(3.0, "III", dt).flows_cfs
    i2 = subcatchment_compute(plan.post[1], "post[1]", 3.0).hydrograph(3.0, "III", dt).flows_cfs
    h1s, s1s = [r[0] for r in B1_TABLE], [float(r[1]) for r in B1_TABLE]
    h2s, s2s = [r[0] for r in B2_TABLE], [float(r[1]) for r in B2_TABLE]
    a = math.pi / 4
    k = (1 + 0.5 + 29 * 0.012 ** 2 * 40 / 0.25 ** 1.33) / (2 * 32.174 * a * a)
    qg = [12.0 * (j / 400) ** 2 for j in range(401)]
    hg = [ORACLE.hw_inlet(q) for q in qg]

    def q1(h1, h2):
        if h1 <= max(h2, 0.0):
            return 0.0
        return min(_lin(h1, hg, qg), math.sqrt((h1 - h2) / k))

    def q2(h2):
        hh = h2 - 0.9
        return 3.33 * (2.0 - 0.2 * hh) * hh ** 1.5 if hh > 0 else 0.0

    def rates(t_hr, s1, s2):
        j = min(int(t_hr / dt), len(i1) - 2)
        f = t_hr / dt - j
        in1 = i1[j] + f * (i1[j + 1] - i1[j]) if t_hr / dt < len(i1) - 1 else 0.0
        in2 = i2[j] + f * (i2[j + 1] - i2[j]) if t_hr / dt < len(i2) - 1 else 0.0
        h1, h2 = _lin(s1, s1s, h1s), _lin(s2, s2s, h2s)
        o1 = q1(h1, h2)
        return in1 - o1, in2 + o1 - q2(h2), o1, q2(h2), h1, h2

    s1, s2 = 0.0, _lin(0.9, h2s, s2s)
    step = 0.0025   # h
    peaks = [0.0, 0.0, 0.0, 0.0]
    t = 0.0
    while t < 30.0:
        d1, d2, o1, o2, h1, h2 = rates(t, s1, s2)
        e1, e2, *_ = rates(t + step, s1 + d1 * step * 3600, s2 + d2 * step * 3600)
        s1 += (d1 + e1) / 2 * step * 3600
        s2 += (d2 + e2) / 2 * step * 3600
        t += step
        peaks = [max(p, x) for p, x in zip(peaks, (o1, h1, o2, h2))]
    return peaks


@pytest.fixture(scope="module")
def coupled():
    return review_compute(plan_from_dict(_plan("downstream")))


def _st(r, bid):
    return next(b for b in r["bmps"] if b["id"] == bid)["storms"]["2"]


def test_two_basins_in_series_route_within_2_percent_of_solving_them_together(coupled):
    q1, h1, q2, h2 = _simultaneous(plan_from_dict(_plan("downstream")))
    b1, b2 = _st(coupled, "B1"), _st(coupled, "B2")
    assert b1["outflow_peak_cfs"] == pytest.approx(q1, rel=0.02)
    assert b1["peak_stage_ft"] - 0.0 == pytest.approx(h1 - 0.0, rel=0.02)          # depth above B1's bottom
    assert b2["outflow_peak_cfs"] == pytest.approx(q2, rel=0.02)
    assert b2["peak_stage_ft"] - 0.9 == pytest.approx(h2 - 0.9, rel=0.02)          # B2's rise during the storm
    assert not b1["overtops"] and not b2["overtops"]


def test_the_downstream_rise_is_fed_back(coupled):
    """Held at B2's starting level, B1 would peak far lower: the rise of B2 is what submerges the culvert."""
    fixed = review_compute(plan_from_dict(_plan(0.9)))
    assert _st(coupled, "B1")["peak_stage_ft"] > _st(fixed, "B1")["peak_stage_ft"] + 0.3
    b1 = next(b for b in coupled["bmps"] if b["id"] == "B1")
    assert "water level of B2" in b1["tailwater_basis"] and "every time step" in b1["tailwater_basis"]
    said = [a for a in coupled["assumptions"] if "B1 → B2" in a]
    assert said and "passes" in said[0] and "NOT converged" not in said[0]


def test_the_volumes_still_balance_route_by_route(coupled):
    for bid in ("B1", "B2"):
        assert abs(_st(coupled, bid)["balance_error_cuft"]) < 1.0


def test_a_reach_between_a_basin_and_the_basin_it_takes_its_tailwater_from_is_refused():
    data = _plan("downstream")
    data["reaches"] = [{"name": "C1", "from": "B1", "to": "B2", "length_ft": 100, "slope": 0.01, "roughness": 0.013,
                        "shape": "circular", "geom1_ft": 1.0}]
    with pytest.raises(PlanError, match="reaches\\[0\\]: B1 takes its tailwater from B2"):
        plan_from_dict(data)
