"""A person's calendar feed of their work queue (issue 16): a secret URL a calendar client subscribes to.

Calendar clients cannot send a session cookie, so the URL itself is the credential: 32 random bytes, of which
only a SHA-256 hash is stored (shown once, like an API token); the person resets it (the old URL stops
working) or revokes it. The feed shows what the person's role and parties show today (computed on each fetch);
a deactivated account's feed stops."""
from __future__ import annotations

from django.conf import settings
from django.db import models


class CalendarFeed(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="calendar_feeds")
    key_hash = models.CharField(max_length=64, unique=True)  # the lookup of every fetch (unique index)
    prefix = models.CharField(max_length=12)                 # shown so the person can tell which link is live
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            # One live link per person: a new one replaces (revokes) the old.
            models.UniqueConstraint(fields=["user"], condition=models.Q(revoked_at__isnull=True),
                                    name="one_live_calendar_feed_per_user"),
        ]

    @property
    def active(self) -> bool:
        return self.revoked_at is None
