"""After a crash: jobs whose process died (``kill -9``, power loss, OOM) go back to the queue.

The queue library (django-tasks' database backend) marks a task RUNNING when a worker claims it and has no
notion of that worker dying: the task would stay RUNNING and the job "running" forever. ``jobs_recover``
finds them — on this host by the process being gone, elsewhere by a stale heartbeat (workers.worker_lost) —
marks the dead task failed (so the library's record is honest too) and enqueues the job again, up to
``MAX_ATTEMPTS``; a job that keeps killing its worker fails with that said. The job bodies are idempotent,
so the re-run reaches the same result and repeats no side effect. ``stormwater worker`` runs this at start.
"""
from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from .models import Job, JobLogLine, JobState
from .workers import worker_lost, worker_name

MAX_ATTEMPTS = 3
ERR_GAVE_UP = ("The worker running this job stopped {n} times (killed or crashed) before it finished; it was not "
               "started again. Look at the log, fix the cause, then start it again.")
TASK_PATH = "stormwater.jobs.tasks.run_job"


def _lost_task_workers(me: str | None) -> dict[str, str]:
    """task id → worker, of this app's tasks claimed by a worker that is gone (another host's: by the claim's
    age, the job's own heartbeat is read for running jobs)."""
    out = {}
    for t in DBTaskResult.objects.filter(status="RUNNING", task_path=TASK_PATH).only("id", "worker_ids", "started_at"):
        w = t.worker_ids[-1] if t.worker_ids else ""
        if worker_lost(w, t.started_at, me=me):
            out[str(t.id)] = w
    return out


def jobs_recover(*, starting: bool = False) -> list[Job]:
    """Re-queue (or fail, past MAX_ATTEMPTS) every job whose process is gone. Returns the jobs it touched.
    ``starting``: called by a worker before it runs anything, so nothing can be running under its own name."""
    me = worker_name() if starting else None
    lost_tasks = _lost_task_workers(me)
    touched = []
    candidates = Job.objects.filter(state=JobState.RUNNING) | Job.objects.filter(
        state=JobState.QUEUED, task_id__in=list(lost_tasks))
    for job in candidates:
        if job.state == JobState.RUNNING and not worker_lost(job.worker, job.heartbeat_at, me=me):
            continue
        with transaction.atomic():
            j = Job.objects.select_for_update().get(pk=job.pk)
            if (j.state, j.worker, j.task_id) != (job.state, job.worker, job.task_id):
                continue  # it moved on meanwhile
            who = j.worker or lost_tasks.get(j.task_id, "a worker")
            DBTaskResult.objects.filter(id=j.task_id or None, status="RUNNING").update(
                status="FAILED", finished_at=timezone.now(), exception_class_path="stormwater.jobs.WorkerLost",
                traceback=f"The worker {who} stopped while running this task (killed or crashed).")
            if j.attempts >= MAX_ATTEMPTS:
                j.state, j.error, j.finished_at = JobState.FAILED, ERR_GAVE_UP.format(n=j.attempts), timezone.now()
                j.save(update_fields=["state", "error", "finished_at"])
                JobLogLine.objects.create(job=j, line=f"Failed: {j.error}")
            else:
                from .services import _enqueue

                j.state = JobState.QUEUED
                j.save(update_fields=["state"])
                _enqueue(j)
                JobLogLine.objects.create(job=j, line=f"The worker {who} stopped while running this job (killed "
                                                      f"or crashed) at {j.done} of {j.total or '?'}; queued again.")
            touched.append(j)
    for task_id in set(lost_tasks) - {j.task_id for j in touched}:  # a lost task with no job waiting on it
        DBTaskResult.objects.filter(id=task_id, status="RUNNING").update(
            status="FAILED", finished_at=timezone.now(), exception_class_path="stormwater.jobs.WorkerLost",
            traceback=f"The worker {lost_tasks[task_id]} stopped while running this task (killed or crashed).")
    return touched
