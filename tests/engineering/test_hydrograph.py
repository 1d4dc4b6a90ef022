"""NRCS unit-hydrograph convolution (NEH 630 ch. 16) on the type III 24-hour storm."""
from __future__ import annotations

import pytest

from stormwater.engineering.hydrograph import (
    hydrograph_sum,
    nrcs_unit_hydrograph_cfs_per_in,
    scs_unit_hydrograph_runoff,
    unit_hydrograph_time_step_hr,
)
from stormwater.engineering.peak import graphical_peak_discharge
from stormwater.engineering.runoff import runoff_depth_in


def test_unit_hydrograph_holds_one_inch_and_peaks_near_484_a_over_tp():
    area_mi2, tc, dt = 0.5, 1.0, 0.1
    uh = nrcs_unit_hydrograph_cfs_per_in(area_mi2, tc, dt)
    assert sum(uh) * dt * 3600 == pytest.approx(area_mi2 * 27878400 / 12)
    tp = dt / 2 + 0.6 * tc
    # The volume rescaling of Table 16-1's rounded ratios moves the peak by about 1 %.
    assert max(uh) == pytest.approx(484 * area_mi2 / tp, rel=0.02)
    assert uh.index(max(uh)) * dt == pytest.approx(tp, abs=dt)


@pytest.mark.parametrize("area_ac, cn, tc, p", [(5, 90, 0.1, 3.3), (5, 70, 0.3, 8.5), (250, 75, 1.53, 6.0),
                                                (640, 70, 2.0, 5.0)])
def test_runoff_volume_equals_q_times_area(area_ac, cn, tc, p):
    h = scs_unit_hydrograph_runoff(drainage_area_acres=area_ac, curve_number=cn, tc_hr=tc, rainfall_in=p)
    assert h.volume_cuft == pytest.approx(runoff_depth_in(p, cn) / 12 * area_ac * 43560, rel=1e-9)
    assert h.flows_cfs[0] == 0.0 and h.flows_cfs[-1] == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("area_ac, cn, tc, p", [(5, 90, 0.1, 3.3), (5, 70, 0.3, 8.5), (250, 75, 1.53, 6.0),
                                                (640, 70, 2.0, 5.0), (20, 80, 0.5, 4.97)])
def test_type_iii_peak_agrees_with_the_graphical_method(area_ac, cn, tc, p):
    # Not an oracle: Exhibit 4 was itself derived from TR-20 unit-hydrograph runs on the same storm,
    # so the two should agree to within the graphical method's fit (TR-55 App. F) and the time step.
    # Observed within 4 %; allowed 8 %.
    h = scs_unit_hydrograph_runoff(drainage_area_acres=area_ac, curve_number=cn, tc_hr=tc, rainfall_in=p)
    g = graphical_peak_discharge(drainage_area_acres=area_ac, curve_number=cn, tc_hr=tc, rainfall_in=p)
    assert h.peak_cfs == pytest.approx(g.peak_cfs, rel=0.08)
    assert 12.0 <= h.peak_time_hr <= 12.0 + tc + 0.5


def test_time_step_follows_neh_guidance():
    assert unit_hydrograph_time_step_hr(1.0) == 0.1
    assert unit_hydrograph_time_step_hr(0.1) == 0.01
    with pytest.raises(ValueError, match="^tc_hr:"):
        unit_hydrograph_time_step_hr(0.01)


def test_hydrographs_at_one_step_add():
    a = scs_unit_hydrograph_runoff(drainage_area_acres=2, curve_number=98, tc_hr=0.1, rainfall_in=4.97, dt_hr=0.01)
    b = scs_unit_hydrograph_runoff(drainage_area_acres=3, curve_number=74, tc_hr=0.2, rainfall_in=4.97, dt_hr=0.01)
    s = hydrograph_sum(a, b)
    assert s.volume_cuft == pytest.approx(a.volume_cuft + b.volume_cuft)
    with pytest.raises(ValueError, match="^hydrographs:"):
        hydrograph_sum(a, scs_unit_hydrograph_runoff(drainage_area_acres=3, curve_number=74, tc_hr=0.2, rainfall_in=4.97))


@pytest.mark.parametrize("kwargs, field", [
    ({"tc_hr": 0.05}, "tc_hr"),
    ({"drainage_area_acres": -1}, "drainage_area_acres"),
    ({"curve_number": 20}, "curve_number"),
    ({"dt_hr": 0.07}, "dt_hr"),
    ({"storm_type": "IV"}, "storm_type"),
])
def test_out_of_range_inputs_raise(kwargs, field):
    args = {"drainage_area_acres": 5, "curve_number": 80, "tc_hr": 0.5, "rainfall_in": 4.0} | kwargs
    with pytest.raises(ValueError) as e:
        scs_unit_hydrograph_runoff(**args)
    assert str(e.value).startswith(field + ":"), str(e.value)


def test_the_convolution_puts_the_response_at_the_start_of_the_excess_step():
    """Issue 19: peak times were one step late.

    Hand check: an excess of 1 in during the second step (0.1-0.2 h) convolved with the unit
    hydrograph [0, 2, 4, 2, 0] cfs/in (ordinates at 0, 0.1, … 0.4 h after the excess begins) gives
    [0, 0, 2, 4, 2, 0] cfs: the peak (4 cfs) at 0.1 + 0.2 = 0.3 h, index 3 -- not index 4.
    """
    from stormwater.engineering.hydrograph import unit_hydrograph_convolve

    assert unit_hydrograph_convolve([0.0, 1.0], [0.0, 2.0, 4.0, 2.0, 0.0]) == [0.0, 0.0, 2.0, 4.0, 2.0, 0.0]


def test_the_first_runoff_step_responds_one_step_after_the_storm_starts():
    """With CN 100 every drop runs off, so the first step's excess e0 = P × F(0.1 h) exists at once;
    its response one step later is e0 × u1 (u1 the unit hydrograph ordinate at ΔD). Today's
    indexing left flows[1] at zero and moved everything one step late."""
    from stormwater.engineering.hydrograph import incremental_runoff_in

    h = scs_unit_hydrograph_runoff(drainage_area_acres=640, curve_number=100, tc_hr=1.0, rainfall_in=5.0, dt_hr=0.1)
    e0 = incremental_runoff_in(5.0, 100, "III", 0.1)[0]
    uh = nrcs_unit_hydrograph_cfs_per_in(1.0, 1.0, 0.1)
    assert e0 > 0
    assert h.flows_cfs[1] == pytest.approx(e0 * uh[1])
