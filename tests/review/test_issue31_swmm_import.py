"""Issue 31: SWMM import that keeps the model -- Horton and Green-Ampt subcatchments, the soil group carried,
separate impervious and pervious flow paths, conduits kept, cut models refused, the emergency note right,
and the comparison with SWMM's own run for every import."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from stormwater.review.engine import review_compute
from stormwater.review.plan import plan_from_dict
from stormwater.review.swmm import SwmmInputError, compare, plan_from_inp

pytest.importorskip("swmm.toolkit", reason="swmm-toolkit is not installed")

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples" / "swmm"
POST = (EXAMPLES / "small-site-post.inp").read_text()
PRE = (EXAMPLES / "small-site-pre.inp").read_text()
CN_ROWS = "S1              61        0.5   7\nS2              61        0.5   7"


def _with_infiltration(text: str, method: str, rows: str) -> str:
    assert CN_ROWS in text
    return text.replace("INFILTRATION         CURVE_NUMBER", f"INFILTRATION         {method}").replace(CN_ROWS, rows)


HORTON = _with_infiltration(POST, "HORTON", "S1  3.0  0.5  4  7  0\nS2  3.0  0.5  4  7  0")
GREEN_AMPT = _with_infiltration(POST, "GREEN_AMPT", "S1  4.33  0.13  0.25\nS2  4.33  0.13  0.25")

# One pervious plane, EPA style, to check the losses against SWMM itself.
PLANE = """[TITLE]
one pervious plane
[OPTIONS]
FLOW_UNITS CFS
INFILTRATION {method}
FLOW_ROUTING KINWAVE
START_DATE 01/01/2024
END_DATE 01/02/2024
[RAINGAGES]
RG1 INTENSITY 0:06 1.0 TIMESERIES T
[TIMESERIES]
T 0 0
[SUBCATCHMENTS]
P1 RG1 OF1 1.0 0 200 2.0 0
[SUBAREAS]
P1 0.012 0.15 0.05 0.10 25 OUTLET
[INFILTRATION]
P1 {params}
[OUTFALLS]
OF1 100 FREE
"""


def _complete(plan, example_data, years=(2, 10, 100)):
    plan["project"] = {"name": "small site", "disturbance_acres": 2.6, "previously_developed_with_impervious": False}
    plan["rainfall"] = {**example_data["rainfall"], "storms_years": list(years)}
    return plan


@pytest.mark.parametrize("method,params,values", [
    ("HORTON", "3.0 0.5 4 7 0", (3.0, 0.5, 4.0, 7.0, 0.0)),
    ("MODIFIED_HORTON", "3.0 0.5 0.6 7 0", (3.0, 0.5, 0.6, 7.0, 0.0)),
    ("GREEN_AMPT", "4.33 0.13 0.25", (4.33, 0.13, 0.25)),
])
def test_the_pervious_losses_run_as_swmm_runs_them(method, params, values):
    """The runoff depth of a pervious plane on the 5-inch Type III storm: our loss model + nonlinear reservoir
    against SWMM 5.2's own run of the same plane (1 ac, width 200 ft, 2 %, N-Perv 0.15, S-Perv 0.1 in)."""
    from stormwater.review import swmm_infiltration as si
    from stormwater.review.swmm import _with_design_storm, run_swmm

    r = run_swmm(_with_design_storm(PLANE.format(method=method, params=params), 5.0, "III"))
    swmm_in = r["volumes_cuft"]["sub:P1"] / 43560.0 * 12.0
    ours = si.pervious_runoff_in(method, values, 0.10, 5.0, n_perv=0.15, length_ft=43560.0 / 200, slope=0.02)
    assert swmm_in > 0 and ours == pytest.approx(swmm_in, rel=0.03)


@pytest.mark.parametrize("model,method", [(HORTON, "Horton"), (GREEN_AMPT, "Green Ampt")])
def test_horton_and_green_ampt_models_import_with_the_conversion_stated(model, method, example_data):
    plan, notes = plan_from_inp(model, pre_text=PRE, name="x.inp")
    s1 = plan["post"][0]
    perv = [c for c in s1["cover"] if not c.get("impervious")][0]
    assert 30 <= perv["cn"] < 98
    conv = [n for n in notes if n.startswith("post S1: pervious losses")]
    assert conv and method in conv[0] and "Rossman & Huber (2016)" in conv[0] and f"CN {perv['cn']:g}" in conv[0]
    plan_from_dict(_complete(plan, example_data))


def test_refused_infiltration_methods_name_the_method():
    with pytest.raises(SwmmInputError, match="INFILTRATION PHILIP"):
        plan_from_inp(POST.replace("INFILTRATION         CURVE_NUMBER", "INFILTRATION PHILIP"))
    with pytest.raises(SwmmInputError, match="S1.*HORTON needs 5 values"):
        plan_from_inp(_with_infiltration(POST, "HORTON", "S1 3.0 0.5\nS2 3.0 0.5 4 7 0"))


def test_the_soil_group_is_carried_so_recharge_is_assessable(example_data):
    """Horton fc 0.5 in/h is HSG A (A >= 0.30 in/h); a [TAGS] group wins; a CN model's group is inferred from
    its pervious CN (61 = TR-55 open space, good, HSG B)."""
    plan, notes = plan_from_inp(HORTON, pre_text=PRE)
    assert {c["hsg"] for c in plan["post"][0]["cover"]} == {"A"}
    assert any("HSG A inferred from the Horton minimum rate fc 0.5" in n for n in notes)
    tagged, _ = plan_from_inp(HORTON + "\n[TAGS]\nSubcatch  S1  HSG-C\n", pre_text=PRE)
    assert {c["hsg"] for c in tagged["post"][0]["cover"]} == {"C"}
    cn_plan, cn_notes = plan_from_inp(POST, pre_text=PRE)
    assert {c["hsg"] for c in cn_plan["post"][0]["cover"]} == {"B"}
    r = review_compute(plan_from_dict(_complete(cn_plan, example_data, years=(2,))))
    recharge = next(x for x in r["standards"] if x["key"] == "recharge")
    assert recharge["status"] in ("pass", "fail") and not recharge["numbers"]["unknown_hsg"], recharge


def test_impervious_and_pervious_subareas_have_their_own_flow_paths(example_data):
    """S1: L = 2 × 43,560 / 400 = 217.8 ft; N-Imperv 0.012 and N-Perv 0.15, not one weighted 0.0603. The
    impervious sheet flow, 0.007 (0.012 × 217.8)^0.8 / (P2^0.5 × 0.015^0.4), is under 0.1 h -> 0.1 h."""
    plan, _ = plan_from_inp(POST, pre_text=PRE)
    s1 = plan["post"][0]
    assert s1["tc"] == [{"flow": "sheet", "manning_n": 0.15, "length_ft": 217.8, "slope": 0.015}]
    assert s1["impervious_tc"] == [{"flow": "sheet", "manning_n": 0.012, "length_ft": 217.8, "slope": 0.015}]
    r = review_compute(plan_from_dict(_complete(plan, example_data, years=(2,))))
    row = next(x for x in r["subcatchments"] if x["id"] == "S1")
    p2 = r["subcatchments"][0]["tc_segments"][0]["p2_in"]
    expect = 0.007 * (0.012 * 217.8) ** 0.8 / (p2 ** 0.5 * 0.015 ** 0.4)
    assert row["impervious_tc_computed_hr"] == pytest.approx(expect, abs=1e-4)
    assert row["impervious_tc_hr"] == 0.1 and row["tc_hr"] > 0.2


@pytest.mark.parametrize("mutate,message", [
    (lambda t: t.replace("S1      RG1       POND1", "S1      RG1       J9   "), "outlet node J9 is not in the model"),
    (lambda t: t.replace("C1      J1    OF1", "C1      J1    OF9"), "conduit C1 connects node OF9"),
    (lambda t: re.sub(r"\[ORIFICES\].*?\[XSECTIONS\]", "[XSECTIONS]", t, flags=re.S),
     "storage POND1: no outgoing link and no seepage"),
    (lambda t: re.sub(r"\[SUBAREAS\].*?\[INFILTRATION\]", "[INFILTRATION]", t, flags=re.S),
     "subcatchment S1: no \\[SUBAREAS\\] row"),
])
def test_a_model_cut_in_half_is_refused_naming_the_element(mutate, message):
    with pytest.raises(SwmmInputError, match=message):
        plan_from_inp(mutate(POST))


def test_the_emergency_note_follows_the_model_and_the_plan(example_data):
    _, notes = plan_from_inp(POST, pre_text=PRE)
    assert any("no outlet is marked as the emergency overflow" in n for n in notes)
    tagged, notes = plan_from_inp(POST + "\n[TAGS]\nLink  W2  Emergency\n", pre_text=PRE)
    w2 = next(o for o in tagged["bmps"][0]["outlets"] if o["name"] == "W2")
    assert w2.get("emergency") is True
    assert not any("no outlet is marked" in n for n in notes) and any("W2 is the emergency overflow" in n for n in notes)


def test_conduits_are_kept_and_listed(example_data):
    """Four conduits J1 -> J2 -> J3 -> J4 -> OF1 (101 + 102 + 103 + 80 = 386 ft): listed in the notes with
    their count and length, kept as data (swmm.conduits) with the slope from the node inverts."""
    conduits = "\n".join(f"C{i}      J{i}    J{i + 1}   {100 + i}  0.013  0  0  0  0" for i in range(1, 4))
    junctions = "\n".join(f"J{i}      {96 - 0.5 * (i - 1)}  6.0  0  0  0" for i in range(2, 5))
    xs = "\n".join(f"C{i}      CIRCULAR   1.5    0      0      0      1" for i in range(1, 4))
    model = (POST.replace("C1      J1    OF1  80", "C0      J4    OF1  80")
             .replace("C1      CIRCULAR", "C0      CIRCULAR")
             .replace("J1      96.0  6.0       0          0         0", "J1      96.0  6.0 0 0 0\n" + junctions)
             .replace("[ORIFICES]", conduits + "\n\n[ORIFICES]")
             .replace("OR1     CIRCULAR", xs + "\nOR1     CIRCULAR"))
    plan, notes = plan_from_inp(model, pre_text=PRE)
    cs = plan["swmm"]["conduits"]
    assert sorted(c["name"] for c in cs) == ["C0", "C1", "C2", "C3"]
    c2 = next(c for c in cs if c["name"] == "C2")
    assert c2 == {"name": "C2", "from": "J2", "to": "J3", "length_ft": 102.0, "roughness": 0.013, "shape": "CIRCULAR",
                  "geom1_ft": 1.5, "slope": round(0.5 / 102.0, 5)}
    assert any(n.startswith("post: 4 conduits, 386 ft in all") for n in notes)
    assert plan_from_dict(_complete(plan, example_data)).swmm["conduits"] == cs


def test_every_import_is_compared_with_swmm_and_the_outfall_difference_explained(example_data):
    """The Horton model re-run by SWMM on the 2-year storm beside the review: the outfall row is there, and a
    peak more than 5 % off carries the reasons (the DIFFERENCES topics that apply, infiltration among them).
    W2 is marked the emergency overflow in the form: the import's "no outlet is marked" note is dropped."""
    plan, notes = plan_from_inp(HORTON, name="horton")
    assert any("no outlet is marked" in n for n in notes)
    plan["pre"] = [{"id": "E1", "area_acres": 2.6, "to": "OF1", "cn": 55, "tc_hr": 0.3}]
    next(o for o in plan["bmps"][0]["outlets"] if o["name"] == "W2")["emergency"] = True
    r = review_compute(plan_from_dict(_complete(plan, example_data, years=(2,))), swmm_compare=compare)
    sw = r["swmm"]
    assert "error" not in sw, sw
    assert not any("no outlet is marked" in n for n in sw["conversion_notes"])
    row = next(x for x in sw["storms"]["2"]["rows"] if x["what"] == "post-development outfall")
    assert row["swmm"] > 0 and row["ours"] > 0
    topics = {d["topic"] for d in sw["differences"]}
    if abs(row["ratio"] - 1) > 0.05:
        assert not row["within_5pct"] and "Infiltration (Horton, Green-Ampt)" in row["explained_by"]
        assert set(row["explained_by"]) <= topics
    else:
        assert row["within_5pct"] and row["explained_by"] == []


def test_the_impervious_flow_path_and_the_conduits_survive_the_plan_form(example_data):
    """An import without the pre-development model opens the plan form: the impervious subarea's own flow path
    and the conduits are fields of it (JSON, from the model) and come back into the plan."""
    from stormwater.review.planform import layout, plan_dict_from_state, state_from_plan_dict, state_from_post

    plan, _ = plan_from_inp(POST, pre_text=PRE)
    state = state_from_plan_dict(plan)
    f = layout(state, {}, cover_choices=[], sheet_surfaces=[])
    s1 = next(s for ph in f["phases"] if ph["phase"] == "post" for s in ph["subs"] if s["path"] == "post[0]")
    posted = {fld["name"]: str(fld["value"]) for fld in s1["fields"] + f["swmm"]}
    assert "post[0].impervious_tc" in posted and "swmm.conduits" in posted
    back = plan_dict_from_state(state_from_post({**posted, "swmm.post_inp": POST}))
    assert back["post"][0]["impervious_tc"] == plan["post"][0]["impervious_tc"]
    assert back["swmm"]["conduits"] == plan["swmm"]["conduits"]


def test_the_horton_and_green_ampt_example_models_convert(example_data):
    """docs/examples/swmm/small-site-post-{horton,green-ampt}.inp: a tagged spillway and a tagged soil group."""
    horton, notes = plan_from_inp((EXAMPLES / "small-site-post-horton.inp").read_text(), pre_text=PRE)
    assert next(o for o in horton["bmps"][0]["outlets"] if o["name"] == "W2")["emergency"] is True
    assert {c["hsg"] for s in horton["post"] for c in s["cover"]} == {"A"}
    ga, notes = plan_from_inp((EXAMPLES / "small-site-post-green-ampt.inp").read_text(), pre_text=PRE)
    assert {c["hsg"] for s in ga["post"] for c in s["cover"]} == {"B"}
    assert any("post S1: soil group B: stated in [TAGS]" in n for n in notes)
    for plan in (horton, ga):
        plan_from_dict(_complete(plan, example_data))


def test_an_impervious_flow_path_needs_the_separate_runoff_method(example_data):
    from stormwater.review.plan import PlanError

    plan, _ = plan_from_inp(POST, pre_text=PRE)
    plan["post"][0]["runoff_method"] = "weighted_cn"
    with pytest.raises(PlanError, match=r"post\[0\]\.impervious_tc: only with runoff_method separate"):
        plan_from_dict(_complete(plan, example_data))


def test_the_cn_is_fitted_on_the_review_s_design_storms_when_the_pfds_file_comes_with_the_model(example_data):
    from stormwater.review.swmm_infiltration import design_depths_from_pfds

    depths = design_depths_from_pfds(example_data["rainfall"]["pfds_csv"])
    assert depths and len(depths) == 3 and depths[0] < depths[1] < depths[2]
    _, notes = plan_from_inp(HORTON, pre_text=PRE, reference_depths_in=depths)
    conv = next(n for n in notes if n.startswith("post S1: pervious losses"))
    assert all(f"{p:g} in: runoff" in conv for p in depths)
    assert design_depths_from_pfds("not a PFDS file") is None


def test_a_storage_units_invert_is_its_bottom_elevation_in_the_plans_datum():
    """[STORAGE] gives each storage unit its invert elevation (SWMM 5 User's Manual, Appendix D): it becomes the
    BMP's bottom elevation, so the report's levels are elevations of the model's own datum (issue 31)."""
    plan, _ = plan_from_inp(POST, pre_text=PRE)
    pond = next(b for b in plan["bmps"] if b["id"] == "POND1")
    assert pond["bottom_elevation_ft"] == 100.0
