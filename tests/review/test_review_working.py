"""Issue 19 "The working, shown": the report carries what a Town engineer needs to recheck every number,
and every MassDEP standard appears in the checklist's order for plans on each soil group."""
from __future__ import annotations

import re

import pytest

from stormwater.review import massdep as md
from stormwater.review.diagram import network_svg
from stormwater.review.engine import review_compute
from stormwater.review.plan import plan_from_dict, plan_parse
from stormwater.review.plots import PlotNotFound, _render, hydrograph_svg
from stormwater.review.present import report_view


@pytest.fixture(scope="module")
def example(example_text):
    return review_compute(plan_parse(example_text)[0])


def _bmp(r, bid):
    return next(b for b in r["bmps"] if b["id"] == bid)


def _sub(r, phase, sid):
    return next(s for s in r["subcatchments"] if s["phase"] == phase and s["id"] == sid)


def test_the_tr55_worksheet_shows_covers_cn_and_each_tc_segment(example):
    """E1: woods in good condition on HSG B, CN 55 (Table 2-2c); sheet flow 100 ft at 3 %, n 0.40
    ("Light underbrush", Table 3-1), P2 = 3.276 in:
    Tt = 0.007 (0.40 × 100)^0.8 / (3.276^0.5 × 0.03^0.4) = 0.007 × 19.127 / (1.80998 × 0.24595) = 0.3008 h;
    shallow unpaved 450 ft at 2.5 %: V = 16.1345 × 0.025^0.5 = 2.5511 ft/s, Tt = 450 / (3600 × 2.5511) = 0.0490 h."""
    e1 = _sub(example, "pre", "E1")
    assert e1["cover"] == [{"cover": "woods_good", "description": e1["cover"][0]["description"], "source": "TR-55 Table 2-2c",
                            "hsg": "B", "area_acres": 3.3, "cn": 55.0, "area_x_cn": 181.5, "impervious": False,
                            "connected": None}]
    assert e1["cn_working"] == "(3.3 × 55) / 3.3 = 181.50 / 3.3 = 55.00"
    sheet, shallow = e1["tc_segments"]
    assert sheet["manning_n"] == 0.4 and sheet["p2_in"] == 3.276 and sheet["travel_time_hr"] == pytest.approx(0.3008, abs=5e-5)
    assert "Eq. 3-3" in sheet["formula"] and "0.007 × (0.4 × 100)^0.8" in sheet["working"]
    assert shallow["velocity_fps"] == pytest.approx(2.5511, abs=5e-5) and shallow["travel_time_hr"] == pytest.approx(0.049, abs=5e-5)
    st = e1["storms"]["2"]
    assert st["parts"] == [{"label": "all", "area_acres": 3.3, "cn": 55.0, "s_in": 8.182, "ia_in": 1.636, "runoff_in": 0.274}]


def test_each_bmp_has_its_stage_storage_discharge_table_with_every_outlet(example):
    """TRENCH-1 at 6.8 ft (the emergency grate's crest, added between the plan's stages): storage
    11,880 + 0.8 × 450 = 12,240 ft³; diversion weir Q = 3.33 × 4 × 0.8^1.5 = 9.531 cfs; infiltration
    2.41 / 12 / 3600 × 4,950 = 0.276 cfs. BASIN-1 at 2.0 ft: the 4-in low-flow orifice (Cd 0.6, centre
    at 0.1667 ft) passes 0.6 × π/4 × (4/12)² × (2 × 32.174 × 1.8333)^0.5 = 0.569 cfs."""
    t = _bmp(example, "TRENCH-1")["ssd"]
    assert t["columns"] == ["diversion manhole overflow weir", "emergency overflow grate", "infiltration"]
    row = next(r for r in t["rows"] if r["stage_ft"] == 6.8)
    assert not row["from_plan"] and row["storage_cuft"] == 12240
    assert row["flows_cfs"] == {"diversion manhole overflow weir": 9.531, "emergency overflow grate": 0.0,
                                "infiltration": 0.276}
    b = _bmp(example, "BASIN-1")["ssd"]
    row = next(r for r in b["rows"] if r["stage_ft"] == 2.0)
    assert row["flows_cfs"]["low-flow orifice"] == pytest.approx(0.569, abs=0.0005)
    assert row["flows_cfs"]["second-stage orifice"] == 0.0


def test_the_routing_table_has_peak_time_of_peak_and_peak_stage(example):
    st = _bmp(example, "BASIN-1")["storms"]["10"]
    for k in ("inflow_peak_cfs", "inflow_peak_time_hr", "outflow_peak_cfs", "outflow_peak_time_hr", "peak_stage_ft",
              "peak_stage_time_hr", "peak_storage_cuft"):
        assert st[k] is not None, k
    assert st["outflow_peak_time_hr"] > st["inflow_peak_time_hr"]


def test_time_step_starting_levels_and_assumptions_are_stated(example):
    a = " ".join(example["assumptions"])
    assert "Δt = 0.01 h" in a and "Type III" in a and "modified Puls" in a
    for bid in ("TRENCH-1", "BASIN-1"):
        assert any(x.startswith(f"{bid} starts at 0 ft") for x in example["assumptions"]), bid


def test_the_node_diagram_draws_every_subcatchment_bmp_and_design_point(example):
    post = network_svg(example["network"], "post")
    assert post.startswith("<svg") and "<title" in post and "<style" not in post and "<script" not in post
    for label in ("P1", "P2", "CB-1", "SEP-1", "TRENCH-1", "BASIN-1", "DP1"):
        assert f">{label}</text>" in post
    assert "TRENCH-1 flows to BASIN-1" in post and "P2 flows to BASIN-1" in post
    assert ">E1</text>" in network_svg(example["network"], "pre")


def test_plots_are_deterministic_svg_and_mark_the_exact_peaks(example):
    svg = hydrograph_svg(example, "10", "bmp:BASIN-1")
    _render.cache_clear()
    assert hydrograph_svg(example, "10", "bmp:BASIN-1") == svg
    st = _bmp(example, "BASIN-1")["storms"]["10"]
    assert svg.startswith("<?xml") and "BASIN-1 (BMP) · 10-year 24-hour storm" in svg
    assert f"{st['outflow_peak_cfs']:.2f} cfs at {st['outflow_peak_time_hr']:.2f} h" in svg
    assert "<dc:date>" not in svg                      # no timestamp: the same bytes every time
    with pytest.raises(PlotNotFound):
        hydrograph_svg(example, "10", "bmp:NOPE")


def test_the_page_view_lists_plots_for_every_node_and_storm(example):
    v = report_view(example, plot_src=lambda y, n: f"/p/{y}/{n}.svg")
    assert [p["src"] for p in next(b for b in v["bmps"] if b["id"] == "TRENCH-1")["plots"]] == [
        "/p/2/bmp:TRENCH-1.svg", "/p/10/bmp:TRENCH-1.svg", "/p/100/bmp:TRENCH-1.svg"]
    dp = v["dps"][0]["plots"][0]
    assert "pre-development peak" in dp["alt"] and "post-development peak" in dp["alt"]
    assert len(v["subs"]) == 4 and all(len(s["plots"]) == 3 for s in v["subs"])


def _soil_group(data, hsg):
    for phase in ("pre", "post"):
        for s in data[phase]:
            for part in s["cover"]:
                part["hsg"] = hsg
    return data


@pytest.mark.parametrize("hsg", ["A", "B", "C", "D"])
def test_every_standard_appears_in_the_checklist_order_for_each_soil_group(example_data, hsg):
    r = review_compute(plan_from_dict(_soil_group(example_data, hsg)))
    keys = [s["key"] for s in r["checklist"]]
    assert keys == ["certification", "project", "lid", *[str(n) for n in range(1, 11)], "ch380"]
    rows = {s["key"] for s in r["standards"]}
    for sec in r["checklist"][:-1]:
        for item in sec["items"]:
            assert item["rows"] or item["empty_reason"], (sec["key"], item["key"])
            assert set(item["rows"]) <= rows
    # every statement item of the checklist is a row; every computed standard decided
    assert {f"ma_{k}" for k in md.STATEMENT_KEYS} <= rows
    statuses = {s["key"]: s["status"] for s in r["standards"]}
    assert statuses["recharge"] == "pass"            # F by HSG, capture adjusted (tests/review/test_review_accounting.py)
    assert statuses["ma_std4_wqv"] == "pass" and statuses["ma_std4_tss"] == "pass"
    assert statuses["ma_std4_pretreatment_TRENCH-1"] == "pass"
    assert statuses["ma_std5_source_control"] == "not_applicable"       # no LUHPPL
    claimed = {k for sec in r["checklist"] for it in sec["items"] for k in it["rows"]}
    assert claimed == rows                                               # each row shown exactly once


def _run_on_soil_group(example_data, hsg, user):
    import yaml

    from stormwater.review.services import review_run

    data = _soil_group(example_data, hsg)
    data["project"]["name"] += f" (HSG {hsg})"
    return review_run(input_text=yaml.safe_dump(data, sort_keys=False, allow_unicode=True),
                      input_name=f"hsg-{hsg}.yaml", acting_user=user)


F_BY_HSG = {"A": "0.6", "B": "0.35", "C": "0.25", "D": "0.1"}  # MassDEP Standard 3 target depth factor (in)


@pytest.mark.django_db
@pytest.mark.parametrize("hsg", ["A", "B", "C", "D"])
def test_the_report_page_of_a_plan_on_each_soil_group_shows_every_row_with_its_working(
        client_for, personas, example_data, hsg):
    """Issue 19 "done when": the review of a plan on each soil group shows every standard's row with its working.
    The example's covers are all put on one HSG; the page is read as the reviewer gets it."""
    from django.utils.html import escape

    review = _run_on_soil_group(example_data, hsg, personas["staff"])
    r = review.results
    page = client_for(personas["staff"]).get(f"/reviews/{review.pk}/").content.decode()
    # The checklist's sections in its order, each standard's row in its section, each row's working beside it.
    at = [page.index(f'id="rv-sec-{sec["key"]}"') for sec in r["checklist"]]
    assert at == sorted(at) and len(at) == 14
    for sec, start, end in zip(r["checklist"], at, [*at[1:], len(page)]):
        for item in sec["items"]:
            for key in item["rows"]:
                row = next(s for s in r["standards"] if s["key"] == key)
                i = page.index(f'id="row-{key}"')
                assert start < i < end, (sec["key"], key)
                for w in row.get("working") or []:
                    assert escape(w) in page[i:end], (key, w)
    # Standard 3 with this soil group's target depth, and the TR-55 worksheets on this soil group.
    recharge = next(s for s in r["standards"] if s["key"] == "recharge")
    assert recharge["working"][0].startswith(f"{F_BY_HSG[hsg]}/12 × 135,036 ft² (HSG {hsg})")
    for s in r["subcatchments"]:
        assert f'aria-label="{s["id"]} cover table"' in page and f'aria-label="{s["id"]} time of concentration"' in page
        assert all(c["hsg"] == hsg for c in s["cover"])
    assert page.count(f"<td>{hsg}</td>") == sum(len(s["cover"]) for s in r["subcatchments"])
    # Per BMP: outlets, the stage-storage-discharge table, routing and removal; then the plots of every node.
    for b in r["bmps"]:
        for part in (("outlets", "stage-storage-discharge", "routing", "removal") if b["routed"] else ("routing", "removal")):
            assert f'aria-label="{b["id"]} {part}"' in page, (b["id"], part)
    n_nodes = len(r["subcatchments"]) + len(r["bmps"]) + len(r["design_points"])
    n_routed = sum(1 for b in r["bmps"] if b["routed"])   # and each routed BMP's water level (issue 31)
    assert page.count('<img src="/reviews/') == 3 * n_nodes + 3 * n_routed
    assert "Time step, starting levels and assumptions" in page and "Drainage network" in page


@pytest.mark.django_db
def test_the_pdf_of_a_plan_on_soil_group_c_holds_every_row_and_its_working(client_for, personas, example_data):
    import shutil
    import subprocess

    if not shutil.which("pdftotext"):
        pytest.skip("pdftotext (poppler-utils) is not installed")
    review = _run_on_soil_group(example_data, "C", personas["staff"])
    pdf = client_for(personas["staff"]).get(f"/reviews/{review.pk}/report.pdf")
    assert pdf.status_code == 200 and pdf.content[:5] == b"%PDF-"
    text = subprocess.run(["pdftotext", "-", "-"], input=pdf.content, capture_output=True, check=True).stdout.decode()
    # Compared without spaces and hyphens: table cells wrap (and pdftotext joins "24-" + "hour" as "24hour").
    flat = re.sub(r"[\s-]", "", text)
    squeeze = lambda t: re.sub(r"[\s-]", "", t)  # noqa: E731
    for s in review.results["standards"]:
        # a title wraps inside its narrow column, where the text of the next columns comes between its lines
        assert all(squeeze(word) in flat for word in s["title"].split()), s["key"]
        for w in s.get("working") or []:  # the working spans the row's full width
            assert squeeze(w) in flat, (s["key"], w)
    for part in ("0.25/12 × 135,036 ft² (HSG C)", "Cover and curve numbers (TR-55 worksheet 2)",
                 "Stage–storage–discharge", "Routing (modified Puls)", "Drainage network"):
        assert squeeze(part) in flat, part
    # the plots are in the PDF as vector drawings: one per node and storm
    n_nodes = sum(len(review.results[k]) for k in ("subcatchments", "bmps", "design_points"))
    assert flat.count(squeeze("24-hour storm")) >= 3 * n_nodes
