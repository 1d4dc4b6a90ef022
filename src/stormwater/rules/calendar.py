"""The one calendar every clock uses.

- Deadlines in days are calendar days; in business days, Massachusetts business days
  (DESIGN.md "Interpretations").
- A last day that falls on a Saturday, Sunday or Massachusetts legal holiday rolls forward to the
  next business day (MGL c.4 s.9). Holidays come from the maintained ``holidays`` library
  (subdivision "MA": includes Patriots' Day, Evacuation Day is Suffolk-only and is not included).
"""
from __future__ import annotations

from datetime import date, timedelta
from functools import lru_cache

import holidays as _holidays


@lru_cache(maxsize=64)
def _ma_holidays(year: int) -> dict[date, str]:
    return dict(_holidays.country_holidays("US", subdiv="MA", years=year))


def holiday_name(day: date) -> str | None:
    """The Massachusetts legal holiday on ``day``, or None."""
    return _ma_holidays(day.year).get(day)


def is_business_day(day: date) -> bool:
    return day.weekday() < 5 and holiday_name(day) is None


def roll_forward(day: date) -> date:
    """MGL c.4 s.9: a last day on a weekend or legal holiday moves to the next business day."""
    while not is_business_day(day):
        day += timedelta(days=1)
    return day


def roll_back(day: date) -> date:
    """A "no later than N days before" date on a weekend or legal holiday moves to the previous
    business day (e.g. the hearing notice of Ch. 295 Art. IV appeals ¶A: the act must be done by then,
    so the date may only move earlier)."""
    while not is_business_day(day):
        day -= timedelta(days=1)
    return day


def add_calendar_days(start: date, days: int, *, roll: bool = True) -> date:
    """``days`` calendar days after ``start``; the last day rolls forward (MGL c.4 s.9) if ``roll``."""
    end = start + timedelta(days=days)
    return roll_forward(end) if roll else end


def add_business_days(start: date, days: int) -> date:
    """``days`` Massachusetts business days after ``start`` (the start day itself not counted)."""
    if days < 0:
        raise ValueError("days must not be negative")
    day = start
    while days:
        day += timedelta(days=1)
        if is_business_day(day):
            days -= 1
    return day


def add_months(day: date, months: int) -> date:
    """The same day of the month ``months`` later (clamped to the month's last day)."""
    m = day.month - 1 + months
    year, month = day.year + m // 12, m % 12 + 1
    for d in (day.day, 30, 29, 28):
        try:
            return date(year, month, d)
        except ValueError:
            continue
    raise AssertionError("unreachable")


_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def fmt_day(day: date) -> str:
    """A date for people, the one form on every page (issue 16): "Dec 2, 2026" — the town office's paper form,
    no period after the month, no leading zero. Locale-independent (no strftime "%b")."""
    return f"{_MONTHS[day.month - 1]} {day.day}, {day.year}"


def fmt_clock(hour: int, minute: int) -> str:
    """A wall-clock time for people: "3:05 PM", "12:00 AM"."""
    return f"{(hour % 12) or 12}:{minute:02d} {'AM' if hour < 12 else 'PM'}"


def fmt_moment(day: date, hour: int, minute: int) -> str:
    """A date and a wall-clock time for people: "Dec 2, 2026, 3:05 PM"."""
    return f"{fmt_day(day)}, {fmt_clock(hour, minute)}"
