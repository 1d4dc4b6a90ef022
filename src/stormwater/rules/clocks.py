"""Clock arithmetic: every deadline of the ordinances as a start, a length, tolling and extensions.

Pure functions (no Django); the one calendar is ``rules.calendar`` (MA holidays, MGL c.4 §9).

Conventions (docs/permits.md "Clocks"):

- A clock starts on its start event's date; that day is not counted ("within 42 days of the date of
  filing": day 1 is the day after filing).
- Calendar-day clocks count every day; the last day rolls forward past a weekend or Massachusetts
  legal holiday to the next business day (MGL c.4 §9). Business-day clocks count only Massachusetts
  business days, so their last day is already a business day.
- A *toll* is a closed interval of dates [first, last] on which the clock is stopped (waiting on the
  applicant, an appeal pending). A day on which the clock stood still at any moment does not count:
  a toll opened and closed on the same day costs one day, and a business-day clock tolled by an
  appeal "resumes on the first business day after the appeal is either denied or upheld"
  (Ch. 380 § 380-10 G(2)(d)). An open toll (no last day yet) stops the clock: there is no due date
  until it closes, only the days that will remain.
- An *extension* adds days to the length (agreed extensions, the Director's additional time,
  § 380-10 I(2)); each carries its reason.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from enum import Enum

from .calendar import is_business_day, roll_forward


class Unit(str, Enum):
    CALENDAR = "calendar"
    BUSINESS = "business"


@dataclass(frozen=True)
class Toll:
    """Dates [first, last] on which the clock is stopped; ``last`` None while still stopped."""

    first: date
    last: date | None
    reason: str = ""

    def covers(self, day: date) -> bool:
        return self.first <= day and (self.last is None or day <= self.last)


@dataclass(frozen=True)
class Extension:
    days: int
    reason: str = ""


@dataclass(frozen=True)
class ClockState:
    """Where a clock stands: its due date (None while stopped) and the facts behind it."""

    start: date
    length: int                      # days of the clock itself [days]
    extended_by: int                 # sum of extensions [days]
    unit: Unit
    due: date | None                 # last day, after roll-forward; None while an open toll stops it
    unrolled_due: date | None        # the last day before MGL c.4 §9 roll-forward (calendar clocks)
    tolled_days: int                 # days (of the clock's unit) not counted because of tolls
    stopped_since: date | None       # first day of the open toll, if stopped
    remaining_when_stopped: int | None  # days left to count once the open toll closes
    tolls: tuple[Toll, ...] = field(default=())
    extensions: tuple[Extension, ...] = field(default=())

    @property
    def stopped(self) -> bool:
        return self.stopped_since is not None


MAX_SPAN_DAYS = 20 * 366  # a clock this long is a data error, not a deadline


def clock_state(*, start: date, length: int, unit: Unit | str = Unit.CALENDAR, tolls: tuple[Toll, ...] | list = (),
                extensions: tuple[Extension, ...] | list = (), roll: bool = True) -> ClockState:
    """The due date of a clock of ``length`` days (``unit``) from ``start``, given its tolls and extensions.

    Parameters
    ----------
    start : the start event's date (not counted)
    length : the clock's own length [days of ``unit``], ≥ 0
    unit : calendar days or Massachusetts business days
    tolls : stopped intervals; they may overlap, and may begin before ``start`` (ignored there)
    extensions : days added, each with its reason
    roll : calendar clocks only: roll a last day on a weekend/holiday forward (MGL c.4 §9)
    """
    unit = Unit(unit)
    if length < 0:
        raise ValueError("length must not be negative")
    tolls = tuple(sorted(tolls, key=lambda t: t.first))
    extensions = tuple(extensions)
    for t in tolls:
        if t.last is not None and t.last < t.first:
            raise ValueError(f"toll ends ({t.last}) before it starts ({t.first})")
    extended_by = sum(e.days for e in extensions)
    if length + extended_by < 0:
        raise ValueError("extensions may not shorten a clock below zero days")
    total = length + extended_by

    def counts(day: date) -> bool:
        return unit is Unit.CALENDAR or is_business_day(day)

    counted = tolled = 0
    day = start
    while counted < total:
        day += timedelta(days=1)
        if (day - start).days > MAX_SPAN_DAYS:
            raise ValueError("clock runs longer than twenty years: check its tolls")
        open_toll = next((t for t in tolls if t.covers(day)), None)
        if open_toll is not None:
            if open_toll.last is None:
                return ClockState(start=start, length=length, extended_by=extended_by, unit=unit, due=None,
                                  unrolled_due=None, tolled_days=tolled, stopped_since=open_toll.first,
                                  remaining_when_stopped=total - counted, tolls=tolls, extensions=extensions)
            if counts(day):
                tolled += 1
            continue
        if counts(day):
            counted += 1
    due = roll_forward(day) if (roll and unit is Unit.CALENDAR) else day
    # An open toll that begins after the last day does not stop a clock that has already run out.
    return ClockState(start=start, length=length, extended_by=extended_by, unit=unit, due=due, unrolled_due=day,
                      tolled_days=tolled, stopped_since=None, remaining_when_stopped=None, tolls=tolls,
                      extensions=extensions)


class Standing(str, Enum):
    RUNNING = "running"
    STOPPED = "stopped"
    DUE_TODAY = "due today"
    OVERDUE = "overdue"
    LAPSED = "lapsed"
    MET = "met"


def clock_standing(state: ClockState, *, today: date, met_on: date | None = None, window: bool = False) -> Standing:
    """RUNNING / STOPPED / DUE_TODAY / OVERDUE as of ``today``; MET once the act was done (``met_on``).

    A *window* is a right that lapses rather than a duty that falls due (e.g. withdrawing without
    consultant cost within five days): past its last day it is LAPSED, not OVERDUE.
    """
    if met_on is not None:
        return Standing.MET
    if state.due is None:
        return Standing.STOPPED
    if today > state.due:
        return Standing.LAPSED if window else Standing.OVERDUE
    if today == state.due:
        return Standing.DUE_TODAY
    return Standing.RUNNING


def days_left(state: ClockState, *, today: date) -> int | None:
    """Calendar days from ``today`` to the due date (negative when overdue); None while stopped."""
    return None if state.due is None else (state.due - today).days


def length_to_date(start: date, last_day: date) -> int:
    """The calendar-day length of a clock whose last day someone chose (e.g. the Director's cure date)."""
    if last_day < start:
        raise ValueError("the last day must not be before the start")
    return (last_day - start).days


def interval_is_at_least(earlier: date, later: date, days: int) -> bool:
    """True when ``later`` is at least ``days`` calendar days after ``earlier`` (notice periods)."""
    return (later - earlier).days >= days
