from __future__ import annotations

from django.conf import settings
from django.db import models

from stormwater.appendonly import AppendOnlyModel


class AuditEvent(AppendOnlyModel):
    """One change of state: who, when, what, why. Append-only (database triggers, see migration)."""

    at = models.DateTimeField(auto_now_add=True, db_index=True)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                              related_name="+")
    action = models.CharField(max_length=80, db_index=True)  # e.g. "bill_run.issue"
    object_type = models.CharField(max_length=80)
    object_id = models.CharField(max_length=80, db_index=True)
    why = models.TextField(blank=True)
    data = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["object_type", "object_id"])]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.actor} {self.action} {self.object_type}#{self.object_id}"
