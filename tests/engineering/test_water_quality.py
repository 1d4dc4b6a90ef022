"""Ch. 380 § 380-11 D/E water-quality standards, BMP performance tables, drawdown, recharge."""
from __future__ import annotations

import math
from pathlib import Path

import pytest

from stormwater.engineering.water_quality import (
    DRAWDOWN_LIMIT_HR,
    STANDARDS,
    NotAssessable,
    ProjectType,
    bmp_removal,
    drawdown_time_hr,
    load_performance_table,
    project_type_determine,
    recharge_volume_cuft,
    required_retention_volume_cuft,
    rberost_provisional_table,
    treatment_train_removal,
)

REGULATION = Path(__file__).resolve().parents[2] / ".." / "shared" / "regulations" / "ch380-stormwater-management-rules.txt"


def test_standards_are_the_figures_of_380_11_d_and_e():
    new, redev = STANDARDS[ProjectType.NEW_DEVELOPMENT], STANDARDS[ProjectType.REDEVELOPMENT]
    assert (new.retention_depth_in, new.tss_removal_target_pct, new.tp_removal_target_pct) == (1.0, 90.0, 60.0)
    assert (redev.retention_depth_in, redev.tss_removal_target_pct, redev.tp_removal_target_pct) == (0.8, 80.0, 50.0)


def test_standards_match_the_regulation_text():
    if not REGULATION.is_file():
        pytest.skip("../shared/regulations is not present")
    text = REGULATION.read_text()
    assert "90% of the average annual load of total suspended solids (TSS)" in text
    assert "60% of the average annual load of total phosphorus (TP)" in text
    assert "80% of the average annual post-construction load of total suspended solids (TSS)" in text
    assert "50% of the average annual load of total phosphorus (TP)" in text
    assert "one inch multiplied by the total post-construction impervious surface area on the new development site" in text
    assert "0.8 inch multiplied by the total post-construction impervious surface area on the redeveloped site" in text
    assert "Multiply 0.9 by the NOAA upper confidence interval mean" in text


def test_required_retention_volume():
    # 2 acres of impervious on a new site: 1 in × 87,120 ft² = 7,260 ft³; redevelopment 0.8 in: 5,808 ft³.
    assert required_retention_volume_cuft(87120, "new_development") == pytest.approx(7260)
    assert required_retention_volume_cuft(87120, ProjectType.REDEVELOPMENT) == pytest.approx(5808)
    with pytest.raises(ValueError, match="^project_type:"):
        required_retention_volume_cuft(1000, "infill")


def test_project_type_from_the_definitions():
    assert project_type_determine(disturbance_acres=2.0, previously_developed_with_impervious=False) \
        is ProjectType.NEW_DEVELOPMENT
    assert project_type_determine(disturbance_acres=1.0, previously_developed_with_impervious=True) \
        is ProjectType.REDEVELOPMENT
    assert project_type_determine(disturbance_acres=0.6, previously_developed_with_impervious=False) is None
    assert project_type_determine(disturbance_acres=0.6, previously_developed_with_impervious=False,
                                  part_of_common_plan_disturbing_one_acre=True) is ProjectType.NEW_DEVELOPMENT


def test_treatment_train_combines_in_series():
    assert treatment_train_removal([0.5, 0.5]) == pytest.approx(0.75)
    assert treatment_train_removal([0.25, 0.8]) == pytest.approx(0.85)  # e.g. forebay then basin
    with pytest.raises(ValueError, match=r"^removals\[1\]:"):
        treatment_train_removal([0.5, 1.5])


def test_massdep_recharge_example(test_cases):
    c = test_cases["massdep_recharge_example_handbook"]
    v = recharge_volume_cuft(c["inputs"]["target_depth_in"], c["inputs"]["impervious_ac"] * 43560)
    assert v == pytest.approx(c["expected"]["Rv_ft3"], abs=0.05)
    assert v / 27 == pytest.approx(c["expected"]["Rv_yd3"], abs=0.05)


def test_northampton_recharge_volume(test_cases):
    c = test_cases["massdep_recharge_simple_dynamic_real_report"]["inputs"]
    rv = recharge_volume_cuft(c["F_D_in"], c["impervious_HSG_D_ft2"]) + recharge_volume_cuft(c["F_B_in"], c["impervious_HSG_B_ft2"])
    # The report prints Rv = 101.2 ft³ (0.1/12 × 2,303 + 0.35/12 × 2,811 = 101.18).
    assert rv == pytest.approx(test_cases["massdep_recharge_simple_dynamic_real_report"]["expected"]["Rv_ft3"], abs=0.05)


def test_drawdown_time():
    # 245 ft³ over 490 ft² at 8.27 in/hr: 0.73 h, well inside 72 h.
    assert drawdown_time_hr(245, 8.27, 490) == pytest.approx(245 / (8.27 / 12 * 490))
    assert drawdown_time_hr(7260, 0.27, 2000) > DRAWDOWN_LIMIT_HR
    with pytest.raises(ValueError, match="^infiltration_rate_in_hr:"):
        drawdown_time_hr(100, 0, 10)


OFFICIAL = """# a made-up two-curve table for the tests, not official numbers
bmp,pollutant,infiltration_rate_in_hr,storage_depth_in,removal
Infiltration Trench,TSS,0.5,0.1,40
Infiltration Trench,TSS,0.5,1.0,90
Infiltration Trench,TSS,1.0,0.1,50
Infiltration Trench,TSS,1.0,1.0,100
Wet Pond,TP,,0.5,30
Wet Pond,TP,,1.5,60
"""


def test_loaded_table_interpolates_in_depth_then_rate_and_names_itself():
    t = load_performance_table(OFFICIAL, name="test table", source_note="unit test")
    r = t.removal("infiltration_trench", "TSS", 0.55, 0.75)
    # depth 0.55: 65 % at 0.5 in/hr, 75 % at 1.0 in/hr; rate 0.75 -> 70 %.
    assert r.removal_pct == pytest.approx(70.0)
    assert (r.table, r.provisional) == ("test table", False)
    assert t.removal("Wet Pond", "TP", 1.0).removal == pytest.approx(0.45)


@pytest.mark.parametrize("args, field", [
    (("infiltration_trench", "TSS", 1.2, 0.75), "storage_depth_in"),
    (("infiltration_trench", "TSS", 0.5, 2.0), "infiltration_rate_in_hr"),
    (("infiltration_trench", "TSS", 0.5, None), "infiltration_rate_in_hr"),
    (("infiltration_trench", "BOD", 0.5, 0.5), "pollutant"),
])
def test_loaded_table_never_extrapolates(args, field):
    t = load_performance_table(OFFICIAL, name="test table", source_note="unit test")
    with pytest.raises(ValueError) as e:
        t.removal(*args)
    assert str(e.value).startswith(field + ":"), str(e.value)


def test_official_tables_take_precedence_over_the_provisional_fits():
    t = load_performance_table(OFFICIAL, name="test table", source_note="unit test")
    assert bmp_removal("infiltration_trench", "TSS", 0.55, 0.75, tables=[t]).table == "test table"
    r = bmp_removal("infiltration_trench", "TP", 0.5, 0.52, tables=[t])
    assert r.provisional and "RBEROST" in r.table


def test_tss_without_a_loaded_table_is_not_assessable():
    with pytest.raises(NotAssessable, match="^pollutant: no TSS performance table"):
        bmp_removal("infiltration_trench", "TSS", 1.0, 0.52)


def test_rberost_fits_are_evaluated_as_published_and_flagged_provisional():
    # Bioretention TP: y = 0.51933 + 0.16458 ln(x); Infiltration_Trench TP at 0.52 in/hr:
    # y = -0.03354 + 1.02578 (1 - exp(-2.95005 x)) (RBEROST UrbanBMPPerformanceCurves.csv).
    r = bmp_removal("Bioretention_Basin", "TP", 0.6)
    assert r.provisional
    assert r.removal == pytest.approx(0.5193286551448576 + 0.16457962584782956 * math.log(0.6))
    trench = bmp_removal("infiltration trench", "TP", 1.0, 0.52)
    assert trench.removal == pytest.approx(-0.03354274940463241 + 1.0257764011098538 * (1 - math.exp(-2.9500489355653143)))
    # Between rate curves the removal is linear in rate.
    lo = bmp_removal("infiltration_trench", "TP", 1.0, 0.52).removal
    hi = bmp_removal("infiltration_trench", "TP", 1.0, 1.02).removal
    assert bmp_removal("infiltration_trench", "TP", 1.0, 0.77).removal == pytest.approx((lo + hi) / 2)
    with pytest.raises(ValueError, match="^storage_depth_in:"):
        bmp_removal("Bioretention_Basin", "TP", 2.5)
    with pytest.raises(ValueError, match="^infiltration_rate_in_hr:"):
        bmp_removal("infiltration_trench", "TP", 1.0, 10.0)
    assert "gravel_wetland" in rberost_provisional_table().bmps()


def test_a_table_with_one_point_per_curve_is_refused():
    with pytest.raises(ValueError, match="^table:"):
        load_performance_table("bmp,pollutant,infiltration_rate_in_hr,storage_depth_in,removal\nX,TP,,1,0.5\n",
                               name="bad", source_note="")
