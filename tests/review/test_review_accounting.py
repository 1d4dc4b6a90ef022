"""Issue 19 "Wrong today": the review's physical accounting, each with hand-checked numbers.

Variants of the shipped example plan (docs/examples/commercial-5-acre.yaml): P1 (3.0 ac, 2.2 ac =
95,832 ft² impervious) → TRENCH-1 (infiltration trench, 2.41 in/hr over 4,950 ft², 11,880 ft³ below
its overflow weir at 6.0 ft, i.e. 1,980 ft³ per foot) → BASIN-1 (dry detention) → DP1; P2 (2.0 ac,
0.9 ac = 39,204 ft² impervious) → BASIN-1. Total impervious 135,036 ft².
"""
from __future__ import annotations

import pytest

from stormwater.review.engine import FAIL, NOT_APPLICABLE, PASS, review_compute
from stormwater.review.plan import PlanError, plan_from_dict


def _run(data, **kw):
    return review_compute(plan_from_dict(data), **kw)


def _std(r, key):
    return next(s for s in r["standards"] if s["key"] == key)


def _bmp(r, bid):
    return next(b for b in r["bmps"] if b["id"] == bid)


def _with_forebay(data, **extra):
    """P2 now drains through a sediment forebay (no infiltration, weir at 2.0 ft over 1,800 ft³)."""
    next(s for s in data["post"] if s["id"] == "P2")["to"] = "FOREBAY-1"
    data["bmps"].insert(0, {"id": "FOREBAY-1", "type": "sediment_forebay", "to": "BASIN-1",
                            "stage_storage": [[0.0, 0], [2.0, 1800], [3.5, 3300]],
                            "outlets": [{"kind": "weir", "name": "forebay weir", "crest_ft": 2.0, "length_ft": 4.0}],
                            **extra})
    return data


# --- dead storage, starting levels, routes -------------------------------------------------------

def test_a_forebay_starts_full_to_its_lowest_outlet_and_nothing_is_called_infiltrated(example_data):
    """Defect: the forebay kept 1,800 ft³ for good and its table said "Infiltrated 5 ft³".

    A BMP that does not infiltrate holds a permanent pool up to its lowest outlet: by default it
    starts full to that outlet (HydroCAD's default), so every storm's inflow leaves over the weir
    (inflow volume = weir volume; the pool ends where it began, 1,800 ft³) and 0 ft³ infiltrates.
    """
    r = _run(_with_forebay(example_data))
    fb = _bmp(r, "FOREBAY-1")
    assert fb["starting_stage_ft"] == 2.0 and fb["starting_storage_cuft"] == 1800
    assert "lowest outlet" in fb["starting_basis"]
    assert fb["dead_storage_cuft"] == 1800
    for y, st in fb["storms"].items():
        assert st["infiltrated_cuft"] == 0, y
        routes = {x["name"]: x for x in st["routes"]}
        assert set(routes) == {"forebay weir"} and routes["forebay weir"]["to"] == "BASIN-1"
        assert routes["forebay weir"]["volume_cuft"] == pytest.approx(st["inflow_volume_cuft"], abs=2)
        assert st["end_storage_cuft"] == pytest.approx(1800, abs=2) and st["held_cuft"] == pytest.approx(0, abs=2)
    trench = _bmp(r, "TRENCH-1")   # an infiltrating BMP starts empty
    assert trench["starting_stage_ft"] == 0.0 and "infiltrat" in trench["starting_basis"]
    assert any("FOREBAY-1" in a and "2 ft" in a for a in r["assumptions"])


def test_a_plan_can_start_the_forebay_empty_and_the_water_it_keeps_is_named(example_data):
    """Started empty (plan: starting_stage_ft 0), the first 1,800 ft³ of each storm fill the pool and
    stay: weir volume = inflow − 1,800 ft³, "held" 1,800 ft³, infiltrated 0 ft³."""
    r = _run(_with_forebay(example_data, starting_stage_ft=0.0))
    fb = _bmp(r, "FOREBAY-1")
    assert fb["starting_stage_ft"] == 0.0 and "as stated in the plan" in fb["starting_basis"]
    st = fb["storms"]["2"]
    assert st["infiltrated_cuft"] == 0
    assert st["routes"][0]["volume_cuft"] == pytest.approx(st["inflow_volume_cuft"] - 1800, abs=2)
    assert st["held_cuft"] == pytest.approx(1800, abs=2)


def test_a_starting_stage_outside_the_table_is_refused(example_data):
    with pytest.raises(PlanError, match=r"^bmps\[0\]\.starting_stage_ft:"):
        plan_from_dict(_with_forebay(example_data, starting_stage_ft=9.0))


def test_the_trench_balance_shows_infiltration_and_overflow_separately(example):
    trench = _bmp(example, "TRENCH-1")
    for st in trench["storms"].values():
        routes = {x["name"]: x["volume_cuft"] for x in st["routes"]}
        assert "infiltration" in routes
        assert st["infiltrated_cuft"] == routes["infiltration"]
        total = sum(routes.values()) + st["end_storage_cuft"] - st["start_storage_cuft"]
        assert total == pytest.approx(st["inflow_volume_cuft"], abs=3)


@pytest.fixture(scope="module")
def example(example_text):
    from stormwater.review.plan import plan_parse

    return review_compute(plan_parse(example_text)[0])


# --- the capacity fed to a performance curve ------------------------------------------------------

def test_phosphorus_credit_counts_only_the_storage_that_infiltrates(example_data):
    """Defect: with a low orifice in the trench, retention fails but TP "passes" on storage that
    leaves through the orifice.

    Orifice at 1.0 ft: what infiltrates is the storage below it, 1.0 × 1,980 = 1,980 ft³ (retention
    provided 1,980 < 11,253 ft³ required: fail). The infiltration-trench curve assumes its capacity
    infiltrates, so x = 1,980 / 95,832 × 12 = 0.2479 in (not the 11,880 ft³ = 1.488 in below the weir).
    RBEROST TP fit for an infiltration trench at 2.41 in/hr: y = c1 + c2 (1 − e^(c3 x)),
    c1 = −0.011282, c2 = 1.010790, c3 = −4.098748: e^(−1.01621) = 0.36196,
    y = −0.011282 + 1.010790 × 0.63804 = 0.6336 → 63.4 %.
    BASIN-1 (credited at the curve's 2.0 in): −0.000339 − 0.028406 × 4 + 0.236822 × 2 = 0.3597.
    P1's train: 1 − (1 − 0.6336)(1 − 0.3597) = 0.7654 → 76.5 %; P2: 36.0 %.
    Site: (0.7654 × 95,832 + 0.3597 × 39,204) / 135,036 = 0.6476 → 64.8 % (was 81.3 %).
    """
    t = next(b for b in example_data["bmps"] if b["id"] == "TRENCH-1")
    t["outlets"].insert(0, {"kind": "orifice", "name": "low orifice", "invert_ft": 1.0, "diameter_in": 6})
    r = _run(example_data)
    assert _std(r, "retention")["status"] == FAIL and _std(r, "retention")["numbers"]["provided_cuft"] == 1980
    trench = _bmp(r, "TRENCH-1")
    tp = trench["removal"]["TP"]
    assert tp["capacity_cuft"] == 1980 and "infiltrat" in tp["capacity_basis"]
    assert tp["depth_used_in"] == pytest.approx(0.248, abs=0.0005)
    assert tp["removal_pct"] == 63.4
    row = _std(r, "removal_TP")
    trains = {t["subcatchment"]: t["removal_pct"] for t in row["numbers"]["trains"]}
    assert trains == {"P1": 76.5, "P2": 36.0}
    assert row["numbers"]["site_removal_pct"] == 64.8 and row["status"] == PASS   # 64.8 ≥ 60


def test_without_a_low_orifice_the_trench_capacity_is_unchanged(example):
    tp = _bmp(example, "TRENCH-1")["removal"]["TP"]
    assert tp["capacity_cuft"] == 11880 and tp["depth_used_in"] == pytest.approx(1.488, abs=0.0005)


# --- recharge, every HSG ---------------------------------------------------------------------------

def _all_hsg(data, hsg):
    for phase in ("pre", "post"):
        for s in data[phase]:
            for part in s["cover"]:
                part["hsg"] = hsg
    return data


@pytest.mark.parametrize("hsg, f_in", [("A", 0.60), ("B", 0.35), ("C", 0.25), ("D", 0.10)])
def test_recharge_target_depth_for_every_hydrologic_soil_group(example_data, hsg, f_in):
    """MassDEP Standard 3: Rv = F × impervious area, F = 0.60 / 0.35 / 0.25 / 0.10 in for A / B / C / D.

    Capture area adjustment: only TRENCH-1 infiltrates and it takes P1's 95,832 ft² of the site's
    135,036 ft² (70.97 %, at least the 65 % MassDEP requires), so Rv × 135,036 / 95,832:
      A: 0.60/12 × 135,036 = 6,751.8 ft³ → × 1.40909 = 9,513.9 ft³
      B: 0.35/12 × 135,036 = 3,938.55 → 5,549.7;  C: 2,813.25 → 3,964.1;  D: 1,125.3 → 1,585.6
    Provided: 11,880 ft³ below the trench's weir, drained in 12.0 h → pass in every group.
    """
    r = _run(_all_hsg(example_data, hsg))
    rec = _std(r, "recharge")
    n = rec["numbers"]
    assert n["target_depth_in_by_hsg"] == {hsg: f_in}
    assert n["required_unadjusted_cuft"] == pytest.approx(f_in / 12 * 135036, abs=0.1)
    assert n["capture_fraction"] == pytest.approx(95832 / 135036, abs=1e-4)
    assert n["required_cuft"] == pytest.approx(f_in / 12 * 135036 * 135036 / 95832, abs=0.1)
    assert rec["status"] == PASS and not rec["provisional"]


def test_recharge_with_less_than_65_percent_captured_fails(example_data):
    """Swap the outlets: P2 (39,204 ft², 29.0 % of the impervious area) → the trench, P1 → the basin.
    MassDEP allows the capture area adjustment only when at least 65 % drains to recharge BMPs."""
    subs = {s["id"]: s for s in example_data["post"]}
    subs["P1"]["to"], subs["P2"]["to"] = "BASIN-1", "TRENCH-1"
    rec = _std(_run(example_data), "recharge")
    assert rec["status"] == FAIL and "29.0 %" in rec["reason"] and "65 %" in rec["reason"]


def test_mixed_soil_groups_weight_the_target_depth(example_data):
    """P1 on HSG C, P2 on HSG A: Rv = 0.25/12 × 95,832 + 0.60/12 × 39,204 = 1,996.5 + 1,960.2 = 3,956.7 ft³,
    × 135,036 / 95,832 = 5,575.3 ft³."""
    for s in example_data["post"]:
        for part in s["cover"]:
            part["hsg"] = "C" if s["id"] == "P1" else "A"
    n = _std(_run(example_data), "recharge")["numbers"]
    assert n["required_unadjusted_cuft"] == pytest.approx(3956.7, abs=0.1)
    assert n["required_cuft"] == pytest.approx(5575.3, abs=0.1)


# --- shallow concentrated flow on a flat lot -------------------------------------------------------

def test_a_flat_parking_lot_segment_is_computed_and_flagged_not_refused(example_data):
    """P1's paved shallow segment at 0.3 % (250 ft): V = 20.3282 × 0.003^0.5 = 1.1134 ft/s,
    Tt = 250 / (3600 × 1.1134) = 0.0624 h."""
    p1 = next(s for s in example_data["post"] if s["id"] == "P1")
    p1["tc"][1]["slope"] = 0.003
    r = _run(example_data)
    seg = next(s for s in r["subcatchments"] if s["id"] == "P1")["tc_segments"][1]
    assert seg["velocity_fps"] == pytest.approx(1.113, abs=0.0005)
    assert seg["travel_time_hr"] == pytest.approx(0.0624, abs=0.0005)
    assert "0.005" in seg["flag"]
    assert any("P1" in n and "Figure 3-1" in n for n in r["notes"])


# --- rainfall for Longmeadow -----------------------------------------------------------------------

def test_a_pfds_file_far_from_the_site_is_flagged(example):
    """The example carries Mt Sunapee NH's file as a stand-in: 92.8 mi from Longmeadow's centre
    (haversine; see tests/engineering/test_rainfall.py) → § 380-11 A(2)(a) not met."""
    row = _std(example, "rainfall_location")
    assert row["status"] == FAIL and "92.8 mi" in row["provided"]
    assert row["numbers"]["pfds_latitude"] == 43.3402


def test_a_pfds_file_for_longmeadow_passes_the_location_check(example_data):
    rf = example_data["rainfall"]
    rf["pfds_csv"] = rf["pfds_csv"].replace("Latitude: 43.3402°", "Latitude: 42.0453°").replace(
        "Longitude: -72.0720°", "Longitude: -72.5661°")
    row = _std(_run(example_data), "rainfall_location")
    assert row["status"] == PASS and row["numbers"]["distance_mi"] < 5


def test_the_project_location_is_used_when_the_plan_gives_it(example_data):
    example_data["project"]["latitude"] = 43.30
    example_data["project"]["longitude"] = -72.10
    row = _std(_run(example_data), "rainfall_location")
    assert row["status"] == PASS and "project" in row["required"]


def test_typed_in_upper_bounds_cannot_be_located(example_data):
    example_data["rainfall"] = {"upper_ci_in": {2: 3.64, 10: 5.52, 100: 9.41}}
    assert _std(_run(example_data), "rainfall_location")["status"] == "not_assessable"


# --- weighted CN or pervious and impervious separately ----------------------------------------------

def test_runoff_can_be_computed_separately_per_subcatchment_and_the_choice_is_shown(example_data):
    """P1 at 50 % impervious (1.5 ac impervious, 1.5 ac open space good HSG B, CN 98 / 61), P = 3 in
    (design depths given so the numbers match the hand check of tests/engineering/test_runoff.py):
    weighted CN 79.5 → 1.22 in; separately 1.57 in."""
    example_data["rainfall"] = {"design_in": {2: 3.0, 10: 4.5, 100: 8.0}}
    p1 = next(s for s in example_data["post"] if s["id"] == "P1")
    p1["cover"] = [{"cover": "impervious", "hsg": "B", "area_acres": 1.5},
                   {"cover": "open_space_good", "hsg": "B", "area_acres": 1.5}]
    r = _run(example_data)
    row = next(s for s in r["subcatchments"] if s["id"] == "P1")
    assert row["runoff_method"] == "weighted_cn" and row["storms"]["2"]["runoff_in"] == pytest.approx(1.219, abs=0.001)
    p1["runoff_method"] = "separate"
    r2 = _run(example_data)
    row2 = next(s for s in r2["subcatchments"] if s["id"] == "P1")
    assert row2["runoff_method"] == "separate" and "separately" in row2["runoff_method_label"]
    assert row2["storms"]["2"]["runoff_in"] == pytest.approx(1.567, abs=0.001)
    parts = {p["label"]: p for p in row2["storms"]["2"]["parts"]}
    assert parts["impervious"]["runoff_in"] == pytest.approx(2.768, abs=0.001)
    assert parts["pervious"]["runoff_in"] == pytest.approx(0.365, abs=0.001)
    sub = next(s for s in r2["subcatchments"] if s["id"] == "P1")
    assert sub["storms"]["2"]["volume_cuft"] == pytest.approx(1.5667 / 12 * 3.0 * 43560, abs=2)   # 17,061 ft³


def test_separate_runoff_needs_cover_parts(example_data):
    p1 = next(s for s in example_data["post"] if s["id"] == "P1")
    p1.pop("cover")
    p1.update(cn=85, impervious_acres=2.2, hsg="B", runoff_method="separate")
    with pytest.raises(PlanError, match=r"^post\[0\]\.runoff_method:"):
        plan_from_dict(example_data)
