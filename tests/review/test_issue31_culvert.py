"""Issue 31: a plan whose basin leaves through a culvert against a fixed tailwater, routed by the review and
checked against an independent FHWA HDS-5 calculation and storage-indication routing (tests/hds5_oracle.py).

The plan: P1, 1.0 ac impervious and 1.0 ac of lawn on HSG B, Tc 0.1 h, 2-year 3.0 in → basin B1 (0–3 ft,
6,000 ft³) → a 12-in concrete pipe, square edge with headwall (HDS-5 Table A.1: K 0.0098, M 2.0, c 0.0398,
Y 0.67), invert 0.0 ft, outlet invert −0.2 ft, 40 ft long, n 0.012, k_e 0.5; tailwater 0.9 ft (above the
outlet crown, −0.2 + 1.0 = 0.8 ft, so outlet control governs).
"""
from __future__ import annotations

import copy

import pytest
from hds5_oracle import CircularCulvertOracle, storage_indication

from stormwater.engineering.hydrograph import unit_hydrograph_time_step_hr
from stormwater.review.engine import review_compute
from stormwater.review.hydrology import subcatchment_compute
from stormwater.review.plan import PlanError, plan_from_dict

CULVERT = {"kind": "culvert", "name": "12-in RCP", "invert_ft": 0.0, "outlet_invert_ft": -0.2, "length_ft": 40,
           "diameter_in": 12, "inlet": "concrete_square_edge_headwall", "manning_n": 0.012, "entrance_loss": 0.5}
PLAN = {
    "schema": "longmeadow-swmp/1",
    "project": {"name": "culvert", "disturbance_acres": 2.0, "previously_developed_with_impervious": False},
    "rainfall": {"storm_type": "III", "storms_years": [2], "design_in": {2: 3.0}},
    "design_points": [{"id": "DP1"}],
    "pre": [{"id": "E1", "area_acres": 2.0, "to": "DP1", "tc_hr": 0.3,
             "cover": [{"cover": "woods_good", "hsg": "B", "area_acres": 2.0}]}],
    "post": [{"id": "P1", "area_acres": 2.0, "to": "B1", "tc_hr": 0.1,
              "cover": [{"cover": "impervious", "hsg": "B", "area_acres": 1.0},
                        {"cover": "open_space_good", "hsg": "B", "area_acres": 1.0}]}],
    "bmps": [{"id": "B1", "type": "extended_dry_detention_basin", "to": "DP1", "tailwater_ft": 0.9,
              "stage_storage": [[0.0, 0], [1.0, 1500], [2.0, 3500], [3.0, 6000]],
              "outlets": [CULVERT]}],
}
STAGES, STORAGES = (0.0, 1.0, 2.0, 3.0), (0.0, 1500.0, 3500.0, 6000.0)
ORACLE = CircularCulvertOracle(d=1.0, length=40.0, inv=0.0, out_inv=-0.2, n=0.012, ke=0.5,
                               k=0.0098, m=2.0, c=0.0398, y=0.67, ks=-0.5)


def _plan(**bmp_changes):
    data = copy.deepcopy(PLAN)
    data["bmps"][0].update(bmp_changes)
    return data


def _b1(r):
    return next(b for b in r["bmps"] if b["id"] == "B1")


@pytest.fixture(scope="module")
def report():
    return review_compute(plan_from_dict(_plan()))


def test_a_culvert_outlet_against_a_tailwater_routes_within_2_percent_of_an_independent_calculation(report):
    plan = plan_from_dict(_plan())
    sub = subcatchment_compute(plan.post[0], "post[0]", 3.0)
    dt = unit_hydrograph_time_step_hr(min(sub.tc_hr, 0.3))
    inflow = sub.hydrograph(3.0, "III", dt).flows_cfs
    peak_o, peak_h = storage_indication(inflow, dt, STAGES, STORAGES, ORACLE.forward_rating(0.9, 20.0), 0.0,
                                        tail_steps=0)
    st = _b1(report)["storms"]["2"]
    assert st["outflow_peak_cfs"] == pytest.approx(peak_o, rel=0.02)
    assert st["peak_stage_ft"] == pytest.approx(peak_h, rel=0.02)
    assert not st["overtops"]
    assert ORACLE.hw(peak_o, 0.9)[1] == "outlet"


def test_the_report_shows_the_culvert_its_equations_the_control_and_the_tailwater(report):
    b = _b1(report)
    o = b["outlets"][0]
    assert o["kind"] == "culvert" and o["size"].startswith("12 in, 40 ft long")
    assert "HDS-5" in o["equation"] and "Eq. A.1" in o["equation"] and "Table A.1" in o["equation"]
    assert "K 0.0098" in o["equation"] and "29 n²" in o["equation"]
    assert b["tailwater_ft"] == 0.9 and "as stated in the plan" in b["tailwater_basis"]
    row = next(r for r in b["ssd"]["rows"] if r["stage_ft"] == 2.0)
    assert row["flows_cfs"]["12-in RCP"] == pytest.approx(ORACLE.q_at(2.0, 0.9), rel=1e-3)
    assert row["controls"]["12-in RCP"] == "outlet"
    assert any("B1 tailwater 0.9 ft" in a for a in report["assumptions"])


def test_the_tailwater_raises_the_peak_stage():
    free = review_compute(plan_from_dict(_plan(tailwater_ft=None)))
    with_tw = review_compute(plan_from_dict(_plan()))
    assert _b1(free)["storms"]["2"]["peak_stage_ft"] < _b1(with_tw)["storms"]["2"]["peak_stage_ft"] - 0.05
    assert _b1(free)["tailwater_basis"] == ""


def test_tailwater_from_the_downstream_basin_follows_its_level():
    """B2 is big and its riser passes what it gets, so its level barely moves: B1 routes as against a fixed 0.9 ft
    (the coupled case where B2 rises is tests/review/test_issue31_tailwater.py)."""
    data = _plan(to="B2", tailwater_ft="downstream")
    data["bmps"].append({"id": "B2", "type": "wet_basin", "to": "DP1", "starting_stage_ft": 0.9,
                         "stage_storage": [[-2.0, 0], [0.0, 20000], [2.0, 60000]],
                         "outlets": [{"kind": "weir", "name": "riser", "crest_ft": 0.9, "length_ft": 6,
                                      "weir_type": "sharp", "end_contractions": 2}]})
    r = review_compute(plan_from_dict(data))
    b = _b1(r)
    assert b["tailwater_ft"] == 0.9 and "water level of B2" in b["tailwater_basis"]
    fixed = _b1(review_compute(plan_from_dict(_plan())))["storms"]["2"]["peak_stage_ft"]
    assert fixed <= b["storms"]["2"]["peak_stage_ft"] <= fixed + 0.05
    riser = next(x for x in r["bmps"] if x["id"] == "B2")["outlets"][0]
    assert "2 end contractions" in riser["size"] and "Francis" in riser["equation"]


@pytest.mark.parametrize("change, message", [
    ({"inlet": "nonesuch"}, "HDS-5 Table A.1"),
    ({"outlet_invert_ft": 0.5}, "above the inlet invert"),
    ({"diameter_in": None}, "diameter_in: required"),
])
def test_a_bad_culvert_is_refused_naming_the_field(change, message):
    data = _plan()
    data["bmps"][0]["outlets"][0] = {k: v for k, v in {**CULVERT, **change}.items() if v is not None}
    with pytest.raises(PlanError, match=message):
        plan_from_dict(data)


def test_downstream_tailwater_needs_a_routed_bmp_downstream():
    with pytest.raises(PlanError, match="tailwater_ft: downstream"):
        plan_from_dict(_plan(tailwater_ft="downstream"))


def test_the_report_page_shows_the_culvert_the_control_per_stage_and_the_tailwater(report):
    """What the engineer reads: the BMP's section of the report, rendered (no database needed)."""
    from django.template.loader import render_to_string
    from django.utils.html import escape

    from stormwater.review.present import report_view

    view = report_view(report, plot_src=lambda node, storm: "")
    b = next(x for x in view["bmps"] if x["id"] == "B1")
    html = render_to_string("review/_report_bmp.html", {"b": b, "forloop": {"counter": 1}, "v": view})
    assert "<dt>Tailwater</dt><dd>0.9 ft as stated in the plan, held for the whole storm</dd>" in html
    assert "<td>culvert</td>" in html and escape(b["outlets"][0]["size"]) in html
    assert escape("FHWA HDS-5 (2012): inlet control, App. A") in html
    at_2ft = next(r for r in b["ssd"]["rows"] if r["stage_ft"] == 2.0)
    assert f"<td class=\"num\">{at_2ft['flows_cfs']['12-in RCP']} (outlet)</td>" in html
    assert "the control that governs there (FHWA HDS-5: inlet or outlet)" in html


def test_a_culvert_a_sharp_weir_and_a_tailwater_round_trip_through_the_plan_form():
    """The web form carries every field of the new outlets (a stored review opened in the form loses none)."""
    from django.http import QueryDict

    from stormwater.review.planform import plan_dict_from_state, post_from_state, state_from_plan_dict, state_from_post

    data = _plan()
    data["rainfall"] = {"storm_type": "III", "storms_years": [2, 10, 100], "design_in": {2: 3.0, 10: 4.5, 100: 7.0}}
    data["bmps"][0]["outlets"] = [
        {**CULVERT, "barrels": 2},
        {"kind": "weir", "name": "riser", "crest_ft": 2.0, "length_ft": 3, "weir_type": "sharp", "end_contractions": 2},
        {"kind": "culvert", "name": "box", "invert_ft": 2.5, "outlet_invert_ft": 2.3, "length_ft": 30, "rise_ft": 2,
         "span_ft": 3, "inlet": "box_wingwall_30_75", "emergency": True}]
    post = post_from_state(state_from_plan_dict(copy.deepcopy(data)))
    q = QueryDict(mutable=True)
    for k, v in post.items():
        q.setlist(k, v if isinstance(v, list) else [v])
    back = plan_dict_from_state(state_from_post(q))
    assert plan_from_dict(back) == plan_from_dict(data)
    assert plan_from_dict(back).bmps[0].tailwater_ft == 0.9
