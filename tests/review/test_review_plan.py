"""Plan files are checked before anything is computed; each message starts with the field's path."""
from __future__ import annotations

import pytest

from stormwater.review.plan import PlanError, plan_from_dict, plan_parse


def _err(data) -> str:
    with pytest.raises(PlanError) as e:
        plan_from_dict(data)
    return str(e.value)


def test_the_example_parses(example_text):
    plan, data, fmt = plan_parse(example_text)
    assert plan.project.name.startswith("Longmeadow Commons")
    assert [s.id for s in plan.pre] == ["E1", "E2"] and [s.id for s in plan.post] == ["P1", "P2"]
    assert [b.id for b in plan.bmps] == ["TRENCH-1", "BASIN-1", "CB-1", "SEP-1"]
    assert plan.massdep.statement("std9_om_plan").answer == "yes"
    assert plan.rainfall.storms_years == (2, 10, 100) and len(plan.rainfall.pfds_csv) == 1


@pytest.mark.parametrize("text,message", [
    ("", "file: empty"),
    ("{not json", "file: not valid JSON"),
    ("a: [1, 2", "file: not valid YAML"),
    ("- 1\n- 2\n", "file: expected a mapping"),
])
def test_unreadable_files_say_so(text, message):
    with pytest.raises(PlanError, match=message):
        plan_parse(text)


def test_unknown_fields_are_refused_with_their_path(example_data):
    example_data["post"][1]["cover"][0]["colour"] = "grey"
    assert _err(example_data).startswith("post[1].cover[0].colour: unknown field")


def test_a_bad_hsg_names_its_path(example_data):
    example_data["pre"][0]["cover"][0]["hsg"] = "E"
    assert _err(example_data).startswith("pre[0].cover[0].hsg: must be A, B, C or D")


def test_an_unknown_cover_names_the_row_keys(example_data):
    example_data["pre"][0]["cover"][0]["cover"] = "forest"
    assert "not a TR-55 Table 2-2 row key" in _err(example_data)


def test_cover_parts_must_add_up_to_the_area(example_data):
    example_data["post"][0]["area_acres"] = 3.5
    assert _err(example_data).startswith("post[0].cover: the parts add up to 3 acres")


def test_flows_must_reach_a_design_point_or_a_bmp(example_data):
    example_data["post"][0]["to"] = "NOWHERE"
    assert _err(example_data).startswith("post[0].to: 'NOWHERE' is neither")
    example_data["post"][0]["to"] = "TRENCH-1"
    example_data["pre"][0]["to"] = "TRENCH-1"
    assert _err(example_data).startswith("pre[0].to: 'TRENCH-1' is not a design point")


def test_bmp_loops_are_refused(example_data):
    example_data["bmps"][1]["to"] = "TRENCH-1"
    assert "is in a loop" in _err(example_data)


def test_exactly_one_rainfall_source(example_data):
    example_data["rainfall"]["design_in"] = {2: 3.3, 10: 5.0, 100: 8.5}
    assert _err(example_data).startswith("rainfall: give exactly one of")


def test_storage_must_increase_and_outlets_lie_in_the_table(example_data):
    example_data["bmps"][1]["stage_storage"][3] = [1.5, 100]
    assert _err(example_data).startswith("bmps[1].stage_storage[3]: stage and storage must both increase")


def test_an_outlet_above_the_table_is_refused(example_data):
    example_data["bmps"][1]["outlets"][3]["crest_ft"] = 9.0
    assert "outside the stage-storage table" in _err(example_data)


def test_sheet_flow_only_first(example_data):
    segs = example_data["pre"][0]["tc"]
    segs.reverse()
    assert _err(example_data).startswith("pre[0].tc[1]: sheet flow can only be the first segment")


def test_an_infiltrating_bmp_needs_rate_and_area(example_data):
    del example_data["bmps"][0]["bottom_area_sqft"]
    assert "needs both infiltration_rate_in_hr and bottom_area_sqft" in _err(example_data)
