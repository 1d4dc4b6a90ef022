"""Date and time formats for people (issue 16 "one date format"): FORMAT_MODULE_PATH points here, so every
``{{ a_date }}`` in a template, and the ``day``/``daytime`` filters (web/templatetags/sw.py), print a date the
way a Massachusetts town office writes it on paper: "Dec 2, 2026" (never "Dec. 2, 2026", "2026-12-02" or
"12/02/2026"), times as "3:05 PM". Input formats are Django's (ISO first), so forms keep reading ISO dates."""

from datetime import date as _date
from datetime import datetime as _datetime


def day(value: _date) -> str:
    """A date for people in Python-made text (messages, timeline lines): "Dec 2, 2026" (the ``day`` filter's form)."""
    from stormwater.rules.calendar import fmt_day

    return fmt_day(value.date() if isinstance(value, _datetime) else value)


def moment(value: _datetime) -> str:
    """A moment for people in Python-made text: "Dec 2, 2026, 3:05 PM" in the town's time zone."""
    from django.utils import timezone

    from stormwater.rules.calendar import fmt_moment

    if timezone.is_aware(value):
        value = timezone.localtime(value)
    return fmt_moment(value.date(), value.hour, value.minute)
