"""Issue 31: reaches -- pipes and channels between the nodes of a plan, routed (Muskingum–Cunge, variable
parameters) so that the node downstream receives the routed hydrograph; shown on the report and in the JSON.

The plan: the culvert plan of test_issue31_culvert.py (P1 → B1 → DP1), B1's outflow carried to DP1 by a 15-in pipe,
and P2 (2 acres of pavement, Tc 0.1 h) reaching DP1 through a 2,000-ft grassed trapezoidal channel. The channel's lag
is checked against the kinematic travel time written out here: L / c with c = dQ/dA of Manning's equation at the
peak flow (the peak of a kinematic wave moves at that celerity; a little diffusion only delays it).
"""
from __future__ import annotations

import copy
import math

import pytest
from test_issue31_culvert import PLAN

from stormwater.review.engine import review_compute
from stormwater.review.plan import PlanError, plan_from_dict

PIPE = {"name": "C1", "from": "B1", "to": "DP1", "length_ft": 300, "slope": 0.01, "roughness": 0.013,
        "shape": "circular", "geom1_ft": 1.25}
CHANNEL = {"name": "S1", "from": "P2", "to": "DP1", "length_ft": 2000, "slope": 0.02, "roughness": 0.03,
           "shape": "trapezoidal", "geom1_ft": 2.0, "geom2_ft": 2.0, "geom3": 2.0, "geom4": 2.0}


def _plan(*reaches):
    d = copy.deepcopy(PLAN)
    d["project"]["disturbance_acres"] = 4.0
    d["post"].append({"id": "P2", "area_acres": 2.0, "to": "DP1", "tc_hr": 0.1,
                      "cover": [{"cover": "impervious", "hsg": "B", "area_acres": 2.0}]})
    d["reaches"] = [copy.deepcopy(r) for r in reaches]
    return d


@pytest.fixture(scope="module")
def report():
    return review_compute(plan_from_dict(_plan(PIPE, CHANNEL)))


def _reach(r, name):
    return next(x for x in r["reaches"] if x["name"] == name)


def _q_trap(y):
    a, p = y * (2.0 + 2.0 * y), 2.0 + 2 * y * math.sqrt(5.0)
    return 1.486 / 0.03 * a * (a / p) ** (2 / 3) * math.sqrt(0.02)


def test_the_channel_lags_the_peak_by_the_kinematic_travel_time(report):
    st = _reach(report, "S1")["storms"]["2"]
    lo, hi = 0.0, 10.0
    for _ in range(100):   # the normal depth of the peak flow
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _q_trap(mid) < st["peak_in_cfs"] else (lo, mid)
    y = lo
    c = (_q_trap(y + 1e-4) - _q_trap(y - 1e-4)) / (2e-4 * (2.0 + 4.0 * y))   # dQ/dA = (dQ/dy) / T
    travel = 2000 / c / 3600
    assert travel == pytest.approx(st["lag_hr"], abs=0.15 * travel + 0.02)
    assert st["peak_out_cfs"] <= st["peak_in_cfs"]
    assert st["volume_out_cuft"] + st["held_at_end_cuft"] == pytest.approx(st["volume_in_cuft"], rel=1e-3)


def test_the_node_downstream_receives_the_routed_hydrographs(report):
    pipe = _reach(report, "C1")["storms"]["2"]
    b1 = next(b for b in report["bmps"] if b["id"] == "B1")["storms"]["2"]
    assert pipe["peak_in_cfs"] == b1["outflow_peak_cfs"]
    without = review_compute(plan_from_dict(_plan()))
    dp, dp0 = report["design_points"][0]["storms"]["2"], without["design_points"][0]["storms"]["2"]
    assert dp["post_peak_time_hr"] > dp0["post_peak_time_hr"]    # P2's peak arrives later (closer to B1's)
    assert dp["post_peak_cfs"] != dp0["post_peak_cfs"]
    assert dp["post_volume_cuft"] == pytest.approx(dp0["post_volume_cuft"], rel=2e-3)
    assert report["design_points"][0]["post_from"] == ["P2 via reach S1", "B1 outflow via reach C1"]


def test_the_report_shows_a_table_of_reaches_with_peak_in_peak_out_and_lag(report):
    from django.template.loader import render_to_string

    from stormwater.review.present import report_view

    view = report_view(report, plot_src=None)
    html = render_to_string("review/_report_reaches.html", {"v": view})
    st = _reach(report, "S1")["storms"]["2"]
    assert "Peak in (cfs)" in html and "Peak out (cfs)" in html and "Lag (h)" in html
    assert f"<td class=\"num\">{st['peak_in_cfs']} at {st['peak_in_time_hr']}</td>" in html
    assert f"<td class=\"num\">{st['lag_hr']}</td>" in html
    assert "<td>P2 → DP1</td>" in html and "15 in pipe" in html and "Muskingum–Cunge" in html
    assert {"name", "from", "to", "length_ft", "roughness", "shape", "geom1_ft", "slope"} <= set(report["reaches"][0])


def test_a_pipe_that_cannot_carry_the_flow_is_flagged(report):
    small = dict(PIPE, geom1_ft=0.25)
    r = review_compute(plan_from_dict(_plan(small)))
    x = _reach(r, "C1")
    assert x["storms"]["2"]["exceeds_capacity"] and "surcharges" in x["notes"][0]


@pytest.mark.parametrize("change, message", [
    ({"from": "B9"}, "reaches\\[0\\].from: 'B9' is neither"),
    ({"to": "B1"}, "reaches\\[0\\].to: B1 discharges to 'DP1'"),
    ({"shape": "egg"}, "reaches\\[0\\].shape: must be circular"),
    ({"geom2_ft": 3}, "a circular pipe takes geom1_ft"),
    ({"slope": 0}, "reaches\\[0\\].slope: must be greater than zero"),
    ({"manning_n": 0.013}, "reaches\\[0\\].manning_n: unknown field"),
])
def test_a_bad_reach_is_refused_naming_the_field(change, message):
    with pytest.raises(PlanError, match=message):
        plan_from_dict(_plan(dict(PIPE, **change)))


def test_two_reaches_from_one_node_are_refused():
    with pytest.raises(PlanError, match="reaches\\[1\\].from: B1 already has a reach"):
        plan_from_dict(_plan(PIPE, dict(PIPE, name="C2")))


def test_reaches_round_trip_through_the_plan_form_and_are_drawn_in_it():
    """A stored review opened in the web form keeps its reaches (and the form draws a row for each)."""
    from django.http import QueryDict

    from stormwater.review.planform import (layout, plan_dict_from_state, post_from_state, state_from_plan_dict,
                                            state_from_post)

    data = _plan(PIPE, CHANNEL)
    data["rainfall"] = {"storm_type": "III", "storms_years": [2, 10, 100], "design_in": {2: 3.0, 10: 4.5, 100: 7.0}}
    post = post_from_state(state_from_plan_dict(copy.deepcopy(data)))
    q = QueryDict(mutable=True)
    for k, v in post.items():
        q.setlist(k, v if isinstance(v, list) else [v])
    state = state_from_post(q)
    back = plan_dict_from_state(state)
    assert plan_from_dict(back).reaches == plan_from_dict(data).reaches
    drawn = layout(state, {}, cover_choices=[], sheet_surfaces=[])
    assert [fld["name"] for fld in drawn["reaches"][1]["fields"]][:4] == [
        "reaches[1].name", "reaches[1].from", "reaches[1].to", "reaches[1].shape"]


def test_the_network_diagram_draws_each_reach_on_its_link(report):
    from stormwater.review.diagram import network_svg

    svg = network_svg(report["network"], "post")
    assert "B1 flows to DP1 through reach C1" in svg and "P2 flows to DP1 through reach S1" in svg
    assert svg.count('stroke-dasharray="6 3"') == 2 and ">C1</text>" in svg
