"""Issue 31 "Elevations, not only stages": the stage–storage–discharge table in the grading plan's datum at a
step that can be checked (≤ 0.1 ft and ≥ 20 rows), and a water level against time for each BMP and storm."""
from __future__ import annotations

import copy

import pytest
import yaml

from stormwater.review.elevations import check_stages, datum_of, level
from stormwater.review.engine import review_compute
from stormwater.review.plan import PlanError, plan_from_dict
from stormwater.review.plots import PlotNotFound
from stormwater.review.stageplots import plot_svg
from stormwater.review.present import report_view


@pytest.fixture(scope="module")
def with_datum(example_text):
    data = yaml.safe_load(example_text)
    basin = next(b for b in data["bmps"] if b["id"] == "BASIN-1")
    basin["bottom_elevation_ft"] = 212.5      # the grading plan's basin bottom
    return review_compute(plan_from_dict(copy.deepcopy(data)))


def _bmp(r, bid):
    return next(b for b in r["bmps"] if b["id"] == bid)


def test_the_check_step_is_at_most_a_tenth_of_a_foot_and_gives_at_least_20_rows():
    deep = check_stages(0.0, 5.5)
    assert len(deep) == 56 and max(b - a for a, b in zip(deep, deep[1:])) == pytest.approx(0.1)
    shallow = check_stages(0.0, 0.8)      # 8 rows at 0.1 ft: the step drops to 0.02 ft (41 rows)
    assert len(shallow) >= 20 and max(b - a for a, b in zip(shallow, shallow[1:])) <= 0.05
    assert check_stages(1.0, 1.33)[-1] == 1.33   # the top of the table is always a row


def test_the_ssd_table_has_the_plans_stages_the_outlets_and_the_check_step(with_datum):
    ssd = _bmp(with_datum, "BASIN-1")["ssd"]
    stages = [r["stage_ft"] for r in ssd["rows"]]
    assert stages == sorted(stages) and len(stages) == len(set(stages)) >= 20
    assert max(b - a for a, b in zip(stages, stages[1:])) <= 0.1 + 1e-9
    # The riser crest (3.6 ft) is an outlet row; 2.35 ft is a check-step row between the plan's 2.0 and 2.5 ft.
    riser = next(r for r in ssd["rows"] if r["stage_ft"] == 3.6)
    step = next(r for r in ssd["rows"] if r["stage_ft"] == 2.3)
    assert riser["outlet"] and not riser["from_plan"] and not step["outlet"] and not step["from_plan"]
    # storage linear between the plan's 2.0 ft (26,776 ft³) and 2.5 ft (34,438 ft³)
    assert step["storage_cuft"] == round(26776 + 0.6 * (34438 - 26776))


def test_levels_are_elevations_where_the_plan_gives_the_bottom_elevation(with_datum):
    b = _bmp(with_datum, "BASIN-1")
    assert b["datum"]["elevations"] and b["datum"]["label"] == "Elevation (ft)"
    v = next(x for x in report_view(with_datum, plot_src=lambda s, n: f"/{s}/{n}.svg")["bmps"] if x["id"] == "BASIN-1")
    assert v["ssd_rows"][0]["level"] == 212.5 and v["ssd_rows"][-1]["level"] == 218.0
    riser = next(o for o in v["outlet_list"] if o["name"] == "riser weir")
    assert riser["level"] == 216.1
    y, st = v["storm_list"][-1]
    assert st["peak_level"] == pytest.approx(212.5 + b["storms"][y]["peak_stage_ft"], abs=1e-9)
    # Without it: "stage above bottom", never an elevation it does not know.
    t = _bmp(with_datum, "TRENCH-1")["datum"]
    assert not t["elevations"] and t["label"] == "Stage above bottom (ft)" and "no bottom elevation" in t["note"]
    assert datum_of(100.0, None)["label"] == "Stage (ft, as the plan gives it)"
    assert level(2.0, datum_of(0.0, 212.5)) == 214.5


def test_a_stage_versus_time_plot_for_each_routed_bmp_and_storm(with_datum):
    v = report_view(with_datum, plot_src=lambda s, n: f"/{s}/{n}.svg")
    basin = next(x for x in v["bmps"] if x["id"] == "BASIN-1")
    assert [p["src"] for p in basin["stage_plots"]] == [f"/{y}/stage:BASIN-1.svg" for y in ("2", "10", "100")]
    svg = plot_svg(with_datum, "10", "stage:BASIN-1")
    peak = level(_bmp(with_datum, "BASIN-1")["storms"]["10"]["peak_stage_ft"], _bmp(with_datum, "BASIN-1")["datum"])
    assert svg.startswith("<?xml") and "Elevation" in svg and f"peak {peak:g} ft" in svg and "riser weir 216.1 ft" in svg
    series = with_datum["stages"]["10"]["bmps"]["BASIN-1"]
    assert max(series) == pytest.approx(_bmp(with_datum, "BASIN-1")["storms"]["10"]["peak_stage_ft"], abs=0.02)
    assert not next(x for x in v["bmps"] if x["id"] == "CB-1")["stage_plots"]   # not routed: no level
    with pytest.raises(PlotNotFound):
        plot_svg(with_datum, "10", "stage:CB-1")


def test_a_bottom_elevation_must_be_a_number(example_data):
    example_data["bmps"][1]["bottom_elevation_ft"] = "two hundred"
    with pytest.raises(PlanError, match=r"bmps\[1\]\.bottom_elevation_ft"):
        plan_from_dict(example_data)


def test_the_plan_form_carries_the_bottom_elevation(example_data):
    from stormwater.review.planform import plan_dict_from_state, state_from_plan_dict

    example_data["bmps"][1]["bottom_elevation_ft"] = 212.5
    back = plan_dict_from_state(state_from_plan_dict(example_data))
    assert plan_from_dict(back).bmps[1].bottom_elevation_ft == 212.5
