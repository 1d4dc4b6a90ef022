"""Issue 31: the review report beside the applicant's HydroCAD/SWMM figures — peak, volume and peak elevation
per node and storm, typed on a form or imported as CSV, with the differences flagged beyond a tolerance."""
from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from stormwater.review.compare import (CSV_COLUMNS, FiguresRefused, Tolerances, compare, figures_from_csv,
                                       nodes_of)
from stormwater.review.models import ApplicantFigures
from stormwater.review.services import review_run

# A stored review's results, cut down to what the comparison reads.
RESULTS = {
    "rainfall": {"storms": [{"ari_years": 2}, {"ari_years": 10}]},
    "subcatchments": [{"phase": "pre", "id": "E1", "storms": {"2": {"peak_cfs": 4.0, "volume_cuft": 10000},
                                                               "10": {"peak_cfs": 9.0, "volume_cuft": 25000}}},
                      {"phase": "post", "id": "P1", "storms": {"2": {"peak_cfs": 6.0, "volume_cuft": 15000},
                                                                "10": {"peak_cfs": 12.0, "volume_cuft": 32000}}}],
    "bmps": [{"id": "BASIN-1", "routed": True, "datum": {"offset_ft": 212.5, "label": "Elevation (ft)", "elevations": True,
                                                         "note": ""},
              "storms": {"2": {"outflow_peak_cfs": 1.0, "outflow_volume_cuft": 14000, "peak_stage_ft": 1.5},
                         "10": {"outflow_peak_cfs": 3.2, "outflow_volume_cuft": 30000, "peak_stage_ft": 3.0}}},
             {"id": "CB-1", "routed": False, "storms": {"2": {"outflow_peak_cfs": 2.0, "inflow_volume_cuft": 5000}}}],
    "design_points": [{"id": "DP1", "storms": {"2": {"pre_peak_cfs": 4.0, "pre_volume_cuft": 10000, "post_peak_cfs": 3.5,
                                                     "post_volume_cuft": 14500}}}],
}


def _cells(cmp, node, storm):
    row = next(r for r in cmp["rows"] if r["node"] == node and r["storm"] == storm)
    return {c["what"].split(":")[0]: c for c in row["cells"]}


def test_a_difference_beyond_the_tolerance_is_flagged_and_one_within_is_not():
    rows = [{"node": "BASIN-1", "storm": "10", "peak_cfs": 3.3, "volume_cf": 32000.0, "peak_elev_ft": 215.55},
            {"node": "DP1", "storm": "2", "peak_cfs": 3.7, "volume_cf": None, "peak_elev_ft": None}]
    cmp = compare(RESULTS, rows, Tolerances())
    c = _cells(cmp, "BASIN-1", "10")
    # 3.3 vs 3.2 cfs: +3.1 % (within 5 %); 32,000 vs 30,000 ft³: +6.7 % (beyond); 215.55 vs 212.5 + 3.0 ft: +0.05 ft.
    assert (c["Peak (cfs)"]["diff_pct"], c["Peak (cfs)"]["flagged"]) == (3.1, False)
    assert (c["Volume (ft³)"]["diff"], c["Volume (ft³)"]["diff_pct"], c["Volume (ft³)"]["flagged"]) == (2000, 6.7, True)
    assert c["Peak level"]["review"] == 215.5 and c["Peak level"]["diff"] == 0.05 and not c["Peak level"]["flagged"]
    d = _cells(cmp, "DP1", "2")
    assert d["Peak (cfs)"]["diff_pct"] == 5.7 and d["Peak (cfs)"]["flagged"]       # 3.7 vs 3.5 cfs
    assert d["Volume (ft³)"]["diff"] is None and not d["Volume (ft³)"]["flagged"]  # not given: not compared
    assert cmp["flagged"] == 2
    # The tolerance is configurable: at 10 % the design point's peak is within, at 0.01 ft the level is not.
    loose = compare(RESULTS, rows, Tolerances(peak_pct=10.0, volume_pct=10.0, elev_ft=0.01))
    assert not _cells(loose, "DP1", "2")["Peak (cfs)"]["flagged"] and _cells(loose, "BASIN-1", "10")["Peak level"]["flagged"]


def test_the_csv_import_reads_the_fixed_columns():
    text = ("node,storm,peak_cfs,volume_cf,peak_elev_ft\n# HydroCAD 10.20 node listing\n"
            "E1,2-year,4.10,10200,\npost:P1,10,12.5,\"32,100\",\nBASIN-1,10yr,3.25,30500,215.61\npre:DP1,2,4.0,,\n")
    rows = figures_from_csv(text, RESULTS)
    assert [(r["node"], r["storm"]) for r in rows] == [("pre:E1", "2"), ("post:P1", "10"), ("BASIN-1", "10"),
                                                       ("pre:DP1", "2")]
    assert rows[1]["volume_cf"] == 32100 and rows[2]["peak_elev_ft"] == 215.61 and rows[3]["volume_cf"] is None
    assert ",".join(CSV_COLUMNS) == "node,storm,peak_cfs,volume_cf,peak_elev_ft"


def test_refused_csv_rows_name_the_line_and_the_field():
    text = ("node,storm,peak_cfs,volume_cf,peak_elev_ft\nBASIN-1,10,abc,30500,215.6\nPOND-9,10,1,1,\n"
            "BASIN-1,25,1,1,\nCB-1,2,2.0,5000,101.2\nDP1,2,-1,,\nDP1,2,3.5,\n")
    with pytest.raises(FiguresRefused) as e:
        figures_from_csv(text, RESULTS)
    got = {(w, f) for w, f, _m in e.value.problems}
    assert got == {("line 2", "peak_cfs"), ("line 3", "node"), ("line 4", "storm"), ("line 5", "peak_elev_ft"),
                   ("line 6", "peak_cfs"), ("line 7", "")}
    assert "“abc” is not a number" in str(e.value) and "CB-1" in str(e.value)
    with pytest.raises(FiguresRefused, match="the header must be node,storm,peak_cfs,volume_cf,peak_elev_ft"):
        figures_from_csv("node,storm,peak\nDP1,2,3\n", RESULTS)


def test_every_node_is_offered_with_the_reviews_numbers():
    nodes = {n["key"]: n for n in nodes_of(RESULTS)}
    assert list(nodes) == ["pre:E1", "post:P1", "BASIN-1", "CB-1", "DP1", "pre:DP1"]
    assert nodes["BASIN-1"]["storms"]["2"] == {"peak_cfs": 1.0, "volume_cf": 14000, "peak_elev_ft": 214.0}
    assert not nodes["CB-1"]["has_elev"] and nodes["CB-1"]["storms"]["2"]["volume_cf"] == 5000


@pytest.fixture
def review(personas, example_text):
    return review_run(input_text=example_text, input_name="commercial-5-acre.yaml", acting_user=personas["staff"])


@pytest.mark.django_db
def test_the_form_keeps_the_figures_and_the_report_shows_them_flagged(client_for, personas, review):
    c = client_for(personas["staff"])
    url = f"/reviews/{review.pk}/applicant/"
    page = c.get(url)
    assert page.status_code == 200
    html = page.content.decode()
    assert "BASIN-1" in html and "Peak level: Stage above bottom (ft)" in html and 'inputmode="decimal"' in html
    storms = [str(s["ari_years"]) for s in review.results["rainfall"]["storms"]]
    keys = [(n["key"], y) for n in nodes_of(review.results) for y in storms]
    i = keys.index(("BASIN-1", "10"))
    basin = next(b for b in review.results["bmps"] if b["id"] == "BASIN-1")["storms"]["10"]
    # A refused field names itself and keeps nothing.
    bad = c.post(url, {"kind": "form", f"n{i}-peak_cfs": "lots", f"n{i}-volume_cf": "1000"})
    assert bad.status_code == 400 and ApplicantFigures.objects.count() == 0
    assert "BMP BASIN-1 (outflow, peak level), 10-year, Peak (cfs): “lots” is not a number" in bad.content.decode()
    assert 'value="1000"' in bad.content.decode()   # what was typed stays
    ok = c.post(url, {"kind": "form", "peak_tol_pct": "5", f"n{i}-peak_cfs": f"{basin['outflow_peak_cfs'] * 1.02:.2f}",
                      f"n{i}-volume_cf": str(round(basin["outflow_volume_cuft"] * 1.2)),
                      f"n{i}-peak_elev_ft": str(basin["peak_stage_ft"])})
    assert ok.status_code == 302 and ok.url.endswith("#rv-applicant")
    figs = ApplicantFigures.objects.get()
    assert figs.source == "form" and figs.rows == [{"node": "BASIN-1", "storm": "10", "peak_cfs": pytest.approx(
        basin["outflow_peak_cfs"] * 1.02, abs=0.006), "volume_cf": round(basin["outflow_volume_cuft"] * 1.2),
        "peak_elev_ft": basin["peak_stage_ft"]}]
    report = c.get(f"/reviews/{review.pk}/").content.decode()
    assert "The applicant’s figures beside the review" in report or "The applicant's figures beside the review" in report
    assert report.count("rv-badge rv-fail\">Flagged</span> beyond ± 5 %") == 1   # the volume (+20 %), not the peak
    assert "within ± 5 %" in report and "within ± 0.1 ft" in report and "1 figure flagged" in report
    # The form opens again with what was kept.
    again = c.get(url).content.decode()
    assert f'name="n{i}-volume_cf" value="{round(basin["outflow_volume_cuft"] * 1.2)}"' in again


@pytest.mark.django_db
def test_a_refused_csv_names_line_and_field_and_applies_nothing(client_for, personas, review):
    c = client_for(personas["staff"])
    url = f"/reviews/{review.pk}/applicant/"
    text = "node,storm,peak_cfs,volume_cf,peak_elev_ft\nDP1,10,5.0,20000,\nBASIN-1,10,x,,\n"
    r = c.post(url, {"kind": "csv", "csv_file": SimpleUploadedFile("hydrocad.csv", text.encode())})
    assert r.status_code == 400 and ApplicantFigures.objects.count() == 0
    assert "line 3, field peak_cfs: “x” is not a number" in r.content.decode()
    good = "node,storm,peak_cfs,volume_cf,peak_elev_ft\nDP1,10,5.0,20000,\n"
    r = c.post(url, {"kind": "csv", "csv_file": SimpleUploadedFile("hydrocad.csv", good.encode())})
    assert r.status_code == 302
    figs = ApplicantFigures.objects.get()
    assert figs.source == "csv" and figs.file_name == "hydrocad.csv" and figs.rows[0]["node"] == "DP1"
    assert "hydrocad.csv" in c.get(f"/reviews/{review.pk}/").content.decode()
