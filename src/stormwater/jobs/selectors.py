"""Reading jobs: who may see which (the one access function), recent lists, the JSON shape."""
from __future__ import annotations

from django.db.models import Model, Q, QuerySet
from django.http import Http404
from django.urls import reverse
from django.utils.timezone import localtime

from .models import Job, JobLogLine
from .registry import KINDS, sees_all

LOG_TAIL = 200  # lines shown on the page and in the JSON (newest last)


def _visible(user) -> Q:
    kinds = [k.name for k in KINDS.values() if sees_all(user, k)]
    return Q(kind__in=kinds) | Q(started_by=user)


def jobs_visible(*, user) -> QuerySet[Job]:
    """Every job the user may see: those of kinds their role may start, and their own (the jobs list)."""
    return Job.objects.filter(_visible(user)).select_related("started_by")


def jobs_for_user(*, user, limit: int = 100) -> QuerySet[Job]:
    """Recent jobs the user may see: those of kinds their role may start, and their own."""
    return jobs_visible(user=user)[:limit]


def job_get_for_user(*, user, job_id: int) -> Job:
    """The job, or 404 when there is none or the user may not see it (no probing of ids)."""
    job = Job.objects.filter(_visible(user), pk=job_id).select_related("started_by").first()
    if job is None:
        raise Http404("No such job.")
    return job


def subject_of(obj: Model) -> str:
    return f"{obj._meta.label_lower}:{obj.pk}"


def jobs_for_subject(*, user, obj: Model, limit: int = 10) -> QuerySet[Job]:
    """The jobs about one record (a bill run, a GIS import), for its page to show them live."""
    return Job.objects.filter(_visible(user), subject=subject_of(obj)).select_related("started_by")[:limit]


def job_log_tail(job: Job, n: int = LOG_TAIL) -> list[JobLogLine]:
    return list(reversed(JobLogLine.objects.filter(job=job).order_by("-id")[:n]))


def job_json(job: Job, *, log_lines: int = LOG_TAIL) -> dict:
    """The JSON of /api/jobs/<id>/ (documented in docs/jobs.md; the job page polls it)."""
    lines = job_log_tail(job, log_lines)
    return {
        "id": job.pk, "kind": job.kind, "title": job.title, "params": job.params, "subject": job.subject,
        "state": job.state, "state_label": job.get_state_display(), "finished": job.finished,
        "done": job.done, "total": job.total, "percent": job.percent,
        "result": job.result, "error": job.error or None,
        "file_url": reverse("job_file", args=[job.pk]) if job.file else None,
        "url": reverse("job_detail", args=[job.pk]),
        "started_by": job.started_by.username if job.started_by_id else None,
        "created_at": localtime(job.created_at).isoformat(),
        "started_at": localtime(job.started_at).isoformat() if job.started_at else None,
        "finished_at": localtime(job.finished_at).isoformat() if job.finished_at else None,
        "attempts": job.attempts, "task_id": job.task_id or None,
        "log": [{"at": localtime(ln.at).isoformat(), "line": ln.line} for ln in lines],
    }
