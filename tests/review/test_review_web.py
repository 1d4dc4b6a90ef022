"""The review through the web app and API: upload a plan, read the report (page and PDF), re-open it;
load official BMP tables (versioned, audited) and see them used; who may do what."""
from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from stormwater.audit.models import AuditEvent
from stormwater.review.models import BmpTable, Review
from stormwater.review.services import ERR_NO_CASE, bmp_table_load

from review_fixtures import TEST_TSS_CSV


def _upload(c, text, name="commercial-5-acre.yaml", **extra):
    return c.post("/reviews/new/", {"plan_file": SimpleUploadedFile(name, text.encode("utf-8")), **extra})


def _pdf_text(content: bytes) -> str:
    text = subprocess.run(["pdftotext", "-", "-"], input=content, capture_output=True, check=True).stdout.decode()
    return " ".join(text.split())  # table cells wrap: compare on single-spaced text


def test_the_example_plan_runs_end_to_end_to_the_report(client_for, personas, example_text):
    c = client_for(personas["staff"])
    r = _upload(c, example_text)
    assert r.status_code == 302, r.content.decode()[:2000]
    review = Review.objects.get()
    assert r.url == f"/reviews/{review.pk}/"
    # State: the file as uploaded, the results, who ran it.
    assert review.input_text == example_text and review.input_format == "yaml"
    assert review.input_name == "commercial-5-acre.yaml" and review.created_by == personas["staff"]
    # The example's stand-in rainfall file (Mt Sunapee NH) fails the § 380-11 A(2)(a) location row.
    assert review.overall == "fail" and review.provisional is True
    assert review.results["project"]["post_impervious_sqft"] == 135036
    ev = AuditEvent.objects.get(action="review.run")
    assert ev.object_id == str(review.pk) and ev.actor == personas["staff"] and ev.data["overall"] == "fail"

    page = c.get(r.url).content.decode()
    for part in ("Longmeadow Commons retail pad (example)", "Overall: <strong>Fail</strong>", "Rainfall data for the site", "92.8 mi", "provisional",
                 "Peak discharge, 100-year 24-hour storm, DP1", "§ 380-11 D(2)(b)", "11,253 ft³", "11,880 ft³",
                 "Drawdown (time to empty), TRENCH-1", "12.0 h", "Total suspended solids removal",
                 "no TSS performance table is loaded", "RBEROST regression fits", "New development",
                 "3.276", "4.968", "8.469", "Emergency overflow, BASIN-1"):
        assert part in page, part

    pdf = c.get(f"/reviews/{review.pk}/report.pdf")
    assert pdf.status_code == 200 and pdf["Content-Type"] == "application/pdf" and pdf.content[:5] == b"%PDF-"
    if not shutil.which("pdftotext"):
        pytest.skip("pdftotext (poppler-utils) is not installed")
    text = _pdf_text(pdf.content)
    for part in ("Engineering review", "Longmeadow Commons retail pad (example)", "Overall: Fail", "Peak discharge",
                 "Retention volume", "11,253", "11,880", "Not assessable", "provisional", "Emergency overflow",
                 "Groundwater recharge", "NOAA Atlas 14"):
        assert part in text, part


def test_a_stored_review_reopens_with_its_input_and_results(client_for, personas, example_text):
    c = client_for(personas["staff"])
    _upload(c, example_text)
    review = Review.objects.get()
    assert c.get(f"/reviews/{review.pk}/input/").content.decode() == example_text
    assert json.loads(c.get(f"/reviews/{review.pk}/results.json").content) == review.results
    assert "Longmeadow Commons" in c.get("/reviews/").content.decode()


def test_a_bad_plan_is_refused_with_the_field_path_and_nothing_is_stored(client_for, personas, example_text):
    c = client_for(personas["staff"])
    r = _upload(c, example_text.replace("hsg: B, area_acres: 3.3", "hsg: Q, area_acres: 3.3"))
    assert r.status_code == 400  # refused: the form again (issue 30)
    assert "pre[0].cover[0].hsg: must be A, B, C or D" in r.content.decode()
    assert Review.objects.count() == 0 and not AuditEvent.objects.filter(action="review.run").exists()


def test_a_pasted_json_plan_works_too(client_for, personas, example_text):
    import yaml

    c = client_for(personas["consultant"])
    r = c.post("/reviews/new/", {"plan_text": json.dumps(yaml.safe_load(example_text)), "title": "Peer review"})
    assert r.status_code == 302
    assert Review.objects.get().input_format == "json" and Review.objects.get().title == "Peer review"


def test_loading_a_table_versions_it_audits_it_and_reviews_use_it(client_for, personas, example_text):
    c = client_for(personas["staff"])
    r = c.post("/reviews/bmp-tables/new/", {
        "name": "Test TSS table", "source_citation": "made-up points for tests",
        "csv_file": SimpleUploadedFile("tss.csv", TEST_TSS_CSV.encode())})
    assert r.status_code == 302
    t1 = BmpTable.objects.get()
    assert (t1.version, t1.summary["pollutants"], t1.summary["curves"]) == (1, ["TSS"], 2)
    assert AuditEvent.objects.filter(action="bmp_table.load", object_id=str(t1.pk)).exists()
    t2 = bmp_table_load(name="Test TSS table", source_citation="corrected", csv_text=TEST_TSS_CSV.replace(",95", ",94"),
                        acting_user=personas["staff"])
    assert t2.version == 2

    _upload(c, example_text)
    review = Review.objects.get()
    assert list(review.tables.all()) == [t2]              # only the version in force
    trench = next(b for b in review.results["bmps"] if b["id"] == "TRENCH-1")
    assert trench["removal"]["TSS"]["table"] == "Test TSS table (v2)"
    assert trench["removal"]["TSS"]["provisional"] is False
    page = c.get(f"/reviews/{review.pk}/").content.decode()
    assert "Test TSS table (v2)" in page

    # The calculators use the tables in force too (CLI and API share them).
    resp = c.post("/api/calc/bmp", {"bmp": "infiltration_trench", "pollutant": "TSS", "storage_depth_in": 2.0},
                  content_type="application/json")
    assert resp.status_code == 200, resp.content
    assert resp.json() == {"removal_pct": 94.0, "bmp": "infiltration_trench", "pollutant": "TSS",
                           "table": "Test TSS table (v2)", "provisional": False}

    # Retiring it takes it out of force; the review that used it still names it.
    r = c.post(f"/reviews/bmp-tables/{t2.pk}/retire/", {"reason": "superseded by the permit's own table"})
    assert r.status_code == 302
    t2.refresh_from_db()
    assert t2.retired_at is not None and t2.retired_by == personas["staff"]
    assert AuditEvent.objects.filter(action="bmp_table.retire", object_id=str(t2.pk)).exists()
    resp = c.post("/api/calc/bmp", {"bmp": "infiltration_trench", "pollutant": "TSS", "storage_depth_in": 2.0},
                  content_type="application/json")
    assert resp.status_code == 400 and "not assessable" in resp.json()["error"]
    assert "Test TSS table (v2)" in c.get(f"/reviews/{review.pk}/").content.decode()


def test_a_bad_table_is_refused_with_the_reason(client_for, personas):
    c = client_for(personas["staff"])
    r = c.post("/reviews/bmp-tables/new/", {"name": "Bad", "source_citation": "x", "csv_file": SimpleUploadedFile(
        "bad.csv", b"bmp,pollutant,storage_depth_in,removal\nx,TSS,0.5,50\n")})
    assert r.status_code == 400 and "missing column(s) infiltration_rate_in_hr" in r.content.decode()
    assert BmpTable.objects.count() == 0


def test_the_api_runs_a_plan_and_reads_it_back(client_for, personas, example_text):
    c = client_for(personas["staff"])
    r = c.post("/api/reviews/?title=API%20run", example_text, content_type="application/x-yaml")
    assert r.status_code == 201, r.content
    body = r.json()
    assert body["overall"] == "fail" and body["title"] == "API run"
    assert c.get(f"/api/reviews/{body['id']}/").json()["results"] == body["results"]
    bad = c.post("/api/reviews/", "{}", content_type="application/json")
    assert bad.status_code == 400 and bad.json()["error"].startswith("project: required")
    assert c.get("/api/bmp-tables/").json() == {"tables": []}


@pytest.mark.parametrize("role,url,status", [
    ("owner", "/reviews/", 403), ("collector", "/reviews/new/", 403), ("inspector", "/reviews/", 403),
    ("consultant", "/reviews/", 200), ("consultant", "/reviews/new/", 200), ("staff", "/reviews/new/", 200),
    ("director", "/reviews/bmp-tables/new/", 200), ("staff", "/reviews/bmp-tables/new/", 200),
    ("consultant", "/reviews/bmp-tables/new/", 403), ("consultant", "/reviews/bmp-tables/", 200),
    ("owner", "/api/bmp-tables/", 403),
])
def test_review_role_matrix(client_for, personas, role, url, status):
    assert client_for(personas[role]).get(url).status_code == status


def test_a_consultant_sees_their_own_reviews_and_those_of_their_cases_only(client, personas, example_text):
    from stormwater.cases.models import Case, CaseParty

    client.force_login(personas["staff"])
    _upload(client, example_text, title="Staff review")
    staff_review = Review.objects.get()
    client.force_login(personas["consultant"])
    assert client.get(f"/reviews/{staff_review.pk}/").status_code == 404
    assert client.get(f"/reviews/{staff_review.pk}/report.pdf").status_code == 404
    assert client.get(f"/api/reviews/{staff_review.pk}/").status_code == 404
    assert "Staff review" not in client.get("/reviews/").content.decode()
    # Engaged on a case: its reviews become visible; a case they are not on cannot be attached.
    case = Case.objects.create(kind="permit", number="SWP-2026-0001", status="filed", title="Commons")
    other = Case.objects.create(kind="permit", number="SWP-2026-0002", status="filed", title="Other")
    CaseParty.objects.create(case=case, role="consultant", name="Consultant", user=personas["consultant"])
    client.force_login(personas["staff"])
    r = _upload(client, example_text, case_number=case.number, title="Case review")
    assert r.status_code == 302
    case_review = Review.objects.get(title="Case review")
    assert case_review.case == case
    assert case.events.filter(kind="engineering_review", data__review=case_review.pk).exists()
    client.force_login(personas["consultant"])
    assert client.get(f"/reviews/{case_review.pk}/").status_code == 200
    r = _upload(client, example_text, case_number=other.number)
    assert ERR_NO_CASE in r.content.decode()


def test_the_cli_calc_bmp_reads_the_tables_in_force(personas, monkeypatch, capsys):
    import io

    from stormwater import cli

    bmp_table_load(name="CLI table", source_citation="tests", csv_text=TEST_TSS_CSV, acting_user=None)
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(
        {"bmp": "extended_dry_detention_basin", "pollutant": "TSS", "storage_depth_in": 0.1})))
    assert cli.calc(["bmp"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["removal_pct"] == 30.0 and out["table"] == "CLI table (v1)"


def test_the_commands_load_a_table_and_run_a_plan(db, tmp_path, capsys):
    from django.core.management import call_command

    from review_fixtures import EXAMPLE

    csv = tmp_path / "tss.csv"
    csv.write_text(TEST_TSS_CSV)
    call_command("bmp_table_load", str(csv), "--name", "Command table", "--source", "tests")
    assert "Loaded Command table (v1): 2 curves, TSS" in capsys.readouterr().out
    with pytest.raises(SystemExit) as e:     # the stand-in rainfall file fails the location row: exit 1
        call_command("review_run", str(EXAMPLE))
    assert e.value.code == 1
    out = capsys.readouterr().out
    assert "Longmeadow Commons retail pad (example) -- Fail (provisional)" in out
    assert "Fail            Rainfall data for the site" in out
    assert "Pass            Retention volume: required 11,253 ft³" in out
    assert Review.objects.get().tables.get().label == "Command table (v1)"
    bad = tmp_path / "bad.yaml"
    bad.write_text("project: {}\n")
    with pytest.raises(SystemExit) as e:
        call_command("review_run", str(bad))
    assert e.value.code == 2


def test_the_report_page_and_pdf_show_the_working_and_the_plots(client_for, personas, example_text):
    c = client_for(personas["staff"])
    _upload(c, example_text)
    review = Review.objects.get()
    page = c.get(f"/reviews/{review.pk}/").content.decode()
    for part in ("Standards, in the order of MassDEP", "Standard 4 — Water quality", "Stage–storage–discharge",
                 "Time of concentration (TR-55 worksheet 3)", "Post-development drainage network",
                 "Time step, starting levels and assumptions", f"/reviews/{review.pk}/plots/10/bmp:BASIN-1.svg"):
        assert part in page, part
    svg = c.get(f"/reviews/{review.pk}/plots/10/bmp:BASIN-1.svg")
    assert svg.status_code == 200 and svg["Content-Type"].startswith("image/svg+xml")
    assert b"BASIN-1 (BMP)" in svg.content
    assert c.get(f"/reviews/{review.pk}/plots/10/bmp:NOPE.svg").status_code == 404
    pdf = c.get(f"/reviews/{review.pk}/report.pdf")
    assert pdf.status_code == 200 and pdf.content[:5] == b"%PDF-"
    if not shutil.which("pdftotext"):
        pytest.skip("pdftotext (poppler-utils) is not installed")
    text = _pdf_text(pdf.content)
    for part in ("Standard 10", "Stage–storage–discharge", "MassDEP TSS worksheet", "TRENCH-1 (BMP) · 10-year 24-hour storm",
                 "Drainage network", "Pre-development", "Post-development"):
        assert part in text, part
    other = client_for(personas["consultant"])          # not theirs: 404, no probing
    assert other.get(f"/reviews/{review.pk}/plots/10/bmp:BASIN-1.svg").status_code == 404
