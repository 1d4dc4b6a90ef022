"""The one task the queue library runs: execute a Job by id (the kind's body does the work)."""
from __future__ import annotations

from django_tasks import task

from .runner import job_execute


@task()
def run_job(job_id: int) -> dict:
    job = job_execute(job_id=job_id)
    return {"job": job.pk, "state": job.state}
