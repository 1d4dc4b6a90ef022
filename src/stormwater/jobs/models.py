"""A background job as staff see it: what runs (kind, params), its state, progress n of N, log lines, result,
error, who started it and when; linked to the queue library's task result (django-tasks ``DBTaskResult.id``).

The queue (which worker picks what, when) belongs to the library; this record is what the job page, the JSON
API and the job bodies share. Progress, log lines and the heartbeat are written by the running job in short
transactions of their own (``Job.progress`` / ``Job.log``), so a page polling the record sees them live.
"""
from __future__ import annotations

import time

from django.conf import settings
from django.db import models, transaction
from django.utils import timezone

LOG_LINES_KEPT = 5000          # per job; a runaway body must not fill the database
PROGRESS_EVERY_SECONDS = 0.5   # progress writes at most this often (first, last and total changes always)


class JobState(models.TextChoices):
    QUEUED = "queued", "Waiting for a worker"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Finished"
    FAILED = "failed", "Failed"


FINISHED = frozenset({JobState.SUCCEEDED, JobState.FAILED})


class Job(models.Model):
    kind = models.CharField(max_length=60, help_text="registry name, e.g. bills_email")
    title = models.CharField(max_length=200)
    params = models.JSONField(default=dict, blank=True)
    subject = models.CharField(max_length=100, blank=True, db_index=True,
                               help_text="app_label.model:pk of what the job works on (the starting page lists it)")
    state = models.CharField(max_length=10, choices=JobState.choices, default=JobState.QUEUED)
    done = models.PositiveBigIntegerField(default=0)
    total = models.PositiveBigIntegerField(null=True, blank=True, help_text="None until the job knows")
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    file = models.CharField(max_length=300, blank=True, help_text="A file the job made, relative to MEDIA_ROOT")
    started_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                   related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    worker = models.CharField(max_length=100, blank=True, help_text="host:pid of the process running it")
    attempts = models.PositiveSmallIntegerField(default=0)
    task_id = models.CharField(max_length=64, blank=True, help_text="django-tasks result id (DBTaskResult.id)")

    class Meta:
        ordering = ["-created_at", "-id"]
        # Recovery reads the running jobs; the list page the newest.
        indexes = [models.Index(fields=["state"], name="job_state_idx")]

    def __str__(self) -> str:
        return f"{self.title} (job {self.pk}, {self.get_state_display()})"

    @property
    def finished(self) -> bool:
        return self.state in FINISHED

    @property
    def percent(self) -> int | None:
        """Whole percent done, None while the total is unknown."""
        if not self.total:
            return 100 if self.state == JobState.SUCCEEDED else None
        return min(100, int(self.done * 100 / self.total))

    # What task bodies call: each write is a short durable transaction of its own, so a page polling
    # /api/jobs/<id>/ sees it live, and no job holds the database's write lock while staff post a payment (SQLite
    # has one writer at a time).
    def progress(self, done: int, total: int | None = None) -> None:
        """Record progress ``done`` of ``total`` (total None: keep the known total). A short transaction of its
        own; it refuses to run inside another transaction (durable), where the page could not see it until the
        end."""
        total = self.total if total is None else total
        now = time.monotonic()
        last = getattr(self, "_progress_written", None)
        due = (last is None or total != self.total or done == total or now - last >= PROGRESS_EVERY_SECONDS)
        self.done, self.total = done, total
        if not due:
            return
        with transaction.atomic(durable=True):
            Job.objects.filter(pk=self.pk).update(done=done, total=total, heartbeat_at=timezone.now())
        self._progress_written = now

    def log(self, line: str) -> None:
        """Append a log line (short durable transaction, like progress)."""
        n = getattr(self, "_log_count", None)
        if n is None:
            n = JobLogLine.objects.filter(job=self).count()
        self._log_count = n + 1
        if n > LOG_LINES_KEPT:
            return
        if n == LOG_LINES_KEPT:
            line = f"(more than {LOG_LINES_KEPT} lines: the rest are not kept)"
        with transaction.atomic(durable=True):
            JobLogLine.objects.create(job=self, line=str(line)[:2000])
            Job.objects.filter(pk=self.pk).update(heartbeat_at=timezone.now())


class JobLogLine(models.Model):
    """One line a job wrote (what it did, what it skipped and why); append-only in practice."""

    job = models.ForeignKey(Job, on_delete=models.PROTECT, related_name="log_lines")
    at = models.DateTimeField(auto_now_add=True)
    line = models.TextField()

    class Meta:
        ordering = ["id"]
