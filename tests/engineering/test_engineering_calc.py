"""The engineering calculator contract (issue 7): JSON in, JSON out, the field named in every error."""
from __future__ import annotations

import json

import pytest

from stormwater.engineering.calc import CalcInputError, calc_bmp, calc_noaa_plus, calc_peak, calc_retention, calc_runoff


def _json_ready(d: dict) -> dict:
    return json.loads(json.dumps(d))


def test_calc_runoff():
    out = calc_runoff({"curve_number": 75, "rainfall_in": 6.0})
    assert _json_ready(out) == out
    assert out["runoff_in"] == 3.282 and out["initial_abstraction_in"] == 0.667 and out["s_in"] == 3.333


def test_calc_retention():
    out = calc_retention({"project_type": "redevelopment", "impervious_sqft": 87120})
    assert out["retention_depth_in"] == 0.8 and out["required_retention_cuft"] == 5808.0
    assert out["tss_removal_target_pct"] == 80.0 and out["tp_removal_target_pct"] == 50.0
    new = calc_retention({"project_type": "new_development", "impervious_sqft": "43560"})
    assert (new["retention_depth_in"], new["required_retention_cuft"]) == (1.0, 3630.0)
    assert (new["tss_removal_target_pct"], new["tp_removal_target_pct"]) == (90.0, 60.0)


def test_calc_noaa_plus():
    assert calc_noaa_plus({"upper_ci_in": 9.41})["design_rainfall_in"] == 8.47


def test_calc_peak_reproduces_example_4_1_with_type_ii():
    out = calc_peak({"drainage_area_acres": 250, "curve_number": 75, "tc_hr": 1.53, "rainfall_in": 6.0,
                     "storm_type": "II", "pond_swamp_pct": 0})
    assert out["peak_cfs"] == pytest.approx(345, abs=1)
    assert out["runoff_in"] == 3.282 and out["ia_over_p"] == 0.111
    assert out["unit_peak_csm_in"] == pytest.approx(270, rel=0.01)
    assert calc_peak({"drainage_area_acres": 5, "curve_number": 90, "tc_hr": 0.1, "rainfall_in": 4.97})["storm_type"] == "III"


def test_calc_bmp():
    out = calc_bmp({"bmp": "infiltration_trench", "storage_depth_in": 1.0, "infiltration_rate_in_hr": 0.52,
                    "pollutant": "TP"})
    assert out["removal_pct"] == 93.9 and out["provisional"] is True and "RBEROST" in out["table"]
    assert calc_bmp({"bmp": "bioretention_basin", "storage_depth_in": 0.6, "pollutant": "TN"})["removal_pct"] == 27.5


@pytest.mark.parametrize("fn, payload, field", [
    (calc_runoff, {"curve_number": 120, "rainfall_in": 3}, "curve_number: must be between 30 and 100"),
    (calc_runoff, {"curve_number": 80}, "rainfall_in: required"),
    (calc_runoff, {"curve_number": 80, "rainfall_in": 3, "area": 1}, "area: unknown field"),
    (calc_runoff, {"curve_number": True, "rainfall_in": 3}, "curve_number: must be a number"),
    (calc_runoff, {"curve_number": "abc", "rainfall_in": 3}, "curve_number:"),
    (calc_runoff, [1, 2], "input:"),
    (calc_retention, {"project_type": "infill", "impervious_sqft": 10}, "project_type:"),
    (calc_retention, {"project_type": "new_development", "impervious_sqft": -1}, "impervious_sqft:"),
    (calc_noaa_plus, {"upper_ci_in": 0}, "upper_ci_in:"),
    (calc_noaa_plus, {}, "upper_ci_in: required"),
    (calc_peak, {"drainage_area_acres": 5, "curve_number": 80, "tc_hr": 0.05, "rainfall_in": 3}, "tc_hr:"),
    (calc_peak, {"drainage_area_acres": 5, "curve_number": 80, "tc_hr": 0.2, "rainfall_in": 3, "storm_type": "I"},
     "storm_type:"),
    (calc_peak, {"drainage_area_acres": 5, "curve_number": 80, "tc_hr": 0.2, "rainfall_in": 3, "pond_swamp_pct": 7},
     "pond_swamp_pct:"),
    (calc_bmp, {"bmp": "infiltration_trench", "storage_depth_in": 1.0, "infiltration_rate_in_hr": 0.52,
                "pollutant": "TSS"}, "pollutant: no TSS performance table"),
    (calc_bmp, {"bmp": "infiltration_trench", "storage_depth_in": 3.0, "infiltration_rate_in_hr": 0.52,
                "pollutant": "TP"}, "storage_depth_in:"),
    (calc_bmp, {"bmp": "infiltration_trench", "storage_depth_in": 1.0, "infiltration_rate_in_hr": 20,
                "pollutant": "TP"}, "infiltration_rate_in_hr:"),
    (calc_bmp, {"bmp": "rain_barrel", "storage_depth_in": 1.0, "pollutant": "TP"}, "bmp:"),
    (calc_bmp, {"bmp": "wet_pond", "storage_depth_in": 1.0, "pollutant": "BOD"}, "pollutant:"),
])
def test_errors_start_with_the_field_name(fn, payload, field):
    with pytest.raises(CalcInputError) as e:
        fn(payload)
    assert str(e.value).startswith(field), str(e.value)
    assert isinstance(e.value, ValueError)
