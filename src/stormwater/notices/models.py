"""A record of every notice emailed: to whom, what (subject, attachment and its SHA-256), for which case or
object, when it was queued (the service's transaction) and when the mail backend accepted it (after commit)."""
from django.db import models


class NoticeStatus(models.TextChoices):
    QUEUED = "queued", "Queued (sent after the transaction commits)"
    SENT = "sent", "Accepted by the mail server"
    FAILED = "failed", "Failed"


class NoticeSent(models.Model):
    case = models.ForeignKey("cases.Case", null=True, blank=True, on_delete=models.PROTECT, related_name="notices_sent")
    object_type = models.CharField(max_length=100, blank=True, help_text="app_label.model of what it is about")
    object_id = models.CharField(max_length=64, blank=True)
    kind = models.CharField(max_length=60, help_text="e.g. decision, hearing_notice, info_request, demand")
    to = models.CharField(max_length=500, help_text="comma-separated addresses")
    subject = models.CharField(max_length=300)
    attachment_name = models.CharField(max_length=255, blank=True)
    attachment_sha256 = models.CharField(max_length=64, blank=True)
    status = models.CharField(max_length=10, choices=NoticeStatus.choices, default=NoticeStatus.QUEUED)
    queued_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["-queued_at", "-id"]
        indexes = [models.Index(fields=["object_type", "object_id"], name="notice_object_idx")]

    def __str__(self) -> str:
        return f"{self.kind} to {self.to} ({self.status})"
