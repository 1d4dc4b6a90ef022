"""Starting and running jobs (the framework; the kinds' bodies are in jobs/kinds/).

- ``job_start(*, kind, params, acting_user) -> Job``: checks the params and the role, records the job and
  enqueues its task in ONE transaction (the queue is in the same database, so a job is never recorded without
  its task, nor a task without its job), with an audit row.
- ``job_execute(*, job_id)`` (``runner.py``, named here too): what the worker (or a command in the foreground)
  runs: claims the job, runs the body, records the result or the error. Each of these writes is its own short
  transaction. The queue's task (``tasks.run_job``) calls it; this module enqueues that task.
- ``job_progress`` / ``job_log``: what bodies call (as ``job.progress(done, total)``, ``job.log(line)``, the
  model's methods); each a short durable transaction, so a page polling /api/jobs/<id>/ sees them live, and so no
  job can hold the database's write lock while staff post a payment (SQLite has one writer at a time).
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.db import transaction

from stormwater.audit.services import actor_or_none, audit_record

from .models import Job, JobLogLine, JobState
from .registry import kind_get, may_start
from .runner import job_execute  # noqa: F401 (named here: commands and tests run a job in the foreground)

ERR_MAY_NOT_START = "Your role may not start this job ({perm})."
ERR_NOT_FAILED = "Only a failed job can be started again; this one is {state}."


# --- starting -----------------------------------------------------------------------------------------------

@transaction.atomic
def job_start(*, kind: str, params: dict, acting_user, enqueue: bool = True) -> Job:
    """Record a job and hand it to the worker. ``acting_user`` None: the system (CLI, daily timer).
    ``enqueue=False``: the caller runs it in the foreground with ``job_execute`` (commands)."""
    k = kind_get(kind)
    actor = actor_or_none(acting_user)
    if actor is not None and not may_start(actor, k):
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
    if actor is not None and not may_start(actor, kind_get(job.kind)):
        raise PermissionDenied(ERR_MAY_NOT_START.format(perm=kind_get(job.kind).perm))
    if job.state != JobState.FAILED:
        raise ValueError(ERR_NOT_FAILED.format(state=job.get_state_display().lower()))
    job.state, job.error, job.finished_at = JobState.QUEUED, "", None
    job.save(update_fields=["state", "error", "finished_at"])
    _enqueue(job)
    JobLogLine.objects.create(job=job, line=f"Started again by {actor or 'the system'}.")
    audit_record(actor=acting_user, action="job.rerun", obj=job, why=job.title)
    return job


# --- what bodies call ---------------------------------------------------------------------------------------

def job_progress(*, job: Job, done: int, total: int | None = None) -> None:
    """Record progress ``done`` of ``total`` (``Job.progress``: a short durable transaction of its own)."""
    job.progress(done, total)


def job_log(*, job: Job, line: str) -> None:
    """Append a log line (``Job.log``: a short durable transaction of its own)."""
    job.log(line)


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
