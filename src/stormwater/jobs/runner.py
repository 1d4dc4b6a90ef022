"""Running a job (``job_execute``): what the worker's task (``tasks.run_job``) or a command in the foreground runs.
It claims the job, runs the kind's body with a heartbeat, and records the result or the error, each write its own
short transaction. Starting jobs (and enqueueing the task) is ``services``; this module is below both."""
from __future__ import annotations

import logging
import threading
from contextlib import contextmanager

from django.core.exceptions import PermissionDenied
from django.db import connections, transaction
from django.utils import timezone

from .models import FINISHED, Job, JobLogLine, JobState
from .registry import kind_get
from .workers import worker_lost, worker_name

log = logging.getLogger(__name__)

HEARTBEAT_SECONDS = 60         # a running job's heartbeat, also during a long step without progress


def job_execute(*, job_id: int, worker: str | None = None) -> Job:
    """Run job ``job_id`` in this process. A finished job, or one a live process is running, is left alone
    (a duplicate task does nothing). The body's exception is recorded on the job and raised again."""
    worker = worker or worker_name()
    now = timezone.now()
    with transaction.atomic():
        job = Job.objects.select_for_update().get(pk=job_id)
        if job.state in FINISHED or (job.state == JobState.RUNNING and not worker_lost(job.worker, job.heartbeat_at,
                                                                                        me=worker)):
            return job
        job.state, job.worker, job.attempts = JobState.RUNNING, worker, job.attempts + 1
        job.started_at = job.heartbeat_at = now
        job.error = ""
        job.save(update_fields=["state", "worker", "attempts", "started_at", "heartbeat_at", "error"])
        JobLogLine.objects.create(job=job, line=f"Started on {worker}" + (f" (attempt {job.attempts})."
                                                                           if job.attempts > 1 else "."))
    try:
        body = kind_get(job.kind).body
        with _heartbeat(job):
            result = body(job)
    except Exception as e:
        _finish(job, JobState.FAILED, error=_message(e))
        raise
    _finish(job, JobState.SUCCEEDED, result=result if result is not None else {})
    return job


def _message(e: Exception) -> str:
    """What staff read: a refusal's own words; anything else with its type (the traceback is in the task
    result and the worker's log)."""
    if isinstance(e, (ValueError, PermissionDenied)):
        return str(e)
    return f"Unexpected error ({type(e).__name__}): {e}"


def _finish(job: Job, state: str, *, result=None, error: str = "") -> None:
    now = timezone.now()
    fields = {"state": state, "finished_at": now, "heartbeat_at": now, "error": error[:5000]}
    if state == JobState.SUCCEEDED:
        fields["result"] = result
        if job.total is not None:
            fields["done"] = job.done = job.total
    with transaction.atomic():
        # Guarded by the worker: a runner whose job was taken over after it was presumed dead changes nothing.
        if Job.objects.filter(pk=job.pk, state=JobState.RUNNING, worker=job.worker).update(**fields):
            JobLogLine.objects.create(job=job, line="Finished." if state == JobState.SUCCEEDED else f"Failed: {error}")
    for k, v in fields.items():
        setattr(job, k, v)


@contextmanager
def _heartbeat(job: Job):
    """Keep the job's heartbeat fresh while its body runs (a long step may report no progress for a while)."""
    stop = threading.Event()

    def beat():
        try:
            while not stop.wait(HEARTBEAT_SECONDS):
                try:
                    Job.objects.filter(pk=job.pk, worker=job.worker).update(heartbeat_at=timezone.now())
                except Exception:  # noqa: BLE001 - a missed beat only delays a takeover
                    log.warning("job %s: heartbeat not written", job.pk, exc_info=True)
        finally:
            connections.close_all()  # this thread's own connections

    t = threading.Thread(target=beat, name=f"job-{job.pk}-heartbeat", daemon=True)
    t.start()
    try:
        yield
    finally:
        stop.set()
        t.join()
