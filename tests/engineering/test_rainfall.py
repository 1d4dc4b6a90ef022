"""NOAA Atlas 14 PFDS import, "NOAA plus" (Ch. 380 § 380-11 A(2)), NRCS 24-hour distributions."""
from __future__ import annotations

import pytest

from stormwater.engineering.rainfall import (
    noaa_plus_design_rainfall_in,
    noaa_plus_design_storms_in,
    nrcs_24hr_cumulative_fraction,
    nrcs_24hr_hyetograph,
    pfds_merge,
    read_pfds_csv,
)

# Mt Sunapee NH, Atlas 14 Vol. 10 v3 (the volume covering Longmeadow); 24-hr row, ARI 1..1000 yr,
# as printed in the three PFDS files (rainfall/noaa-pfds/SOURCE.md).
SUNAPEE_24HR = {
    "estimate": [2.46, 2.96, 3.77, 4.45, 5.38, 6.08, 6.82, 7.71, 9.05, 10.2],
    "upper": [3.02, 3.64, 4.66, 5.52, 6.99, 8.06, 9.41, 10.8, 13.1, 15.0],
    "lower": [1.98, 2.39, 3.03, 3.55, 4.16, 4.59, 5.01, 5.30, 5.96, 6.54],
}
ARIS = [1, 2, 5, 10, 25, 50, 100, 200, 500, 1000]


@pytest.fixture
def sunapee(reference):
    d = reference / "rainfall" / "noaa-pfds"
    return [read_pfds_csv(d / f"{k}_Depth_English_PDS_MtSunapeeNH.csv") for k in ("PF", "UCL", "LCL")]


def test_reads_the_three_pfds_variants(sunapee):
    # PF: Excel re-save (CRLF, trailing commas, zeros dropped); UCL/LCL: raw server output in ISO-8859-1.
    stats = [next(iter(p.depths_in)) for p in sunapee]
    assert stats == ["estimate", "upper", "lower"]
    for p in sunapee:
        assert p.atlas == "NOAA Atlas 14 Volume 10 Version 3"
        assert p.station == "MT SUNAPEE"
        assert p.latitude.startswith("43.3402")
        stat = next(iter(p.depths_in))
        assert [p.depth_in(duration="24-hr", ari_years=a, statistic=stat) for a in ARIS] == SUNAPEE_24HR[stat]
        assert len(p.depths_in[stat]) == 19  # 5-min ... 60-day


def test_noaa_plus_for_the_design_storms(sunapee):
    merged = pfds_merge(*sunapee)
    storms = noaa_plus_design_storms_in(merged)
    # 0.9 × upper bound: 2-yr 3.276, 10-yr 4.968, 100-yr 8.469 (SOURCE.md: "8.47 in").
    assert storms == pytest.approx({2: 3.276, 10: 4.968, 100: 8.469})


def test_noaa_plus_factor():
    assert noaa_plus_design_rainfall_in(9.41) == pytest.approx(8.469)
    with pytest.raises(ValueError, match="^upper_ci_in:"):
        noaa_plus_design_rainfall_in(0)


def test_a_missing_block_is_named(sunapee):
    with pytest.raises(ValueError, match="^statistic:"):
        sunapee[0].depth_in(ari_years=100, statistic="upper")
    with pytest.raises(ValueError, match="^ari_years:"):
        sunapee[0].depth_in(ari_years=3)
    with pytest.raises(ValueError, match="^pfds:"):
        pfds_merge(sunapee[0], sunapee[0])


def test_a_stacked_file_with_three_blocks_is_read():
    text = "\n".join([
        "Point precipitation frequency estimates (inches)", "NOAA Atlas 14 Volume 10 Version 3", "", "",
        "PRECIPITATION FREQUENCY ESTIMATES", "by duration for ARI (years):, 1,2", "24-hr:, 2.5,3.0", "",
        "PRECIPITATION FREQUENCY ESTIMATES AT UPPER BOUND OF 90% CONFIDENCE INTERVAL",
        "by duration for ARI (years):, 1,2", "24-hr:, 3.1,3.7", "",
        "PRECIPITATION FREQUENCY ESTIMATES AT LOWER BOUND OF 90% CONFIDENCE INTERVAL",
        "by duration for ARI (years):, 1,2", "24-hr:, 2.0,2.4", "",
    ])
    d = read_pfds_csv(text)
    assert d.depth_in(ari_years=2, statistic="upper") == 3.7
    assert d.depth_in(ari_years=1, statistic="lower") == 2.0


def test_rejects_files_that_are_not_pfds_depths():
    with pytest.raises(ValueError, match="^pfds:"):
        read_pfds_csv("hello,world\n")
    with pytest.raises(ValueError, match="^pfds:"):
        read_pfds_csv("Point precipitation frequency estimates (millimeters)\n")


def test_type_iii_distribution_cases(test_cases):
    for c in test_cases["type_iii_distribution"]["cases"]:
        assert nrcs_24hr_cumulative_fraction(c["t_hr"], "III") == pytest.approx(c["P_over_P24"], abs=5e-6)


def test_hyetograph_runs_from_zero_to_the_depth():
    h = nrcs_24hr_hyetograph(5.0, "III", 0.05)
    assert h[0] == (0.0, 0.0)
    assert h[-1][0] == pytest.approx(24.0) and h[-1][1] == pytest.approx(5.0)
    assert all(b[1] >= a[1] for a, b in zip(h, h[1:]))
    assert dict((round(t, 2), p) for t, p in h)[12.0] == pytest.approx(2.5)
    assert nrcs_24hr_cumulative_fraction(12.0, "II") == pytest.approx(0.663)


@pytest.mark.parametrize("call, field", [
    (lambda: nrcs_24hr_cumulative_fraction(25, "III"), "t_hr"),
    (lambda: nrcs_24hr_cumulative_fraction(5, "IV"), "storm_type"),
    (lambda: nrcs_24hr_hyetograph(5.0, "III", 0.07), "dt_hr"),
    (lambda: nrcs_24hr_hyetograph(0, "III", 0.1), "rainfall_in"),
])
def test_out_of_range_inputs_raise(call, field):
    with pytest.raises(ValueError) as e:
        call()
    assert str(e.value).startswith(field + ":"), str(e.value)


def test_the_pfds_header_gives_the_site_and_its_distance_from_longmeadow(sunapee):
    """Issue 19: any PFDS file was accepted. § 380-11 A(2)(a) asks for Atlas 14 data *for Longmeadow*.

    Hand check (haversine, R = 3,958.8 mi), Longmeadow (42.05° N, 72.583° W) to Mt Sunapee NH
    (43.3402° N, 72.0720° W): Δφ = 1.2902° = 0.022518 rad, Δλ = 0.511° = 0.008919 rad;
    a = sin²(Δφ/2) + cos 42.05° cos 43.3402° sin²(Δλ/2) = 1.2677e-4 + 0.74279 × 0.72723 × 1.9886e-5
      = 1.3751e-4; d = 2 R asin(√a) = 2 × 3,958.8 × 0.011727 = 92.8 mi.
    """
    from stormwater.engineering.rainfall import great_circle_distance_mi, pfds_site_coordinates

    for p in sunapee:  # the degree sign in ISO-8859-1, in UTF-8, and after an Excel re-save
        assert pfds_site_coordinates(p) == (43.3402, -72.072)
    assert great_circle_distance_mi(42.05, -72.583, 43.3402, -72.072) == pytest.approx(92.8, abs=0.05)
    newer = read_pfds_csv("Point precipitation frequency estimates (inches)\nNOAA Atlas 14 Volume 10 Version 3\n"
                          "Latitude: 42.0453 Degree\nLongitude: -72.5661 Degree\n\n"
                          "PRECIPITATION FREQUENCY ESTIMATES\nby duration for ARI (years):, 2\n24-hr:, 3.2\n")
    assert pfds_site_coordinates(newer) == (42.0453, -72.5661)
    assert pfds_site_coordinates(read_pfds_csv("Point precipitation frequency estimates (inches)\nx\n\n"
                                               "PRECIPITATION FREQUENCY ESTIMATES\nby duration for ARI (years):, 2\n"
                                               "24-hr:, 3.2\n")) is None
