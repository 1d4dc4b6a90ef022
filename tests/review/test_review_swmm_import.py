"""Issue 19: an applicant's EPA SWMM 5 model of a small site imports, is re-run with SWMM on the review's
design storms, and is compared node by node in the report."""
from __future__ import annotations

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from stormwater.review.engine import review_compute
from stormwater.review.models import Review
from stormwater.review.plan import plan_from_dict
from stormwater.review.swmm import SwmmInputError, compare, plan_from_inp

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
POST = (EXAMPLES / "swmm" / "small-site-post.inp").read_text()
PRE = (EXAMPLES / "swmm" / "small-site-pre.inp").read_text()


def _rainfall(example_data):
    return example_data["rainfall"]


def test_the_small_site_converts_into_a_plan(example_data):
    """POND1's TABULAR curve (0/1/2/3/4 ft: 4,200/5,100/6,050/7,050/8,100 ft²) integrates by the trapezoid
    rule: 1 ft → (4,200 + 5,100)/2 = 4,650 ft³; 4 ft → 4,650 + 5,575 + 6,550 + 7,575 = 24,350 ft³.
    S1: 2.0 ac at 65 % impervious → 1.3 ac CN 98 and 0.7 ac CN 61, computed separately (as SWMM does);
    flow length 2.0 × 43,560 / 400 = 217.8 ft of sheet flow, each subarea at its own n (issue 31: not one
    area-weighted 0.0603): pervious 0.15, impervious 0.012. HSG B: the pervious CN 61 is TR-55 open space (good)
    on B."""
    plan, notes = plan_from_inp(POST, pre_text=PRE, name="small-site-post.inp")
    pond = plan["bmps"][0]
    assert pond["id"] == "POND1" and pond["to"] == "OF1"
    ss = dict((a, b) for a, b in pond["stage_storage"])
    assert ss[1.0] == pytest.approx(4650, abs=0.5) and ss[4.0] == pytest.approx(24350, abs=0.5)
    assert [(o["kind"], o["name"]) for o in pond["outlets"]] == [("orifice", "OR1"), ("weir", "W1"), ("weir", "W2")]
    assert pond["outlets"][0]["diameter_in"] == 6.0 and pond["outlets"][1]["crest_ft"] == 2.6
    s1 = plan["post"][0]
    assert s1["runoff_method"] == "separate" and s1["cover"] == [
        {"cn": 98, "area_acres": 1.3, "impervious": True, "hsg": "B"}, {"cn": 61.0, "area_acres": 0.7, "hsg": "B"}]
    assert s1["tc"] == [{"flow": "sheet", "manning_n": 0.15, "length_ft": 217.8, "slope": 0.015}]
    assert s1["impervious_tc"] == [{"flow": "sheet", "manning_n": 0.012, "length_ft": 217.8, "slope": 0.015}]
    assert [s["id"] for s in plan["pre"]] == ["E1"] and plan["design_points"] == [{"id": "OF1", "description": "SWMM outfall"}]
    assert any("emergency" in n for n in notes)
    plan["project"] = {"name": "small site", "disturbance_acres": 2.6, "previously_developed_with_impervious": False}
    plan["rainfall"] = _rainfall(example_data)
    plan_from_dict(plan)  # a valid plan


def test_models_the_review_cannot_read_are_refused_with_the_reason():
    with pytest.raises(SwmmInputError, match="PHILIP"):  # Horton and Green-Ampt are read since issue 31
        plan_from_inp(POST.replace("INFILTRATION         CURVE_NUMBER", "INFILTRATION PHILIP"))
    with pytest.raises(SwmmInputError, match="CFS"):
        plan_from_inp(POST.replace("FLOW_UNITS           CFS", "FLOW_UNITS CMS"))
    with pytest.raises(SwmmInputError, match="SUBCATCHMENTS"):
        plan_from_inp("[TITLE]\nnothing\n")


def test_swmm_re_runs_the_model_on_the_design_storms_and_the_report_compares(example_data):
    plan, _ = plan_from_inp(POST, pre_text=PRE, name="small-site")
    plan["project"] = {"name": "small site", "disturbance_acres": 2.6, "previously_developed_with_impervious": False}
    plan["rainfall"] = _rainfall(example_data)
    r = review_compute(plan_from_dict(plan), swmm_compare=compare)
    sw = r["swmm"]
    assert "error" not in sw and sw["engine"].startswith("EPA SWMM") and sw["has_pre"]
    assert set(sw["storms"]) == {"2", "10", "100"}
    rows = {(x["node"], x["what"]): x for x in sw["storms"]["100"]["rows"]}
    for key in (("post S1", "subcatchment runoff"), ("POND1", "storage outflow"), ("POND1", "storage peak depth (ft)"),
                ("OF1", "post-development outfall"), ("OF1", "pre-development outfall"), ("pre E1", "subcatchment runoff")):
        assert key in rows, key
    s1 = rows[("post S1", "subcatchment runoff")]
    # The same storm through both: volumes within a third (SWMM: no Ia on the pervious part, depression
    # storage on both), peaks of the same order; the reasons are listed on the report.
    assert s1["volume_ratio"] == pytest.approx(1.0, abs=0.35) and 0.5 < s1["ratio"] < 2.0
    assert {d["topic"] for d in sw["differences"]} >= {"Initial abstraction", "Overland flow", "Conveyance"}
    assert sw["as_submitted"]["outfall_peaks"]["OF1"]["value"] > 0


def test_the_import_page_runs_the_review_and_shows_the_comparison(client_for, personas, example_data):
    c = client_for(personas["staff"])
    pfds = example_data["rainfall"]["pfds_csv"].encode("latin-1", "replace")
    r = c.post("/reviews/import/swmm/", {"post_file": SimpleUploadedFile("small-site-post.inp", POST.encode()),
                                         "pre_file": SimpleUploadedFile("small-site-pre.inp", PRE.encode()),
                                         "pfds_file": SimpleUploadedFile("UCL.csv", pfds)})
    assert r.status_code == 302, r.content.decode()[:3000]
    review = Review.objects.get()
    assert review.results["swmm"]["storms"]["10"]["rows"]
    page = c.get(r.url).content.decode()
    assert "EPA SWMM model, re-run" in page and "Why the numbers differ" in page
    # Issue 31: each outfall row says whether its peak is within 5 % of SWMM's, or why not.
    assert "peak more than 5 % from SWMM&#x27;s; why: Overland flow" in page or "peak within 5 % of SWMM" in page
    # Without the pre-development model, the plan form opens with what was read.
    r = c.post("/reviews/import/swmm/", {"post_file": SimpleUploadedFile("small-site-post.inp", POST.encode())})
    assert r.status_code == 200 and 'value="POND1"' in r.content.decode() and "pre-development subcatchments" in r.content.decode()
    bad = c.post("/reviews/import/swmm/", {"post_file": SimpleUploadedFile("x.inp", b"[TITLE]\nx\n")})
    assert bad.status_code == 400 and "SUBCATCHMENTS" in bad.content.decode()


def test_the_import_checks_each_upload_by_its_name_and_its_content(client_for, personas, example_data):
    """Uploads go through the allow-list (web/filetypes.py): the name's extension and the content must agree."""
    c = client_for(personas["staff"])
    pdf = c.post("/reviews/import/swmm/", {"post_file": SimpleUploadedFile("model.inp", b"%PDF-1.7\n%binary\x00\x01")})
    assert pdf.status_code == 400 and "Only SWMM 5 input files are accepted" in pdf.content.decode()
    renamed = c.post("/reviews/import/swmm/", {"post_file": SimpleUploadedFile("model.txt", POST.encode())})
    assert renamed.status_code == 400
    assert "“model.txt” is a SWMM 5 input file by its content, but its name does not end in .inp" in \
        renamed.content.decode().replace("&#x27;", "'")
    not_pfds = c.post("/reviews/import/swmm/", {"post_file": SimpleUploadedFile("small-site-post.inp", POST.encode()),
                                                "pfds_file": SimpleUploadedFile("UCL.csv", b"a,b\n1,2\n")})
    assert not_pfds.status_code == 400 and "Only NOAA PFDS CSV files are accepted" in not_pfds.content.decode()
    assert Review.objects.count() == 0
