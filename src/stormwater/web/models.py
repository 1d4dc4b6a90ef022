"""One-time form tokens (issue 16 "every submit button guards against double submission"): a form of an
irreversible act carries a random token (``{% submit_token %}``); ``web.once.submit_once`` records it before
the act runs, so a second post of the same form — a double click past the script, a resent request, a
reload of the POST — finds it and does nothing (the unique index serializes two at once)."""
from __future__ import annotations

from django.conf import settings
from django.db import models


class SubmitToken(models.Model):
    token = models.CharField(max_length=64, unique=True)  # the lookup of every guarded post (unique index)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="+")
    path = models.CharField(max_length=300)
    outcome = models.CharField(max_length=300, blank=True)  # where the first post went (its redirect)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.path} {self.created_at:%Y-%m-%d %H:%M}"
