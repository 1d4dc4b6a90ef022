"""Starting and running jobs (the framework; the kinds' bodies are in jobs/kinds/).

- ``job_start(*, kind, params, acting_user) -> Job``: checks the params and the role, records the job and
  enqueues its task in ONE transaction (the queue is in the same database, so a job is never recorded without
  its task, nor a task without its job), with an audit row.
- ``job_execute(*, job_id)``: what the worker (or a command in the foreground) runs: claims the job, runs
  the body, records the result or the error. Each of these writes is its own short transaction.
- ``job_progress`` / ``job_log``: what bodies call (as ``job.progress(done, total)``, ``job.log(line)``);
  each a short durable transaction, so a page polling /api/jobs/<id>/ sees them live, and so no job can hold
  the database's write lock while staff post a payment (SQLite has one writer at a time).
"""
from __future__ import annotations

import logging
import os
import threading
import time
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.db import connections, transaction
from django.utils import timezone

from stormwater.audit.services import actor_or_none, audit_record

from .models import FINISHED, Job, JobLogLine, JobState
from .registry import kind_get
from .workers import worker_lost, worker_name

log = logging.getLogger(__name__)

ERR_MAY_NOT_START = "Your role may not start this job ({perm})."
ERR_NOT_FAILED = "Only a failed job can be started again; this one is {state}."
LOG_LINES_KEPT = 5000          # per job; a runaway body must not fill the database
PROGRESS_EVERY_SECONDS = 0.5   # progress writes at most this often (first, last and total changes always)
HEARTBEAT_SECONDS = 60         # a running job's heartbeat, also during a long step without progress


# --- starting -----------------------------------------------------------------------------------------------

@transaction.atomic
def job_start(*, kind: str, params: dict, acting_user, enqueue: bool = True) -> Job:
    """Record a job and hand it to the worker. ``acting_user`` None: the system (CLI, daily timer).
    ``enqueue=False``: the caller runs it in the foreground with ``job_execute`` (commands)."""
    k = kind_get(kind)
    actor = actor_or_none(acting_user)
    if actor is not None and not actor.can(k.perm):
        raise PermissionDenied(ERR_MAY_NOT_START.format(perm=k.perm))
    params = k.clean(dict(params or {}))
    job = Job.objects.create(kind=k.name, title=k.title(params)[:200], params=params, subject=k.subject(params),
                             started_by=actor)
    if enqueue:
        _enqueue(job)
    audit_record(actor=acting_user, action="job.start", obj=job, why=job.title, data={"kind": kind, "params": params})
    return job


def _enqueue(job: Job) -> None:
    from .tasks import run_job

    job.task_id = str(run_job.enqueue(job.pk).id)
    job.save(update_fields=["task_id"])


@transaction.atomic
def job_rerun(*, job: Job, acting_user) -> Job:
    """Start a failed job again with the same params (its body is idempotent: the same result, no side effect
    repeated)."""
    job = Job.objects.select_for_update().get(pk=job.pk)
    actor = actor_or_none(acting_user)
    if actor is not None and not actor.can(kind_get(job.kind).perm):
        raise PermissionDenied(ERR_MAY_NOT_START.format(perm=kind_get(job.kind).perm))
    if job.state != JobState.FAILED:
        raise ValueError(ERR_NOT_FAILED.format(state=job.get_state_display().lower()))
    job.state, job.error, job.finished_at = JobState.QUEUED, "", None
    job.save(update_fields=["state", "error", "finished_at"])
    _enqueue(job)
    JobLogLine.objects.create(job=job, line=f"Started again by {actor or 'the system'}.")
    audit_record(actor=acting_user, action="job.rerun", obj=job, why=job.title)
    return job


# --- running ------------------------------------------------------------------------------------------------

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


# --- what bodies call ---------------------------------------------------------------------------------------

def job_progress(*, job: Job, done: int, total: int | None = None) -> None:
    """Record progress ``done`` of ``total`` (total None: keep the known total). A short transaction of its own;
    it refuses to run inside another transaction (durable), where the page could not see it until the end."""
    total = job.total if total is None else total
    now = time.monotonic()
    last = getattr(job, "_progress_written", None)
    due = (last is None or total != job.total or done == total or now - last >= PROGRESS_EVERY_SECONDS)
    job.done, job.total = done, total
    if not due:
        return
    with transaction.atomic(durable=True):
        Job.objects.filter(pk=job.pk).update(done=done, total=total, heartbeat_at=timezone.now())
    job._progress_written = now


def job_log(*, job: Job, line: str) -> None:
    """Append a log line (short durable transaction, like progress)."""
    n = getattr(job, "_log_count", None)
    if n is None:
        n = JobLogLine.objects.filter(job=job).count()
    job._log_count = n + 1
    if n > LOG_LINES_KEPT:
        return
    if n == LOG_LINES_KEPT:
        line = f"(more than {LOG_LINES_KEPT} lines: the rest are not kept)"
    with transaction.atomic(durable=True):
        JobLogLine.objects.create(job=job, line=str(line)[:2000])
        Job.objects.filter(pk=job.pk).update(heartbeat_at=timezone.now())


# --- files a job makes --------------------------------------------------------------------------------------

def job_file_path(job: Job, name: str) -> Path:
    folder = Path(settings.MEDIA_ROOT) / "jobs" / str(job.pk)
    folder.mkdir(parents=True, exist_ok=True)
    return folder / Path(name).name


@contextmanager
def job_file(job: Job, name: str):
    """Write the job's downloadable file: yields a temporary path; on success the file is moved into place
    (atomic rename) and recorded on the job, so nobody ever downloads half a file."""
    final = job_file_path(job, name)
    tmp = final.with_name(f".{final.name}.{os.getpid()}.part")
    try:
        yield tmp
        os.replace(tmp, final)
    finally:
        tmp.unlink(missing_ok=True)
    rel = final.relative_to(Path(settings.MEDIA_ROOT)).as_posix()
    with transaction.atomic(durable=True):
        Job.objects.filter(pk=job.pk).update(file=rel)
    job.file = rel
