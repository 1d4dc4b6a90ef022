"""The jobs framework (issue 15): a job is recorded with its queued task in one transaction, the worker runs it
with progress n of N, log lines, a result and a file; failures are recorded and can be started again; a job
whose worker died is taken back; only those allowed start or see a job."""
from __future__ import annotations

import subprocess
import sys

import pytest
from django.core.exceptions import PermissionDenied
from django_tasks_db.models import DBTaskResult

from stormwater.audit.models import AuditEvent
from stormwater.jobs.models import Job, JobState
from stormwater.jobs.recovery import MAX_ATTEMPTS, jobs_recover
from stormwater.jobs.registry import JobParamError
from stormwater.jobs.services import job_rerun, job_start
from stormwater.jobs.workers import this_host

pytestmark = pytest.mark.django_db


def test_a_job_is_recorded_with_its_task_and_an_audit_row(personas):
    job = job_start(kind="test_count", params={"n": "3"}, acting_user=personas["staff"])
    assert job.state == JobState.QUEUED and job.params == {"n": 3} and job.title == "Count to 3"
    task = DBTaskResult.objects.get(id=job.task_id)
    assert task.status == "READY" and task.args_kwargs == {"args": [job.pk], "kwargs": {}}
    assert AuditEvent.objects.filter(action="job.start", object_id=str(job.pk), actor=personas["staff"]).exists()


def test_the_worker_runs_it_with_progress_log_result_and_file(personas, run_worker, settings):
    job = job_start(kind="test_count", params={"n": 4}, acting_user=personas["staff"])
    run_worker()
    job.refresh_from_db()
    assert job.state == JobState.SUCCEEDED and job.result == {"counted": 4}
    assert (job.done, job.total, job.percent, job.attempts) == (4, 4, 100, 1)
    lines = list(job.log_lines.values_list("line", flat=True))
    assert lines[1:5] == ["step 1", "step 2", "step 3", "step 4"] and lines[-1] == "Finished."
    assert (settings.MEDIA_ROOT / job.file).read_text().splitlines() == ["i", "1", "2", "3", "4"]
    assert DBTaskResult.objects.get(id=job.task_id).status == "SUCCESSFUL"


def test_a_failure_is_recorded_and_the_job_can_be_started_again(personas, run_worker):
    job = job_start(kind="test_count", params={"n": 3, "fail_at": 2}, acting_user=personas["staff"])
    run_worker()
    job.refresh_from_db()
    assert job.state == JobState.FAILED and job.error == "step 2: refused, as asked" and job.done == 1
    assert DBTaskResult.objects.get(id=job.task_id).status == "FAILED"
    Job.objects.filter(pk=job.pk).update(params={"n": 3})  # the cause fixed
    job_rerun(job=job, acting_user=personas["staff"])
    run_worker()
    job.refresh_from_db()
    assert job.state == JobState.SUCCEEDED and job.attempts == 2 and job.error == ""
    with pytest.raises(ValueError):
        job_rerun(job=job, acting_user=personas["staff"])  # only a failed job


def test_bad_params_and_roles_are_refused_by_name(personas):
    with pytest.raises(JobParamError, match="^n: 'x' is not a whole number"):
        job_start(kind="test_count", params={"n": "x"}, acting_user=personas["staff"])
    with pytest.raises(JobParamError, match="^unknown param: colour"):
        job_start(kind="test_count", params={"n": 1, "colour": "red"}, acting_user=personas["staff"])
    with pytest.raises(JobParamError, match="^job kind: 'nope'"):
        job_start(kind="nope", params={}, acting_user=personas["staff"])
    with pytest.raises(PermissionDenied):
        job_start(kind="test_count", params={"n": 1}, acting_user=personas["owner"])
    assert Job.objects.count() == 0


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_a_job_whose_worker_died_is_queued_again_then_given_up(personas, run_worker):
    job = job_start(kind="test_count", params={"n": 2}, acting_user=personas["staff"])
    dead = f"{this_host()}:{_dead_pid()}"
    DBTaskResult.objects.filter(id=job.task_id).update(status="RUNNING", worker_ids=[dead])
    Job.objects.filter(pk=job.pk).update(state=JobState.RUNNING, worker=dead, attempts=1, done=1, total=2)
    old_task = job.task_id
    assert [j.pk for j in jobs_recover()] == [job.pk]
    job.refresh_from_db()
    assert job.state == JobState.QUEUED and job.task_id != old_task
    assert DBTaskResult.objects.get(id=old_task).status == "FAILED"
    assert "stopped while running this job" in job.log_lines.last().line
    run_worker()
    job.refresh_from_db()
    assert job.state == JobState.SUCCEEDED and job.attempts == 2
    # A job that keeps killing its worker is not started a fourth time.
    Job.objects.filter(pk=job.pk).update(state=JobState.RUNNING, worker=dead, attempts=MAX_ATTEMPTS)
    jobs_recover()
    job.refresh_from_db()
    assert job.state == JobState.FAILED and "stopped 3 times" in job.error


def test_a_job_a_live_process_runs_is_left_alone(personas):
    job = job_start(kind="test_count", params={"n": 2}, acting_user=personas["staff"])
    import os

    Job.objects.filter(pk=job.pk).update(state=JobState.RUNNING, worker=f"{this_host()}:{os.getppid()}")
    assert jobs_recover() == []


def test_job_pages_and_json_for_those_allowed_only(client_for, personas, run_worker):
    job = job_start(kind="test_count", params={"n": 2}, acting_user=personas["staff"])
    c = client_for(personas["collector"])  # may start this kind (billing.run): sees it
    page = c.get(f"/jobs/{job.pk}/")
    assert page.status_code == 200 and "Waiting for a worker" in page.content.decode()
    assert b"jobs/job.js" in page.content and f"/api/jobs/{job.pk}/".encode() in page.content
    run_worker()
    data = c.get(f"/api/jobs/{job.pk}/").json()
    assert data["state"] == "succeeded" and (data["done"], data["total"], data["percent"]) == (2, 2, 100)
    assert data["result"] == {"counted": 2} and data["file_url"] == f"/jobs/{job.pk}/file"
    assert data["log"][-1]["line"] == "Finished." and data["started_by"] == "staff"
    f = c.get(data["file_url"])
    assert f.status_code == 200 and b"".join(f.streaming_content).startswith(b"i\n1\n")
    assert job.title in c.get("/jobs/").content.decode()
    other = client_for(personas["inspector"])
    assert other.get(f"/jobs/{job.pk}/").status_code == 404
    assert other.get(f"/api/jobs/{job.pk}/").status_code == 404
    assert other.get(f"/jobs/{job.pk}/file").status_code == 404
    assert job.title not in other.get("/jobs/").content.decode()


def test_the_api_starts_a_job_and_names_what_is_wrong(client_for, personas):
    c = client_for(personas["staff"])
    r = c.post("/api/jobs/", {"kind": "test_count", "params": {"n": 2}}, content_type="application/json")
    assert r.status_code == 202 and r.json()["state"] == "queued" and r.json()["url"].startswith("/jobs/")
    r = c.post("/api/jobs/", {"kind": "test_count", "params": {"n": -1}}, content_type="application/json")
    assert r.status_code == 400 and r.json()["error"].startswith("n:")
    r = c.post("/api/jobs/", {"kind": "test_count", "params": []}, content_type="application/json")
    assert r.status_code == 400 and r.json()["error"].startswith("params:")
    r = client_for(personas["owner"]).post("/api/jobs/", {"kind": "test_count", "params": {"n": 1}},
                                           content_type="application/json")
    assert r.status_code == 403


def test_a_page_form_starts_a_job_and_returns_to_the_page(client_for, personas):
    c = client_for(personas["staff"])
    r = c.post("/jobs/start/test_count/", {"n": "2", "next": "/bill-runs/"})
    assert r.status_code == 302 and r.url == "/bill-runs/"
    assert Job.objects.get().params == {"n": 2}
    r = c.post("/jobs/start/test_count/", {"n": "0", "next": "https://evil.example/"})
    assert r.status_code == 302 and r.url == "/jobs/"  # a foreign next is not followed; the error is shown


def test_a_foreign_page_cannot_start_a_job_with_the_session(personas):
    from django.test import Client

    c = Client(enforce_csrf_checks=True)
    c.force_login(personas["staff"])
    r = c.post("/api/jobs/", {"kind": "test_count", "params": {"n": 1}}, content_type="application/json")
    assert r.status_code == 403 and Job.objects.count() == 0
