"""The bill run's pages, JSON API and command (issue 16): prepare → approve → void, each refusal a message."""
import json
from datetime import date
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from stormwater.utility.models import Bill, BillRun, LedgerEntry, RunState
from confirming import CONFIRM_MARK, confirmed_post


def test_staff_prepare_a_collector_approves_and_voids_on_the_web(client_for, personas, town, resolution, run_worker):
    from stormwater.jobs.models import Job

    staff = client_for(personas["staff"])
    r = staff.post("/bill-runs/new/", {"fiscal_year": 2027, "issue_date": "2026-09-15"})
    run = BillRun.objects.get()
    assert r.status_code == 302 and r.url == f"/bill-runs/{run.pk}/" and run.state == RunState.PREPARING
    # The proof is a background job, shown live on the run's page (issue 15).
    job = Job.objects.get()
    assert (job.kind, job.params, job.state, job.started_by) == ("bill_run", {"run": run.pk}, "queued",
                                                                  personas["staff"])
    page = staff.get(r.url).content.decode()
    assert "being prepared in the background" in page and f"/api/jobs/{job.pk}/" in page
    assert "data-proof-ready" in page and "Continue preparing" not in page
    # A second press while it waits starts no second job.
    staff.post("/bill-runs/new/", {"fiscal_year": 2027, "issue_date": "2026-09-15"})
    staff.post(f"/bill-runs/{run.pk}/prepare/")
    assert Job.objects.count() == 1
    run_worker()
    job.refresh_from_db()
    run.refresh_from_db()
    assert job.state == "succeeded" and (job.done, job.total) == (10, 10) and run.state == RunState.PROOF
    assert job.result["bills"] == 8 and job.result["problems"] == 3 and job.result["run_id"] == run.pk
    page = staff.get(r.url).content.decode()
    for part in ("This is a proof", "Proof: bills by class and ERU band", "51–100 ERUs", "Against last year",
                 "Not billed: needs staff (3)", "A Collector or the DPW Director approves the proof",
                 "Discard the proof", "data-submit-once"):
        assert part in page, part
    assert "Approve and issue" not in page  # staff prepare; they do not approve
    assert staff.post(f"/bill-runs/{run.pk}/approve/").status_code == 403
    # Pressing "prepare" again (a second tab, a double submit) leads to the same proof.
    again = staff.post("/bill-runs/new/", {"fiscal_year": 2027, "issue_date": "2026-09-15"})
    assert again.url == f"/bill-runs/{run.pk}/" and BillRun.objects.count() == 1

    collector = client_for(personas["collector"])
    assert "Approve and issue 8 bills" in collector.get(r.url).content.decode()
    confirmed_post(collector, f"/bill-runs/{run.pk}/approve/")
    second = confirmed_post(collector, f"/bill-runs/{run.pk}/approve/", follow=True).content.decode()
    assert "already issued" in second and LedgerEntry.objects.count() == 16
    page = collector.get(r.url).content.decode()
    assert "Void this run" in page and "Record the mailing" in page and "Download CSV" in page

    # Void needs a reason; then the bills go from the owner's pages and the period can be billed again.
    refused = collector.post(f"/bill-runs/{run.pk}/void/", {"reason": ""}, follow=True).content.decode()
    assert "say why the run is voided" in refused
    confirmed_post(collector, f"/bill-runs/{run.pk}/void/", {"reason": "Issue date wrong"})
    run.refresh_from_db()
    assert run.state == RunState.VOIDED and not Bill.objects.exists()
    assert "Voided" in collector.get(r.url).content.decode()
    house = Bill.all_objects.get(parcel=town["house"])
    assert client_for(personas["owner"]).get(f"/bills/{house.number}/").status_code == 404


def test_recording_the_mailing_ends_the_void(client_for, personas, town, resolution):
    from stormwater.utility.services import bill_run_issue, fiscal_year

    label, start, end = fiscal_year(2027)
    run = bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2026, 9, 15),
                         acting_user=None).run
    c = client_for(personas["collector"])
    bad = c.post(f"/bill-runs/{run.pk}/mailed/", {"mailed_on": "soon"}, follow=True).content.decode()
    assert "a date (YYYY-MM-DD) is required" in bad  # at the field, named by its label (issue 16 "Forms")
    confirmed_post(c, f"/bill-runs/{run.pk}/mailed/", {"mailed_on": "2026-09-16"})
    page = c.get(f"/bill-runs/{run.pk}/").content.decode()
    assert "were mailed on Sep 16, 2026" in page and "Void this run" not in page
    refused = c.post(f"/bill-runs/{run.pk}/void/", {"reason": "x"}, follow=True).content.decode()
    assert "were mailed on September 16, 2026" in refused
    assert BillRun.objects.get(pk=run.pk).state == RunState.ISSUED


def test_a_discarded_proof_from_the_web(client_for, personas, town, resolution, run_worker):
    staff = client_for(personas["staff"])
    staff.post("/bill-runs/new/", {"fiscal_year": 2027, "issue_date": "2026-09-15"})
    run_worker()
    run = BillRun.objects.get()
    # Discarding is irreversible (issue 25): the first POST asks, saying how many bills and how much; nothing done.
    asked = staff.post(f"/bill-runs/{run.pk}/discard/", {"reason": "wrong date"}).content.decode()
    assert CONFIRM_MARK in asked and f"{run.bill_count:,}" in asked and "wrong date" in asked
    assert BillRun.objects.get(pk=run.pk).state == RunState.PROOF
    confirmed_post(staff, f"/bill-runs/{run.pk}/discard/", {"reason": "wrong date"})
    assert BillRun.objects.get(pk=run.pk).state == RunState.DISCARDED
    assert "Proof discarded" in staff.get(f"/bill-runs/{run.pk}/").content.decode()
    assert "Proof discarded" in staff.get("/bill-runs/").content.decode()


def test_api_proof_approve_void_discard(client_for, personas, town, resolution):
    staff, collector = client_for(personas["staff"]), None
    body = json.dumps({"fiscal_year": 2027, "issue_date": "2026-09-15"})
    r = staff.post("/api/bill-runs/", body, content_type="application/json")
    assert r.status_code == 403 and '"proof": true' in r.json()["error"]
    r = staff.post("/api/bill-runs/", json.dumps({"fiscal_year": 2027, "issue_date": "2026-09-15", "proof": True}),
                   content_type="application/json")
    assert r.status_code == 201 and r.json()["state"] == "proof" and r.json()["bills"] == 8
    run_id = r.json()["run_id"]
    d = staff.get(f"/api/bill-runs/{run_id}/").json()
    assert d["state"] == "proof" and d["prepared_by"] == "staff" and d["proof"]["totals"]["bills"] == 8
    assert staff.post(f"/api/bill-runs/{run_id}/approve/").status_code == 403
    bad = staff.post("/api/bill-runs/", json.dumps({"fiscal_year": 2027, "proof": "yes"}),
                     content_type="application/json")
    assert bad.status_code == 400 and bad.json()["error"].startswith("proof:")
    collector = client_for(personas["collector"])
    a = collector.post(f"/api/bill-runs/{run_id}/approve/")
    assert a.status_code == 200 and a.json()["state"] == "issued" and a.json()["approved_by"] == "collector"
    v = collector.post(f"/api/bill-runs/{run_id}/void/", json.dumps({}), content_type="application/json")
    assert v.status_code == 400 and "reason" in v.json()["error"]
    v = collector.post(f"/api/bill-runs/{run_id}/void/", json.dumps({"reason": "wrong rates"}),
                       content_type="application/json")
    assert v.status_code == 200 and v.json()["state"] == "voided" and v.json()["void_reason"] == "wrong rates"
    p = collector.post("/api/bill-runs/", json.dumps({"fiscal_year": 2027, "proof": True}),
                       content_type="application/json")
    d = collector.post(f"/api/bill-runs/{p.json()['run_id']}/discard/")
    assert d.status_code == 200 and d.json()["state"] == "discarded"


def test_cli_issues_in_one_step_or_prepares_a_proof_then_approves_and_voids(town, resolution):
    def run(*args):
        out = StringIO()
        call_command("bill_run", *args, stdout=out)
        return json.loads(out.getvalue())

    proof = run("--fiscal-year", "2027", "--issue-date", "2026-09-15", "--proof")
    assert proof["state"] == "proof" and proof["bills"] == 8 and not LedgerEntry.objects.exists()
    issued = run("--approve", str(proof["run_id"]))
    assert issued["state"] == "issued" and LedgerEntry.objects.count() == 16
    with pytest.raises(CommandError, match="say why"):
        run("--void", str(proof["run_id"]))
    assert run("--void", str(proof["run_id"]), "--reason", "test")["state"] == "voided"
    again = run("--fiscal-year", "2027", "--issue-date", "2026-09-16")
    assert again["bills"] == 8 and again["state"] == "issued"
    with pytest.raises(CommandError, match="--fiscal-year is required"):
        run()
    with pytest.raises(CommandError, match="no bill run 999"):
        run("--approve", "999")
