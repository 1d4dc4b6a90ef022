"""Issue 31 "Wrong today": the review's limits at the edges, each pinned on a small plan (one run well under 1 s).

The plan: E1, 2.0 ac of woods in good condition on HSG B (CN 55), Tc 0.3 h → DP1 before; P1, 1.0 ac impervious
and 1.0 ac of lawn on HSG B (CN 98 and 61, weighted 79.5), Tc 0.1 h → basin B1 → DP1 after. Design depths
typed in (2-year 3.0 in): Ia of the woods = 0.2 (1000/55 − 10) = 1.636 in, so Ia/P = 0.545.
"""
from __future__ import annotations

import copy

import pytest

from stormwater.engineering.peak import graphical_peak_discharge
from stormwater.review.engine import FAIL, PASS, review_compute
from stormwater.review.plan import plan_from_dict

SMALL = {
    "schema": "longmeadow-swmp/1",
    "project": {"name": "small", "disturbance_acres": 2.0, "previously_developed_with_impervious": False},
    "rainfall": {"storm_type": "III", "storms_years": [2], "design_in": {2: 3.0}},
    "design_points": [{"id": "DP1"}],
    "pre": [{"id": "E1", "area_acres": 2.0, "to": "DP1", "tc_hr": 0.3,
             "cover": [{"cover": "woods_good", "hsg": "B", "area_acres": 2.0}]}],
    "post": [{"id": "P1", "area_acres": 2.0, "to": "B1", "tc_hr": 0.1,
              "cover": [{"cover": "impervious", "hsg": "B", "area_acres": 1.0},
                        {"cover": "open_space_good", "hsg": "B", "area_acres": 1.0}]}],
    "bmps": [{"id": "B1", "type": "extended_dry_detention_basin", "to": "DP1",
              "stage_storage": [[0.0, 0], [1.0, 5000], [2.0, 11000], [3.0, 18000]],
              "outlets": [{"kind": "orifice", "name": "low orifice", "invert_ft": 0.0, "diameter_in": 6},
                          {"kind": "weir", "name": "spillway", "crest_ft": 2.0, "length_ft": 4, "emergency": True}]}],
}


def _plan(**changes) -> dict:
    data = copy.deepcopy(SMALL)
    for path, value in changes.items():
        node = data
        *head, last = path.split("__")
        for k in head:
            node = node[int(k)] if isinstance(node, list) else node[k]
        node[int(last) if isinstance(node, list) else last] = value
    return data


def _run(data: dict) -> dict:
    return review_compute(plan_from_dict(data))


def _std(r: dict, key: str) -> dict:
    return next(s for s in r["standards"] if s["key"] == key)


def _sub(r: dict, phase: str, sid: str) -> dict:
    return next(s for s in r["subcatchments"] if s["phase"] == phase and s["id"] == sid)


def _bmp(r: dict, bid: str) -> dict:
    return next(b for b in r["bmps"] if b["id"] == bid)


# --- 4. the graphical peak where Ia/P is clamped to Exhibit 4's limits ---------------------------------

def test_the_graphical_peak_says_when_ia_over_p_is_clamped_to_the_exhibit_4_limit():
    """Defect: the TR-55 graphical peak was shown with no note where Ia/P lies outside Exhibit 4.

    Woods, CN 55, P 3.0 in: Ia = 1.636 in, Ia/P = 0.545 > 0.50, Exhibit 4's largest; TR-55 ch. 4 has the
    limiting value used (the peak is then an upper bound). The lawn-and-pavement subcatchment, CN 79.5:
    Ia = 0.2 (1000/79.5 − 10) = 0.516 in, Ia/P = 0.172 — inside, so no note.
    """
    r = _run(_plan())
    gp = graphical_peak_discharge(drainage_area_acres=2.0, curve_number=55, tc_hr=0.3, rainfall_in=3.0,
                                  storm_type="III")
    assert gp.ia_over_p == pytest.approx(0.5455, abs=1e-4) and gp.ia_over_p_used == 0.5
    e1 = _sub(r, "pre", "E1")["storms"]["2"]
    assert e1["graphical_peak_cfs"] == pytest.approx(gp.peak_cfs, abs=0.01)
    note = e1["graphical_note"]
    assert "Ia/P 0.545" in note and "0.50" in note and "Exhibit 4" in note and "TR-55 ch. 4" in note
    assert _sub(r, "post", "P1")["storms"]["2"]["graphical_note"] == ""


def test_a_small_ia_over_p_is_clamped_to_the_smallest_and_the_note_says_so():
    """All impervious, CN 98: Ia = 0.2 (1000/98 − 10) = 0.0408 in, Ia/P = 0.0136 < 0.10, Exhibit 4's smallest."""
    data = _plan(post__0__cover=[{"cover": "impervious", "hsg": "B", "area_acres": 2.0}])
    note = _sub(_run(data), "post", "P1")["storms"]["2"]["graphical_note"]
    assert "Ia/P 0.014" in note and "0.10" in note and "smallest" in note


# --- 1. the rainfall distribution --------------------------------------------------------------------

def test_a_type_ii_distribution_is_named_as_a_finding_and_the_review_computes_on_type_iii():
    """Defect: a plan on a 24-hour Type II distribution was reviewed on Type II with no note (issue 31's
    hidden plan: 2-year pre-development peak 8.76 cfs instead of 5.88 on Type III).

    Massachusetts lies in the NRCS Type III region (TR-55 App. B, Fig. B-2). The review recomputes on
    Type III whatever the plan states, and the rainfall distribution row fails, naming Type II.
    """
    r3 = _run(_plan())
    r2 = _run(_plan(rainfall__storm_type="II"))
    row = _std(r2, "rainfall_distribution")
    assert row["status"] == FAIL
    assert "Type II" in row["provided"] and "Type III" in row["required"]
    assert any("Fig. B-2" in s for s in row["sources"])
    assert r2["rainfall"]["storm_type"] == "III" and r2["rainfall"]["storm_type_stated"] == "II"
    dp3, dp2 = r3["design_points"][0]["storms"]["2"], r2["design_points"][0]["storms"]["2"]
    assert dp2["pre_peak_cfs"] == dp3["pre_peak_cfs"] and dp2["post_peak_cfs"] == dp3["post_peak_cfs"]
    assert _std(r3, "rainfall_distribution")["status"] == PASS
    assert r2["overall"] == FAIL


# --- 2. a BMP that overtops --------------------------------------------------------------------------

def _overtopping(**outlet_extra) -> dict:
    """B1 shrunk to 1 ft and 2,000 ft³ with its 6-in orifice: the 2-year inflow (1.0 ac impervious) overtops it."""
    data = _plan(bmps__0__stage_storage=[[0.0, 0], [1.0, 2000]])
    data["bmps"][0]["outlets"] = [{"kind": "orifice", "name": "low orifice", "invert_ft": 0.0, "diameter_in": 6},
                                  *([{"kind": "weir", "name": "spillway", "crest_ft": 1.0, "emergency": True,
                                      **outlet_extra}] if outlet_extra else [])]
    return data


def test_a_bmp_that_overtops_without_a_way_over_the_top_is_not_passed_through_silently():
    """Defect: an overtopping BMP passed its inflow on unattenuated and reported it as its outflow
    (issue 31: "20.02 cfs reported is not a hydraulic result").

    Now the basin is routed until it is full; then it is held at its top and what it cannot store leaves
    over the top, a route of its own. The storm row says it overtops and when, that the peak stage
    exceeds the top, and that the outflow is not a hydraulic result; the overflow and peak rows fail.
    """
    r = _run(_overtopping())
    st = _bmp(r, "B1")["storms"]["2"]
    assert st["overtops"] is True and st["outflow_hydraulic"] is False
    assert st["peak_stage_exceeds_top"] is True and st["top_stage_ft"] == 1.0
    routes = {x["name"]: x for x in st["routes"]}
    assert set(routes) == {"low orifice", "over the top"} and routes["over the top"]["volume_cuft"] > 0
    assert routes["low orifice"]["volume_cuft"] > 0
    total = sum(x["volume_cuft"] for x in st["routes"]) + st["end_storage_cuft"] - st["start_storage_cuft"]
    assert total == pytest.approx(st["inflow_volume_cuft"], rel=0.01)
    assert "not a hydraulic result" in st["note"] and "overtops" in st["note"]
    # It fills just after the inflow peak (12.12 h), at 12.17 h: the outflow, inflow once full, peaks below it.
    assert st["inflow_peak_time_hr"] < st["overtop_time_hr"] < st["inflow_peak_time_hr"] + 0.5
    assert st["outflow_peak_cfs"] < st["inflow_peak_cfs"]
    ov = _std(r, "overflow_B1")
    assert ov["status"] == FAIL and "2-year" in ov["reason"] and "not a hydraulic result" in ov["reason"]
    peak = _std(r, "peak_DP1_2")
    assert peak["status"] == FAIL and "not a hydraulic result" in peak["reason"]


def test_a_bmp_with_a_spillway_over_its_top_is_routed_through_it_and_the_peak_stage_given():
    """With an emergency spillway at the top (10 ft, C 2.8) the water above the top leaves through it: the
    basin is extended above its table at the top area (2,000 ft³/ft, stated), the peak stage is computed
    above the top, the outflow is below the inflow and is a hydraulic result; the BMP still overtops its
    table, so the overflow row fails and names the peak stage."""
    r = _run(_overtopping(length_ft=10, coefficient=2.8))
    st = _bmp(r, "B1")["storms"]["2"]
    assert st["overtops"] is True and st["outflow_hydraulic"] is True
    assert st["peak_stage_ft"] > 1.0 and st["peak_stage_exceeds_top"] is True
    assert st["outflow_peak_cfs"] < st["inflow_peak_cfs"]
    assert {x["name"] for x in st["routes"]} == {"low orifice", "spillway"}
    assert "above the top" in st["note"]
    ov = _std(r, "overflow_B1")
    assert ov["status"] == FAIL and f"{st['peak_stage_ft']:.2f} ft" in ov["reason"]


# --- 3. one storage depth per BMP, from its stage-storage table --------------------------------------

def _infiltrating(orifice_invert_ft: float) -> dict:
    """B1 as an infiltration basin (1.0 in/hr over 4,000 ft²; 5,000 ft³ per foot, 3 ft deep) with a 6-in
    orifice at ``orifice_invert_ft`` and an emergency weir at 2.0 ft; 1.0 ac = 43,560 ft² impervious drains to it."""
    data = _plan(bmps__0__type="infiltration_basin")
    b = data["bmps"][0]
    b.update(infiltration_rate_in_hr=1.0, bottom_area_sqft=4000,
             stage_storage=[[0.0, 0], [1.0, 5000], [2.0, 10000], [3.0, 15000]])
    b["outlets"][0]["invert_ft"] = orifice_invert_ft
    return data


def test_an_orifice_at_the_bottom_gives_a_storage_depth_of_zero_not_unknown():
    """Defect: "storage depth unknown" for an orifice at the basin bottom although the table exists.

    Below an orifice at 0.0 ft the table holds 0 ft³: nothing is stored to infiltrate, so the storage
    depth is 0 / 43,560 × 12 = 0 in — known, and below the curve's smallest (the removal is not assessable
    for that reason, said as such)."""
    r = _run(_infiltrating(0.0))
    b = _bmp(r, "B1")
    assert b["storage_cuft"] == 0 and b["storage_depth_in"] == 0.0
    assert "lowest outlet (0 ft)" in b["storage_basis"]
    for pol in ("TP", "TN"):
        rem = b["removal"][pol]
        assert "unknown" not in rem["reason"], rem["reason"]
        assert rem["depth_in"] == 0.0 and "below the curve's smallest" in rem["reason"]


def test_a_bmp_carries_one_storage_depth_and_every_curve_uses_it():
    """Defect: the JSON carried two storage depths for one BMP (issue 31: 2.178 in and 0.3212 in) — the
    treatment storage below the weir beside the infiltrating storage below the orifice.

    Orifice at 0.5 ft: what infiltrates is the storage below it, 2,500 ft³; depth = 2,500 / 43,560 × 12
    = 0.6887 in. That is the BMP's one storage depth, and the depth every curve is read at."""
    r = _run(_infiltrating(0.5))
    b = _bmp(r, "B1")
    assert b["storage_cuft"] == 2500 and b["storage_depth_in"] == pytest.approx(0.6887, abs=1e-4)
    depths = {pol: rem.get("depth_in") for pol, rem in b["removal"].items() if rem.get("depth_in") is not None}
    assert depths and all(d == pytest.approx(b["storage_depth_in"], abs=1e-4) for d in depths.values()), depths
    assert "treatment_storage_cuft" not in b and "infiltration_capacity_cuft" not in b


def test_a_dry_basin_whose_only_outlet_is_a_bottom_orifice_detains_its_whole_table():
    """A basin that does not infiltrate, with only its 6-in orifice at the bottom: everything its table holds
    (18,000 ft³) drains through that orifice — its detention storage; depth 18,000 / 43,560 × 12 = 4.959 in."""
    data = _plan()
    data["bmps"][0]["outlets"] = data["bmps"][0]["outlets"][:1]
    b = _bmp(_run(data), "B1")
    assert b["storage_cuft"] == 18000 and b["storage_depth_in"] == pytest.approx(4.959, abs=1e-3)
    assert "whole table" in b["storage_basis"]


# --- how a reviewer sees it ---------------------------------------------------------------------------

def test_the_report_page_names_each_finding(client_for, personas):
    """The page of a Type II plan whose basin overtops (no spillway) and has its orifice at the bottom: the
    distribution row and the design storms name Type II, the routing table gives the peak stage as above the
    top and says the outflow is not a hydraulic result, the graphical peak carries its Ia/P note, and the
    BMP shows its one storage."""
    import json

    from django.core.files.uploadedfile import SimpleUploadedFile

    data = _overtopping()
    data["rainfall"]["storm_type"] = "II"
    c = client_for(personas["staff"])
    r = c.post("/reviews/new/", {"plan_file": SimpleUploadedFile("small.json", json.dumps(data).encode())})
    assert r.status_code == 302, r.content.decode()[:2000]
    page = c.get(r.url).content.decode()
    for part in ("Rainfall distribution (24-hour design storm)", "the plan states Type II",
                 "NRCS Type II 24-hour distribution (as stated in the plan)", "&gt; 1.0 (above the top)",
                 "not a hydraulic result", "Ia/P 0.545", "Storage (the one every curve is read at)",
                 "the whole table: its only outlet is at the bottom"):
        assert part in page, part
