"""The proof as a background job (issue 15): started from the bill run page (or the API, or the command line),
run by the worker slice by slice with its progress on the job; a job that failed half-way is continued from
the page and ends with the one proof an uninterrupted run makes. (A worker killed with SIGKILL: a real process,
tests/utility/test_bill_run_kill.py.)"""
import json
from datetime import date
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from stormwater.jobs.models import Job, JobLogLine
from stormwater.jobs.registry import JobParamError
from stormwater.jobs.services import job_start
from stormwater.utility.billrun import prepare as prepare_mod
from stormwater.utility.models import Bill, BillRun, LedgerEntry, RunState
from stormwater.utility.services import bill_run_issue, bill_run_prepare, bill_run_start, fiscal_year

FY = {"fiscal_year": 2027, "issue_date": "2026-09-15"}


def proof_rows(run):
    return sorted(Bill.all_objects.filter(run=run).values_list("number", "amount", "erus", "explanation"))


def test_a_preparation_that_failed_half_way_is_continued_from_the_page(client_for, personas, town, resolution,
                                                                        run_worker, monkeypatch):
    from django.db import transaction

    class Rollback(Exception):
        pass

    label, start, end = fiscal_year(2027)
    with pytest.raises(Rollback), transaction.atomic():  # the proof an uninterrupted run makes
        clean, _ = bill_run_start(period_label=label, period_start=start, period_end=end,
                                  issue_date=date(2026, 9, 15), acting_user=None)
        bill_run_prepare(run=clean)
        expected = proof_rows(clean)
        raise Rollback

    monkeypatch.setattr(prepare_mod, "CHUNK", 2)  # 10 parcels: 5 slices
    real, calls = prepare_mod.copy_rows, {"n": 0}

    def fails_in_the_third_slice(table, columns, rows):
        calls["n"] += 1
        if calls["n"] == 5:  # bills then installments per slice: the 3rd slice's bills
            raise RuntimeError("disk full")
        return real(table, columns, rows)

    monkeypatch.setattr(prepare_mod, "copy_rows", fails_in_the_third_slice)
    staff = client_for(personas["staff"])
    staff.post("/bill-runs/new/", FY)
    run_worker()
    run, job = BillRun.objects.get(), Job.objects.get()
    assert run.state == RunState.PREPARING and run.chunks.count() == 2
    assert job.state == "failed" and "disk full" in job.error and job.total == 10
    assert not Bill.objects.exists() and not LedgerEntry.objects.exists()  # nothing half-visible
    page = staff.get(f"/bill-runs/{run.pk}/").content.decode()
    assert "4 of 10 parcels are done" in page and "Continue preparing the proof" in page

    monkeypatch.setattr(prepare_mod, "copy_rows", real)
    r = staff.post(f"/bill-runs/{run.pk}/prepare/", follow=True).content.decode()
    assert "Preparing the proof again in the background" in r
    run_worker()
    again = Job.objects.order_by("-id").first()
    run.refresh_from_db()
    assert again.pk != job.pk and again.state == "succeeded" and (again.done, again.total) == (10, 10)
    assert run.state == RunState.PROOF and run.chunks.count() == 5 and run.bill_count == 8
    assert proof_rows(run) == expected
    assert any("resuming after 4 already done" in ln
               for ln in JobLogLine.objects.filter(job=again).values_list("line", flat=True))
    # Nothing more to prepare: the page offers no job, and none can be started.
    with pytest.raises(JobParamError, match=r"is not being prepared \(proof: waiting for approval\)"):
        job_start(kind="bill_run", params={"run": run.pk}, acting_user=personas["staff"])


def test_a_period_with_nothing_to_bill_says_so_when_its_job_is_done(client_for, personas, town, resolution,
                                                                    run_worker):
    label, start, end = fiscal_year(2027)
    bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=start.replace(month=9, day=15),
                   acting_user=None)
    staff = client_for(personas["staff"])
    r = staff.post("/bill-runs/new/", FY)
    run_worker()
    page = staff.get(r.url, follow=True)
    assert page.redirect_chain[-1][0] == "/bill-runs/"
    assert "every billable account is already billed" in page.content.decode()
    assert BillRun.objects.count() == 1
    assert staff.get("/bill-runs/999/").status_code == 404


def test_the_api_and_the_command_line_prepare_a_proof_in_the_background(client_for, personas, town, resolution,
                                                                        run_worker):
    staff = client_for(personas["staff"])

    def post(body):
        return staff.post("/api/bill-runs/", json.dumps(body), content_type="application/json")

    assert post({**FY, "proof": True, "background": "yes"}).json()["error"].startswith("background:")
    assert post({**FY, "background": True}).status_code in (400, 403)
    r = post({**FY, "proof": True, "background": True})
    assert r.status_code == 202
    body = r.json()
    assert body["state"] == "preparing" and body["job"]["kind"] == "bill_run" and body["job"]["state"] == "queued"
    assert post({**FY, "proof": True, "background": True}).json()["job"]["id"] == body["job"]["id"]  # the same job
    run_worker()
    d = staff.get(f"/api/bill-runs/{body['run_id']}/").json()
    job = staff.get(body["job"]["url"].replace("/jobs/", "/api/jobs/")).json()
    assert d["state"] == "proof" and d["bills"] == 8 and job["state"] == "succeeded" and job["result"]["bills"] == 8

    out = StringIO()
    call_command("bill_run", "--fiscal-year", "2028", "--issue-date", "2027-09-15", "--proof", "--enqueue", stdout=out)
    queued = json.loads(out.getvalue())
    assert queued["state"] == "preparing" and Job.objects.get(pk=queued["job"]).started_by is None
    run_worker()
    assert BillRun.objects.get(pk=queued["run_id"]).state == RunState.PROOF
    with pytest.raises(CommandError, match="--enqueue goes with --proof"):
        call_command("bill_run", "--fiscal-year", "2028", "--enqueue", stdout=StringIO())


def test_only_those_who_prepare_runs_start_the_job(client_for, personas, town, resolution):
    label, start, end = fiscal_year(2027)
    run, _ = bill_run_start(period_label=label, period_start=start, period_end=end,
                            issue_date=start.replace(month=9, day=15), acting_user=None)
    owner = client_for(personas["owner"])
    r = owner.post("/api/jobs/", json.dumps({"kind": "bill_run", "params": {"run": run.pk}}),
                   content_type="application/json")
    assert r.status_code == 403 and not Job.objects.exists()
    r = client_for(personas["staff"]).post("/api/jobs/", json.dumps({"kind": "bill_run", "params": {"run": 999}}),
                                           content_type="application/json")
    assert r.status_code == 400 and "no bill run 999" in r.json()["error"]
