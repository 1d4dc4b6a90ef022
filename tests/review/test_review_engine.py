"""The review engine on the shipped example plan and variants of it (pure: no database)."""
from __future__ import annotations

import pytest
import yaml

from stormwater.engineering.hydrograph import scs_unit_hydrograph_runoff
from stormwater.engineering.water_quality import load_performance_table
from stormwater.review.engine import FAIL, INFO, NOT_APPLICABLE, NOT_ASSESSABLE, PASS, review_compute
from stormwater.review.plan import plan_from_dict, plan_parse

from review_fixtures import TEST_TSS_CSV


def _run(data, tables=()):
    return review_compute(plan_from_dict(data), tables=tables)


def _std(r, key):
    return next(s for s in r["standards"] if s["key"] == key)


@pytest.fixture(scope="module")
def example(example_text):
    plan, _, fmt = plan_parse(example_text, name="commercial-5-acre.yaml")
    assert fmt == "yaml"
    return review_compute(plan)


def test_the_example_uses_noaa_plus_design_storms_from_the_pfds_file(example):
    storms = {s["ari_years"]: s for s in example["rainfall"]["storms"]}
    # Mt Sunapee NH (Atlas 14 Vol. 10) 24-hr upper bounds 3.64, 5.52, 9.41 in; × 0.9 (§ 380-11 A(2)).
    assert storms[2]["upper_ci_in"] == 3.64 and storms[2]["design_in"] == pytest.approx(3.276)
    assert storms[10]["design_in"] == pytest.approx(4.968)
    assert storms[100]["design_in"] == pytest.approx(8.469)
    assert example["rainfall"]["storm_type"] == "III"


def test_the_example_curve_numbers_and_tc_follow_tr55(example):
    subs = {(s["phase"], s["id"]): s for s in example["subcatchments"]}
    assert subs[("pre", "E1")]["cn"] == 55.0            # woods, good, HSG B (Table 2-2c)
    assert subs[("pre", "E2")]["cn"] == 58.0            # meadow, HSG B
    # P1: 2.2 ac impervious (98) + 0.8 ac open space good B (61): (2.2×98 + 0.8×61) / 3.0
    assert subs[("post", "P1")]["cn"] == pytest.approx((2.2 * 98 + 0.8 * 61) / 3.0, abs=0.05)
    assert subs[("post", "P1")]["impervious_sqft"] == round(2.2 * 43560)
    # P1's computed Tc is under 0.1 h: raised to the TR-55 minimum, and said so.
    assert subs[("post", "P1")]["tc_computed_hr"] < 0.1 and subs[("post", "P1")]["tc_hr"] == 0.1
    assert any("P1: Tc" in n for n in example["notes"])


def test_every_hydrograph_holds_its_runoff_volume(example):
    for s in example["subcatchments"]:
        for y, st in s["storms"].items():
            h = scs_unit_hydrograph_runoff(drainage_area_acres=s["area_acres"], curve_number=s["cn"],
                                           tc_hr=s["tc_hr"], rainfall_in=st["rainfall_in"], storm_type="III",
                                           dt_hr=example["rainfall"]["dt_hr"])
            # (rounded CN and rainfall in the report: 0.5 %)
            assert h.volume_cuft == pytest.approx(st["volume_cuft"], rel=0.005)
            # UH peak and TR-55 graphical peak agree within the cross-check bound of docs/engineering.md.
            assert st["peak_cfs"] == pytest.approx(st["graphical_peak_cfs"], rel=0.15)


def test_the_example_meets_every_decided_standard(example):
    statuses = {s["key"]: s["status"] for s in example["standards"]}
    # The example carries Mt Sunapee NH's PFDS file as a stand-in (no Longmeadow file in the repository):
    # the rainfall location row fails, as it must (§ 380-11 A(2)(a)); every other decided row passes.
    assert example["overall"] == FAIL and statuses["rainfall_location"] == FAIL
    assert [s["key"] for s in example["standards"] if s["status"] in (FAIL, NOT_ASSESSABLE)] == ["rainfall_location"]
    for y in (2, 10, 100):
        row = _std(example, f"peak_DP1_{y}")
        assert row["status"] == PASS
        assert row["numbers"]["post_peak_cfs"] <= row["numbers"]["pre_peak_cfs"]
        assert statuses[f"volume_DP1_{y}"] == INFO
    ret = _std(example, "retention")
    assert ret["numbers"]["required_cuft"] == pytest.approx(135036 / 12.0, abs=0.1)   # 1 in × impervious
    assert ret["numbers"]["provided_cuft"] == 11880 and ret["status"] == PASS
    # With the retention standard met, TSS and TP pass by D(2)(b) though no TSS table is loaded.
    assert _std(example, "removal_TSS")["status"] == PASS and "retention" in _std(example, "removal_TSS")["reason"]
    assert _std(example, "removal_TP")["status"] == PASS
    assert _std(example, "drawdown_TRENCH-1")["numbers"]["retention_cuft"] == 11880
    assert _std(example, "drawdown_TRENCH-1")["provided"] == "12.0 h"   # 11,880 / (2.41/12 × 4,950)
    assert statuses["overflow_TRENCH-1"] == statuses["overflow_BASIN-1"] == PASS


def test_provisional_sources_are_flagged_on_the_rows_that_use_them(example):
    tn = _std(example, "removal_TN")
    assert tn["status"] == INFO and tn["provisional"]          # RBEROST fits
    assert not _std(example, "recharge")["provisional"]        # F by HSG from MassDEP Standard 3 (issue 19)
    assert example["provisional"] is True
    names = {t["name"]: t for t in example["tables_used"]}
    assert any("RBEROST" in n and t["provisional"] for n, t in names.items())
    trench = next(b for b in example["bmps"] if b["id"] == "TRENCH-1")
    assert trench["removal"]["TSS"]["status"] == NOT_ASSESSABLE
    assert "no TSS performance table" in trench["removal"]["TSS"]["reason"]
    assert trench["removal"]["TP"]["provisional"] is True


def test_routing_conserves_mass_in_the_trench_and_basin(example):
    for b in example["bmps"]:
        if not b["routed"]:
            continue
        for st in b["storms"].values():
            assert st["inflow_volume_cuft"] == pytest.approx(
                st["outflow_volume_cuft"] + st["infiltrated_cuft"], rel=0.02, abs=50)


def test_a_basin_credited_beyond_its_curve_uses_the_curves_largest_depth(example):
    basin = next(b for b in example["bmps"] if b["id"] == "BASIN-1")
    assert basin["storage_depth_in"] > 2.0
    assert basin["removal"]["TP"]["depth_used_in"] == 2.0 and "credited at the curve's largest" in basin["removal"]["TP"]["note"]


def _small_trench(data):
    """Halve the trench: retention no longer meets 1 in × impervious."""
    t = next(b for b in data["bmps"] if b["id"] == "TRENCH-1")
    t["stage_storage"] = [[0.0, 0], [3.0, 5940], [4.0, 6390], [5.0, 6840]]
    t["outlets"][0]["crest_ft"] = 3.0
    t["outlets"][1]["crest_ft"] = 3.8
    return data


def test_without_retention_and_without_a_tss_table_tss_is_not_assessable(example_data):
    r = _run(_small_trench(example_data))
    assert _std(r, "retention")["status"] == FAIL
    tss = _std(r, "removal_TSS")
    assert tss["status"] == NOT_ASSESSABLE and "no TSS performance table" in tss["reason"]
    tp = _std(r, "removal_TP")
    assert tp["status"] in (PASS, FAIL) and tp["provisional"] is True   # decided by the RBEROST fits
    assert r["overall"] == FAIL    # the retention row fails


def test_a_loaded_tss_table_makes_tss_assessable_and_is_named(example_data):
    table = load_performance_table(TEST_TSS_CSV, name="Test TSS table (v1)", source_note="tests")
    next(s for s in example_data["post"] if s["id"] == "P1")["to"] = "TRENCH-1"   # no catch basins: the table has none
    r = _run(_small_trench(example_data), tables=(table,))
    tss = _std(r, "removal_TSS")
    assert tss["status"] in (PASS, FAIL) and not tss["numbers"]["missing"]
    assert "Test TSS table (v1)" in tss["sources"] and tss["provisional"] is False
    trench = next(b for b in r["bmps"] if b["id"] == "TRENCH-1")
    assert trench["removal"]["TSS"]["table"] == "Test TSS table (v1)"
    # The train P1 → trench → basin combines as 1 − (1 − r1)(1 − r2).
    basin = next(b for b in r["bmps"] if b["id"] == "BASIN-1")
    p1 = next(t for t in tss["numbers"]["trains"] if t["subcatchment"] == "P1")
    r1, r2 = trench["removal"]["TSS"]["removal"], basin["removal"]["TSS"]["removal"]
    assert p1["bmps"] == ["TRENCH-1", "BASIN-1"]
    assert p1["removal_pct"] == pytest.approx(100 * (1 - (1 - r1) * (1 - r2)), abs=0.05)


def test_runoff_that_bypasses_the_basin_fails_the_peak_rate(example_data):
    next(s for s in example_data["post"] if s["id"] == "P2")["to"] = "DP1"   # roof and lawn straight to the wetland
    r = _run(example_data)
    row = _std(r, "peak_DP1_2")
    assert row["status"] == FAIL and "exceeds pre-development" in row["reason"]


def test_a_basin_without_an_emergency_overflow_that_overtops_fails(example_data):
    basin = next(b for b in example_data["bmps"] if b["id"] == "BASIN-1")
    basin["outlets"] = basin["outlets"][:1]          # only the low-flow orifice
    basin["stage_storage"] = basin["stage_storage"][:7]   # top of the table 3.0 ft
    r = _run(example_data)
    ov = _std(r, "overflow_BASIN-1")
    assert ov["status"] == FAIL and "no emergency overflow" in ov["reason"] and "overtops" in ov["reason"]
    assert _std(r, "peak_DP1_100")["status"] == FAIL


def test_design_depths_typed_in_are_provisional(example_data):
    example_data["rainfall"] = {"design_in": {2: 3.3, 10: 5.0, 100: 8.5}}
    r = _run(example_data)
    assert _std(r, "peak_DP1_2")["provisional"] is True
    assert any("could not verify" in n for n in r["notes"])


def test_under_one_acre_the_d_e_standards_do_not_apply(example_data):
    example_data["project"]["disturbance_acres"] = 0.8
    r = _run(example_data)
    for key in ("applicability", "retention", "removal_TSS", "removal_TP"):
        assert _std(r, key)["status"] == NOT_APPLICABLE


def test_redevelopment_uses_0_8_inch_and_80_50_targets(example_data):
    example_data["project"]["previously_developed_with_impervious"] = True
    r = _run(example_data)
    assert r["project"]["project_type"] == "redevelopment"
    assert _std(r, "retention")["numbers"]["required_cuft"] == pytest.approx(0.8 / 12 * 135036, abs=0.1)
    assert _std(r, "removal_TP")["numbers"]["target_pct"] == 50.0


def test_unconnected_impervious_under_30_percent_uses_figure_2_4(example_data):
    sub = next(s for s in example_data["post"] if s["id"] == "P2")
    sub["cover"] = [{"cover": "impervious", "hsg": "B", "area_acres": 0.4, "connected": False},
                    {"cover": "open_space_good", "hsg": "B", "area_acres": 1.6}]
    r = _run(example_data)
    p2 = next(s for s in r["subcatchments"] if s["id"] == "P2")
    # Fig. 2-4: CNc = CNp + (Pimp/100)(98 − CNp)(1 − 0.5R), Pimp 20 %, R 1.0, CNp 61 → 64.7
    assert p2["cn"] == pytest.approx(61 + 0.20 * (98 - 61) * 0.5, abs=0.05)
    assert "Fig. 2-4" in p2["cn_method"]


def test_recharge_for_impervious_area_without_a_soil_group_is_not_assessable(example_data):
    p1 = next(s for s in example_data["post"] if s["id"] == "P1")
    p1.pop("cover")
    p1.update(cn=85, impervious_acres=2.2)          # a direct CN with no HSG: its F is unknown
    r = _run(example_data)
    rec = _std(r, "recharge")
    assert rec["status"] == NOT_ASSESSABLE and "no hydrologic soil group" in rec["reason"]
    example_data["project"]["recharge_target_depth_in"] = 0.6
    assert _std(_run(example_data), "recharge")["status"] == PASS


def test_the_report_is_json_serialisable(example):
    import json

    assert json.loads(json.dumps(example)) == example


def test_json_and_yaml_give_the_same_report(example_text, example):
    import json

    data = yaml.safe_load(example_text)
    plan, _, fmt = plan_parse(json.dumps(data), name="plan.json")
    assert fmt == "json"
    assert review_compute(plan) == example
