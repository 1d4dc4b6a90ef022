"""The template filters every page uses for what people read (issue 16, STYLE.md habit 14).

- ``usd``: THE money filter: ``{{ bill.amount|usd }}`` → "$1,234.56" ("-$12.50" below zero). Never write a
  "$" in front of it. ``money`` is the bare number ("1,234.56") for the few places that print their own sign
  (e.g. "+$12.50" differences) and for templates written before ``usd``.
- ``day``: THE date filter: ``{{ d|day }}`` → "Dec 2, 2026"; ``{{ d|day:"weekday" }}`` → "Wed, Dec 2, 2026"
  (deadlines); a datetime is shown in the town's time zone. ``daytime`` → "Dec 2, 2026, 3:05 PM".
  A bare ``{{ d }}`` prints the same form (FORMAT_MODULE_PATH, stormwater/formats/en/formats.py).
- Inputs keep ISO values (``value="{{ d|date:'Y-m-d' }}"``): those are read by the browser, not by people.
"""
import re
from datetime import date, datetime
from decimal import Decimal, InvalidOperation

from django import template
from django.utils import timezone
from django.utils.dateformat import format as date_format

from stormwater.rules.calendar import fmt_day, fmt_moment
from stormwater.rules.money import fmt_display, fmt_ratio, fmt_usd

register = template.Library()

DAY = "M j, Y"                  # Dec 2, 2026 (stormwater/formats/en/formats.py DATE_FORMAT)
WEEKDAY = "D, M j, Y"           # Wed, Dec 2, 2026
DAYTIME = "M j, Y, g:i A"       # Dec 2, 2026, 3:05 PM
TIME = "g:i A"                  # 3:05 PM


def _decimal(value) -> Decimal | None:
    if value in (None, ""):
        return None
    try:
        return Decimal(str(value))
    except (InvalidOperation, ValueError):
        return None


@register.filter
def ratio(value):
    """A coefficient or percent without trailing zeros: 1.000 → 1.0, 0.900 → 0.9."""
    return fmt_ratio(Decimal(str(value))) if value not in (None, "") else ""


@register.filter
def money(value):
    """The bare amount with thousands separators: 2828.11 → 2,828.11 (prefer ``usd``)."""
    return fmt_display(Decimal(str(value))) if value not in (None, "") else ""


@register.filter
def usd(value):
    """Money for people: 2828.11 → $2,828.11; -12.5 → -$12.50; empty stays empty."""
    d = _decimal(value)
    return "" if d is None else fmt_usd(d)


def _local(value):
    if isinstance(value, datetime) and timezone.is_aware(value):
        return timezone.localtime(value)
    return value


@register.filter(expects_localtime=True)
def day(value, form: str = ""):
    """A date (or a datetime's date) for people: "Dec 2, 2026"; form "weekday": "Wed, Dec 2, 2026";
    "time": "3:05 PM" (a datetime's time only). Anything else is returned as it is."""
    if not isinstance(value, (date, datetime)):
        return value if value not in (None,) else ""
    value = _local(value)
    if form == "time":
        return date_format(value, TIME) if isinstance(value, datetime) else ""
    return date_format(value, WEEKDAY if form == "weekday" else DAY)


@register.filter(expects_localtime=True)
def daytime(value, form: str = ""):
    """A moment for people: "Dec 2, 2026, 3:05 PM" (the town's time zone); form "weekday":
    "Wed, Dec 2, 2026, 3:05 PM". A plain date prints as ``day``."""
    if not isinstance(value, (date, datetime)):
        return value if value is not None else ""
    value = _local(value)
    weekday = "D, " if form == "weekday" else ""
    return date_format(value, weekday + (DAYTIME if isinstance(value, datetime) else DAY))


_ISO_MOMENT = re.compile(r"(?<![\w/-])(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?(?:[+-]\d{2}:?\d{2}|Z)?)?(?![\w-])")
_BARE_DOLLARS = re.compile(r"\$(-?)(\d{4,})\.(\d{2})(?!\d)")


def _people_moment(m: re.Match) -> str:
    try:
        d = date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return m.group(0)
    if m.group(4) is None:
        return fmt_day(d)
    return fmt_moment(d, int(m.group(4)), int(m.group(5)))


@register.filter
def people(text):
    """Text made by the services for everyone (API, CLI, web) speaks ISO dates ("due 2026-12-05"); on a page it is
    shown in the one form for people: "due Dec 5, 2026", "2026-12-02 09:00" → "Dec 2, 2026, 9:00 AM", and a
    "$64000.00" gets its thousands separators. Used on messages, form errors, timelines and document titles
    (stored text is never rewritten: only its display)."""
    if text in (None, ""):
        return "" if text is None else text
    s = _ISO_MOMENT.sub(_people_moment, str(text))
    return _BARE_DOLLARS.sub(lambda m: f"{m.group(1)}${int(m.group(2)):,}.{m.group(3)}", s)
