"""The work queue as an iCalendar feed (RFC 5545), written with the ``icalendar`` library.

Each dated item is one event: all day on its due date, or at its hour when the rule counts hours (a storm
inspection within 24 hours, a noticed inspection). Its UID is stable across fetches (the item's kind, record
and title, not its date), so a calendar moves the event when a clock is extended or tolled instead of adding
a second one. Undated items (a clock that stands still) are not in the calendar: they have no day."""
from __future__ import annotations

import hashlib
from datetime import timedelta
from datetime import timezone as dt_timezone

from django.utils import timezone
from icalendar import Calendar, Event

from .registry import Queue, WorkItem

PRODID = "-//Town of Longmeadow DPW Stormwater Division//Work queue//EN"
UID_DOMAIN = "stormwater.longmeadow.work-queue"
STORM_EVENT = timedelta(hours=1)


def item_uid(item: WorkItem) -> str:
    digest = hashlib.sha256(f"{item.kind}|{item.record_label}|{item.title}".encode()).hexdigest()[:24]
    return f"{digest}@{UID_DOMAIN}"


def queue_calendar(queue: Queue, *, name: str, absolute) -> bytes:
    """``absolute(path)`` → the absolute URL of a path (the request's host)."""
    cal = Calendar()
    cal.add("prodid", PRODID)
    cal.add("version", "2.0")
    cal.add("calscale", "GREGORIAN")
    cal.add("x-wr-calname", name)
    cal.add("x-published-ttl", "PT1H")  # ask clients to refetch hourly: clocks move when acts are recorded
    stamp = timezone.now()
    for item in queue.items:
        if item.due is None:
            continue
        ev = Event()
        ev.add("uid", item_uid(item))
        ev.add("dtstamp", stamp)
        if item.due_at is not None:
            # in UTC (…Z): valid without a VTIMEZONE block; every client shows it in the reader's own zone
            start = item.due_at.astimezone(dt_timezone.utc)
            ev.add("dtstart", start)
            ev.add("dtend", start + STORM_EVENT)
        else:
            ev.add("dtstart", item.due)
            ev.add("dtend", item.due + timedelta(days=1))
            ev.add("transp", "TRANSPARENT")  # an all-day deadline does not make the person busy
        ev.add("summary", ("OVERDUE: " if item.overdue else "") + f"{item.action} — {item.title}")
        ev.add("description", "\n".join(x for x in (item.detail, f"Rule: {item.citation}",
                                                     absolute(item.act_url)) if x))
        ev.add("url", absolute(item.act_url))
        ev.add("categories", [item.source])
        cal.add_component(ev)
    return cal.to_ical()
