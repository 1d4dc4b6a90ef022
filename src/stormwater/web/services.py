"""Writes of the web layer's own records (the shape of every app's services.py)."""
from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from stormwater.audit.services import audit_record

from .models import SubmitToken


@transaction.atomic
def submit_tokens_purge(*, keep_days: int | None = None, now=None, acting_user=None) -> int:
    """Delete the double-submission guard's tokens (web/once.py) older than ``keep_days`` (default: the town's
    ``submit_token_keep_days``, rules/town.py). Run by the daily sweep; returns how many went. The rows are a
    short-lived guard, not a record of any act (each act has its own audit row), so they are deleted, and the
    purge itself is audited with its count."""
    from stormwater.townconfig import town_config

    days = town_config().submit_token_keep_days if keep_days is None else keep_days
    if days < 1:
        raise ValueError("keep_days must be at least 1")
    before = (now or timezone.now()) - timedelta(days=days)
    count, _ = SubmitToken.objects.filter(created_at__lt=before).delete()
    if count:
        audit_record(actor=acting_user, action="submit_tokens.purge", object_type="web.submittoken",
                     data={"deleted": count, "created_before": before.isoformat(timespec="seconds")})
    return count
