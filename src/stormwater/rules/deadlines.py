"""The deadlines of Chapter 295 Article IV's remedies (credits, abatements, appeals) and of billing.

Pure functions (no Django); every date comes from the one calendar (``rules.calendar``).

Conventions (docs/relief.md "Clocks"):

- "within N days of X": X's own day is not counted; the N-th day after X is the last day, and a last
  day on a Saturday, Sunday or Massachusetts legal holiday rolls forward to the next business day
  (MGL c.4 §9).
- "within three months of X": the same day of the month three months later (clamped to the month's
  end), rolled forward the same way.
- "no less than 10 days prior to the hearing": the hearing date minus 10 days is the last day to
  send the notice; on a weekend or holiday it rolls *back* to the previous business day (the act
  must be done by then, so the date can only move earlier).
- "unpaid 14 days after mailing" (the demand, billing ¶D): the owner may pay through the 14th day after
  mailing, a last day that rolls forward past a weekend or holiday like any other (MGL c.4 §9); the
  Collector may commit from the day after that rolled last day, never earlier (issue 17: mailed
  2026-12-11, the 14th day is Christmas, the owner pays through Mon 12-28, commitment from Tue 12-29).
  ``due`` is that first day the Collector may commit; ``rule`` names both days (the same rule as
  ``receivables.services.commitment_due_on``).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from .calendar import add_months, holiday_name, roll_back, roll_forward

FORWARD, BACK, NONE = "forward", "back", "none"
TOWN, OWNER = "town", "owner"


@dataclass(frozen=True)
class ClockRule:
    """One deadline of the ordinance: what starts it, how long, which way it rolls, who must act."""

    name: str
    label: str
    citation: str
    start_is: str               # what the start date is ("the bill's issue date", …)
    days: int = 0               # calendar days after (or, with ``before``, before) the start
    months: int = 0             # calendar months after the start
    before: bool = False        # counts back from the hearing date
    roll: str = FORWARD
    party: str = TOWN           # who must act by the date (the Town's deadlines are flagged when missed)
    earliest: bool = False      # the date is the first day an act may be done, not a last day
    after_last_day: bool = False  # the date is the day after the other party's (rolled) last day, ``days`` after


CLOCKS: dict[str, ClockRule] = {r.name: r for r in (
    ClockRule("bill_due", "Bill due", "Ch. 295 Art. IV fee ¶B; MGL c.4 §9", "the bill's issue date", days=30,
              party=OWNER),
    ClockRule("abatement_filing", "Last day to apply for an abatement", "Ch. 295 Art. IV billing ¶E; MGL c.4 §9",
              "the bill's issue date", days=30, party=OWNER),
    ClockRule("abatement_decision", "DPW written decision on the abatement", "Ch. 295 Art. IV billing ¶E",
              "the filing of the abatement application", days=60),
    ClockRule("credit_decision", "Director's decision on the credit", "Ch. 295 Art. IV credits ¶E",
              "the day the complete application is accepted", days=30),
    ClockRule("appeal_filing", "Last day to appeal to the Select Board", "Ch. 295 Art. IV appeals ¶A",
              "the date of the written decision", days=30, party=OWNER),
    ClockRule("appeal_hearing_latest", "Select Board hearing held", "Ch. 295 Art. IV appeals ¶A",
              "the filing of the appeal", days=90),
    ClockRule("hearing_notice_latest", "Hearing notice sent to the owner", "Ch. 295 Art. IV appeals ¶A",
              "the hearing date", days=10, before=True, roll=BACK),
    ClockRule("appeal_decision", "Select Board written decision", "Ch. 295 Art. IV appeals ¶A",
              "the conclusion of the hearing", days=30),
    ClockRule("demand_to_commitment", "First day the demanded amount may be committed to the tax bill",
              "Ch. 295 Art. IV billing ¶D; MGL c.4 §9", "the mailing of the demand", days=14, roll=FORWARD, earliest=True, after_last_day=True),
    ClockRule("atb_appeal", "Last day to appeal to the Appellate Tax Board", "Ch. 295 Art. IV appeals ¶B; "
              "MGL c.4 §9", "the date of the Select Board's decision", months=3, party=OWNER),
)}


@dataclass(frozen=True)
class Deadline:
    clock: str
    start: date
    due: date          # after rolling
    unrolled: date     # before rolling
    rule: str          # the rule in words, with its citation
    owner_last_day: date | None = None  # for a clock that follows the owner's last day: that (rolled) day

    def as_json(self) -> dict:
        out = {"clock": self.clock, "start": self.start.isoformat(), "due": self.due.isoformat(),
               "unrolled": self.unrolled.isoformat(), "rolled": self.due != self.unrolled, "rule": self.rule}
        if self.owner_last_day is not None:
            out["owner_last_day"] = self.owner_last_day.isoformat()
        return out


def _why_rolled(day: date) -> str:
    name = holiday_name(day)
    return f"{name} (a legal holiday)" if name else f"a {day.strftime('%A')}"


def deadline(clock: str, start: date) -> Deadline:
    """The date of ``clock`` counted from ``start`` (for ``hearing_notice_latest``: the hearing date).

    Raises ValueError for an unknown clock.
    """
    try:
        r = CLOCKS[clock]
    except KeyError:
        raise ValueError(f"clock: unknown clock {clock!r} (one of {', '.join(CLOCKS)})") from None
    if r.months:
        unrolled = add_months(start, r.months)
        span = f"{r.months} months after {r.start_is} ({start.isoformat()})"
    elif r.before:
        unrolled = start - timedelta(days=r.days)
        span = f"{r.days} days before {r.start_is} ({start.isoformat()})"
    else:
        unrolled = start + timedelta(days=r.days)
        span = f"{r.days} days after {r.start_is} ({start.isoformat()})"
    if r.after_last_day:
        return _after_last_day(clock, r, start, unrolled)
    if r.roll == FORWARD:
        due = roll_forward(unrolled)
    elif r.roll == BACK:
        due = roll_back(unrolled)
    else:
        due = unrolled
    what = "first day" if r.earliest else "last day"
    text = f"{r.label}: {what} is {span}"
    if due != unrolled:
        way = "forward to the next" if r.roll == FORWARD else "back to the previous"
        text += (f", {unrolled.isoformat()}, {_why_rolled(unrolled)}, rolled {way} business day "
                 f"{due.isoformat()}")
    else:
        text += f": {due.isoformat()}"
    if r.earliest:
        text += " (the 14 days after mailing must have passed)"
    return Deadline(clock=clock, start=start, due=due, unrolled=unrolled, rule=f"{text} ({r.citation}).")


def _after_last_day(clock: str, r: ClockRule, start: date, last_unrolled: date) -> Deadline:
    """The first day the town may act once the owner's last day (``days`` after ``start``, rolled forward
    past weekends and holidays, MGL c.4 §9) has passed: the day after it. ``unrolled`` is the day after
    the unrolled last day (what the date would be without the roll)."""
    last = roll_forward(last_unrolled)
    due = last + timedelta(days=1)
    text = (f"{r.label}: the owner's last day to pay is {r.days} days after {r.start_is} ({start.isoformat()})")
    if last != last_unrolled:
        text += (f", {last_unrolled.isoformat()}, {_why_rolled(last_unrolled)}, rolled forward to the next business "
                 f"day {last.isoformat()}")
    else:
        text += f": {last.isoformat()}"
    text += (f"; the first day the Collector may commit is the day after that last day: {due.isoformat()} "
             f"(reading: the amount must remain unpaid through the owner's last day to pay)")
    return Deadline(clock=clock, start=start, due=due, unrolled=last_unrolled + timedelta(days=1),
                    rule=f"{text} ({r.citation}).", owner_last_day=last)


def case_clock_terms(clock: str, *, start: date, hearing_date: date | None = None) -> tuple[int, bool]:
    """(length in calendar days from ``start``, roll forward?) so that a ``cases.Clock`` started on
    ``start`` falls due on the same day as ``deadline``.

    For ``hearing_notice_latest`` the clock starts when the hearing is set (``start``) and runs to the
    rolled-back notice date for ``hearing_date``; it is negative (ValueError) when that day has passed.
    """
    r = CLOCKS[clock]
    if r.before:
        if hearing_date is None:
            raise ValueError("hearing_date: required")
        last = deadline(clock, hearing_date).due
        if last < start:
            raise ValueError(f"hearing_date: the notice for a hearing on {hearing_date.isoformat()} had to be sent "
                             f"by {last.isoformat()}")
        return (last - start).days, False
    d = deadline(clock, start)
    if r.after_last_day:  # an earliest day already rolled: the clock runs to it exactly
        return (d.due - start).days, False
    return (d.unrolled - start).days, r.roll == FORWARD


def notice_is_timely(*, sent_on: date, hearing_date: date) -> bool:
    """True when a hearing notice sent on ``sent_on`` meets "no less than 10 days prior" (appeals ¶A)."""
    return sent_on <= deadline("hearing_notice_latest", hearing_date).due


def within(clock: str, *, start: date, on: date) -> bool:
    """True when an act on ``on`` is within the clock counted from ``start`` (on or before its last day)."""
    return on <= deadline(clock, start).due
