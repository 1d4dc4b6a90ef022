"""Writes of the work queue: a person's calendar feed link, issued (replacing the live one) and revoked.
Each in one transaction with one audit row (STYLE.md habit 2)."""
from __future__ import annotations

import hashlib
import secrets

from django.db import transaction
from django.utils import timezone

from stormwater.audit.services import audit_record

from .models import CalendarFeed

SECRET_PREFIX = "swcal_"
ERR_NO_FEED = "You have no calendar link to revoke."


class FeedError(ValueError):
    """A calendar-link act refused; the message says why."""


def feed_key_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


@transaction.atomic
def calendar_feed_issue(*, user, acting_user) -> tuple[CalendarFeed, str]:
    """A new secret calendar link for ``user`` → (row, secret). Any live link of theirs stops working now.
    The secret is returned this once and never stored."""
    now = timezone.now()
    old = list(CalendarFeed.objects.select_for_update().filter(user=user, revoked_at__isnull=True))
    CalendarFeed.objects.filter(pk__in=[f.pk for f in old]).update(revoked_at=now)
    secret = SECRET_PREFIX + secrets.token_urlsafe(32)
    feed = CalendarFeed.objects.create(user=user, key_hash=feed_key_hash(secret), prefix=secret[:12])
    audit_record(actor=acting_user, action="calendar_feed.issue", obj=feed,
                 why="Calendar link of the work queue issued" + (" (the previous link stopped working)" if old else ""),
                 data={"user": user.username, "prefix": feed.prefix, "replaced": [f.prefix for f in old]})
    return feed, secret


@transaction.atomic
def calendar_feed_revoke(*, user, acting_user) -> CalendarFeed:
    feed = CalendarFeed.objects.select_for_update().filter(user=user, revoked_at__isnull=True).first()
    if feed is None:
        raise FeedError(ERR_NO_FEED)
    feed.revoked_at = timezone.now()
    feed.save(update_fields=["revoked_at"])
    audit_record(actor=acting_user, action="calendar_feed.revoke", obj=feed, why="Calendar link revoked",
                 data={"user": user.username, "prefix": feed.prefix})
    return feed

