"""TR-55 chapter 3: Example 3-1 (Tc = 1.53 hr) and the range limits."""
from __future__ import annotations

import pytest

from stormwater.engineering.tc import (
    ChannelFlow,
    SheetFlow,
    ShallowConcentratedFlow,
    channel_flow_travel_time_hr,
    manning_velocity_fps,
    shallow_concentrated_travel_time_hr,
    shallow_concentrated_velocity_fps,
    sheet_flow_manning_n_table,
    sheet_flow_travel_time_hr,
    time_of_concentration_hr,
)

# Worksheet 3 prints travel times to 0.01 hr and velocities to 0.01 ft/s: half a unit allowed.
HALF_HUNDREDTH = 0.005 + 1e-9


def _published(worked_examples, quantity):
    return float(next(r for r in worked_examples if r["example"] == "3-1" and r["quantity"].startswith(quantity))
                 ["published_value"])


def test_example_3_1_segment_ab_sheet_flow(worked_examples):
    n = sheet_flow_manning_n_table()["Dense grasses *2"]
    assert n == 0.24
    assert sheet_flow_travel_time_hr(n, 100, 3.6, 0.01) == pytest.approx(_published(worked_examples, "sheet"), abs=HALF_HUNDREDTH)


def test_example_3_1_segment_bc_shallow_concentrated(worked_examples):
    assert shallow_concentrated_velocity_fps(0.01, "unpaved") == pytest.approx(1.6, abs=0.05)  # read from Figure 3-1
    assert shallow_concentrated_travel_time_hr(1400, 0.01, "unpaved") == pytest.approx(
        _published(worked_examples, "shallow"), abs=HALF_HUNDREDTH)


def test_example_3_1_segment_cd_channel(worked_examples):
    assert manning_velocity_fps(27 / 28.2, 0.005, 0.05) == pytest.approx(2.05, abs=HALF_HUNDREDTH)
    assert channel_flow_travel_time_hr(7300, 27, 28.2, 0.005, 0.05) == pytest.approx(
        _published(worked_examples, "channel"), abs=HALF_HUNDREDTH)


def test_example_3_1_time_of_concentration(worked_examples):
    tc = time_of_concentration_hr([
        SheetFlow(0.24, 100, 3.6, 0.01),
        ShallowConcentratedFlow(1400, 0.01, "unpaved"),
        ChannelFlow(7300, 27, 28.2, 0.005, 0.05),
    ])
    # The worksheet sums the three rounded segment times (0.30 + 0.24 + 0.99): one hundredth allowed.
    assert tc == pytest.approx(_published(worked_examples, "time of concentration"), abs=0.01)


def test_paved_flow_is_faster_than_unpaved():
    assert shallow_concentrated_velocity_fps(0.02, "paved") == pytest.approx(20.3282 * 0.02 ** 0.5)


@pytest.mark.parametrize("call, field", [
    (lambda: sheet_flow_travel_time_hr(0.24, 301, 3.6, 0.01), "length_ft"),
    (lambda: sheet_flow_travel_time_hr(0.24, 100, 0, 0.01), "rainfall_2yr_24hr_in"),
    (lambda: sheet_flow_travel_time_hr(2.0, 100, 3.6, 0.01), "manning_n"),
    (lambda: shallow_concentrated_velocity_fps(0.0, "paved"), "slope_ft_per_ft"),
    (lambda: shallow_concentrated_velocity_fps(0.01, "gravel"), "surface"),
    (lambda: channel_flow_travel_time_hr(100, 0, 10, 0.01, 0.03), "flow_area_sqft"),
    (lambda: time_of_concentration_hr([ShallowConcentratedFlow(100, 0.01, "paved"), SheetFlow(0.24, 50, 3, 0.01)]),
     "segments[1]"),
])
def test_out_of_range_inputs_raise(call, field):
    with pytest.raises(ValueError) as e:
        call()
    assert str(e.value).startswith(field + ":"), str(e.value)


def test_a_flat_parking_lot_uses_the_figure_3_1_equation_below_its_range_and_says_so():
    """Issue 19: slope under 0.005 ft/ft refused the whole plan.

    Figure 3-1 is drawn for 0.005-0.5 ft/ft; its Appendix F equations are Manning's equation with a
    fixed n and hydraulic radius (paved: n 0.025, r 0.2 ft), which holds at any slope. Hand check,
    paved, s = 0.003 ft/ft, L = 200 ft: V = 20.3282 × 0.003^0.5 = 20.3282 × 0.054772 = 1.1134 ft/s;
    Tt = 200 / (3600 × 1.1134) = 0.0499 h.
    """
    from stormwater.engineering.tc import shallow_concentrated_outside_figure

    assert shallow_concentrated_velocity_fps(0.003, "paved") == pytest.approx(1.1134, abs=5e-5)
    assert shallow_concentrated_travel_time_hr(200, 0.003, "paved") == pytest.approx(0.0499, abs=5e-5)
    assert shallow_concentrated_outside_figure(0.003) and not shallow_concentrated_outside_figure(0.01)
    assert shallow_concentrated_outside_figure(0.6)
