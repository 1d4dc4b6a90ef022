"""The outbox: every notice emailed, with its own state, so that each goes out exactly once across crashes
and re-runs (issue 15). To whom, what (subject, body, the attachment stored by its SHA-256), for which case or
object, an idempotency ``key`` (one row per key: a re-run finds it instead of queuing it twice), when it was
queued, claimed for sending (by which process) and accepted by the mail server.

States: queued → sending → sent | failed | unknown.
- ``sending`` is written in its own transaction *before* the mail server is called; ``sent`` right after it
  accepted the message. A process killed between the two leaves ``sending``: we cannot know whether the server
  accepted it, so recovery marks it ``unknown`` ("check before resending": staff look up its Message-ID in the
  mail server's log, then mark it sent or send it again). Never re-sent blindly: a duplicate bill or legal
  notice is worse than a visible question.
- ``failed`` is only used when the transport certainly did not accept the message (refused connection, bad
  address, authentication…): those are retried; an ambiguous error (a timeout mid-transfer) is ``unknown``.
"""
from django.db import models


class NoticeStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    SENDING = "sending", "Being sent"
    SENT = "sent", "Accepted by the mail server"
    FAILED = "failed", "Failed (not accepted; will be retried)"
    UNKNOWN = "unknown", "Unknown — check before resending"


class NoticeSent(models.Model):
    case = models.ForeignKey("cases.Case", null=True, blank=True, on_delete=models.PROTECT, related_name="notices_sent")
    object_type = models.CharField(max_length=100, blank=True, help_text="app_label.model of what it is about")
    object_id = models.CharField(max_length=64, blank=True)
    kind = models.CharField(max_length=60, help_text="e.g. decision, hearing_notice, info_request, demand")
    key = models.CharField(max_length=200, null=True, blank=True, unique=True,
                           help_text="idempotency key (e.g. bill:123): at most one notice per key")
    to = models.CharField(max_length=500, help_text="comma-separated addresses")
    subject = models.CharField(max_length=300)
    body = models.TextField(blank=True)
    from_email = models.CharField(max_length=300, blank=True)
    message_id = models.CharField(max_length=200, blank=True, help_text="Message-ID header (find it in the mail log)")
    attachment_name = models.CharField(max_length=255, blank=True)
    attachment_sha256 = models.CharField(max_length=64, blank=True)
    attachment_mimetype = models.CharField(max_length=100, blank=True)
    status = models.CharField(max_length=10, choices=NoticeStatus.choices, default=NoticeStatus.QUEUED)
    queued_at = models.DateTimeField(auto_now_add=True)
    sending_at = models.DateTimeField(null=True, blank=True)
    claimed_by = models.CharField(max_length=100, blank=True, help_text="host:pid of the process sending it")
    attempts = models.PositiveSmallIntegerField(default=0)
    sent_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["-queued_at", "-id"]
        indexes = [models.Index(fields=["object_type", "object_id"], name="notice_object_idx"),
                   models.Index(fields=["status"], name="notice_status_idx")]

    def __str__(self) -> str:
        return f"{self.kind} to {self.to} ({self.status})"
