"""Issue 31: an imported SWMM model's conduits kept as reaches -- each unbranched chain of circular or
trapezoidal conduits between a storage unit (or a subcatchment's outlet junction) and the next storage unit or
outfall becomes one equivalent reach (length the sum, slope and n length-weighted, the governing section), routed by
the review; a branching chain or an unsupported shape is passed through as before, and the note says so.

The model: the site-drainage model of test_issue31_swmm_import.py (POND1 → J1 → J2 → J3 → J4 → OF1 through C1,
C2, C3, C0; 18-in pipes) with longer pipes, so that the travel time is several routing steps. The design point's
lag is checked against the kinematic travel time L / c written out here: c = dQ/dA of Manning's equation for the
pipe at the peak flow (as in test_issue31_reach.py).
"""
from __future__ import annotations

import copy
import math

import pytest
from test_issue31_swmm_import import PRE, POST, _complete

from stormwater.review.engine import review_compute
from stormwater.review.plan import plan_from_dict
from stormwater.review.swmm import plan_from_inp

LENGTHS = {"C1": 1201.0, "C2": 1202.0, "C3": 1203.0, "C0": 900.0}
ELEV = {"J1": 96.0, "J2": 94.0, "J3": 92.0, "J4": 91.0, "OF1": 88.0}


def _model(shape2: str = "CIRCULAR", branch: bool = False) -> str:
    conduits = "\n".join(f"C{i}      J{i}    J{i + 1}   {LENGTHS[f'C{i}']}  0.013  0  0  0  0" for i in range(1, 4))
    if branch:
        conduits += "\nC9      J2    OF1   300  0.013  0  0  0  0"
    junctions = "\n".join(f"J{i}      {ELEV[f'J{i}']}  6.0  0  0  0" for i in range(2, 5))
    xs = "\n".join(f"C{i}      {shape2 if i == 2 else 'CIRCULAR'}   1.5    "
                   f"{'2.0' if i == 2 and shape2 != 'CIRCULAR' else '0'}      0      0      1" for i in range(1, 4))
    if branch:
        xs += "\nC9      CIRCULAR   1.5    0      0      0      1"
    return (POST.replace("C1      J1    OF1  80", f"C0      J4    OF1  {LENGTHS['C0']}")
            .replace("OF1     94.0", f"OF1     {ELEV['OF1']}")
            .replace("C1      CIRCULAR", "C0      CIRCULAR")
            .replace("J1      96.0  6.0       0          0         0", "J1      96.0  6.0 0 0 0\n" + junctions)
            .replace("[ORIFICES]", conduits + "\n\n[ORIFICES]")
            .replace("OR1     CIRCULAR", xs + "\nOR1     CIRCULAR"))


def _q_pipe(y, d, n, s):
    th = 2 * math.acos(1 - 2 * y / d)
    a, p = d * d / 8 * (th - math.sin(th)), d * th / 2
    return 1.486 / n * a * (a / p) ** (2 / 3) * math.sqrt(s), d * math.sin(th / 2)


def test_a_chain_of_conduits_becomes_one_equivalent_reach():
    """C3 (1 ft of fall over 1,203 ft) is the flattest of four equal pipes: the least capacity, the governing one."""
    plan, notes = plan_from_inp(_model(), pre_text=PRE)
    total = sum(LENGTHS.values())
    assert plan["reaches"] == [{
        "name": "C1+C2+C3+C0", "from": "POND1", "to": "OF1", "length_ft": total,
        "slope": round(sum(c["length_ft"] * c["slope"] for c in plan["swmm"]["conduits"]) / total, 5),
        "roughness": 0.013, "shape": "circular", "geom1_ft": 1.5,
        "description": "SWMM conduits C1, C2, C3, C0 as one equivalent reach (section of C3)"}]
    note = next(n for n in notes if "as reach C1+C2+C3+C0" in n)
    assert f"length {total:g} ft" in note and "length-weighted" in note and "least full-flow capacity" in note
    assert "Muskingum" in note


def test_the_design_point_lags_the_unrouted_one_by_the_travel_time(example_data):
    plan, _ = plan_from_inp(_model(), pre_text=PRE)
    routed = review_compute(plan_from_dict(_complete(copy.deepcopy(plan), example_data, years=(2,))))
    bare = copy.deepcopy(plan)
    del bare["reaches"]
    unrouted = review_compute(plan_from_dict(_complete(bare, example_data, years=(2,))))
    r = plan["reaches"][0]
    st = next(x for x in routed["reaches"] if x["name"] == r["name"])["storms"]["2"]
    d, n, s, q = r["geom1_ft"], r["roughness"], r["slope"], st["peak_in_cfs"]
    lo, hi = 1e-6, 0.938 * d
    for _ in range(100):   # the normal depth of the peak flow
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _q_pipe(mid, d, n, s)[0] < q else (lo, mid)
    y = lo
    dq = (_q_pipe(y + 1e-5, d, n, s)[0] - _q_pipe(y - 1e-5, d, n, s)[0]) / 2e-5
    c = dq / _q_pipe(y, d, n, s)[1]               # dQ/dA = (dQ/dy) / T
    travel = r["length_ft"] / c / 3600
    dp, dp0 = routed["design_points"][0]["storms"]["2"], unrouted["design_points"][0]["storms"]["2"]
    assert travel > 0.1
    assert dp["post_peak_time_hr"] - dp0["post_peak_time_hr"] == pytest.approx(travel, abs=0.2 * travel + 0.05)
    assert dp["post_volume_cuft"] == pytest.approx(dp0["post_volume_cuft"], rel=5e-3)
    assert routed["design_points"][0]["post_from"].count("POND1 outflow via reach C1+C2+C3+C0") == 1


@pytest.mark.parametrize("kwargs, why", [
    ({"branch": True}, "node J2 has 2 outgoing links (the chain branches)"),
    ({"shape2": "RECT_CLOSED"}, "conduit C2 is RECT_CLOSED (only CIRCULAR and TRAPEZOIDAL are routed)"),
])
def test_a_branching_chain_or_an_unsupported_shape_is_passed_through_and_said(kwargs, why):
    plan, notes = plan_from_inp(_model(**kwargs), pre_text=PRE)
    assert "reaches" not in plan
    assert any(why in n and "passes the conduits without delay" in n for n in notes), notes
