"""Construction inspections and stabilization: when the next one is due (pure; no Django).

Ch. 380 § 380-16 C(4)(b)[1]: erosion and sedimentation control measures are inspected before the
start of construction, then "based on the frequencies articulated in Section 4 of EPA's 2022
Construction General Permit". § 380-11 C(1): where Ch. 380 and the CGP differ, the stricter prevails.
§ 380-11 C(3)(a): stabilization no more than seven days after construction activity has temporarily
or permanently ceased on that portion of the site.

EPA 2022 CGP Part 4 (shared/reference/engineering/epa_cgp2022_inspection_frequency.json):

- 4.2 standard frequency, the operator's choice: (a) at least once every 7 calendar days, or
  (b) once every 14 calendar days AND within 24 hours of a storm producing ≥ 0.25 in of rain in
  24 hours or a snowmelt discharge from a storm producing ≥ 3.25 in of snow in 24 hours.
- 4.3.1 sites discharging to sediment- or nutrient-impaired waters or to Tier 2, 2.5 or 3 waters
  ("sensitive receiving waters"): once every 7 calendar days AND within 24 hours of such a storm —
  whatever frequency was chosen.
- 4.4 reductions: stabilized areas, frozen conditions. The shared reference records that the
  Part 4.4 text was NOT retrieved; the values below are those of CGP 2022 Part 4.4 as the Division
  reads it and are module constants so a correction is one line:
  4.4.1 an area where stabilization is complete: twice in the first month (≤ 14 days apart), then
  once a month; the reduction ends when construction resumes there. Sensitive-water sites keep the
  storm trigger (stricter, § 380-11 C(1)).
  4.4.3 frozen conditions: (a) work suspended and disturbed areas stabilized → inspections may be
  suspended until thawing begins; (b) work continuing → once a month. Either ends at the thaw.

Days are calendar days counted from the last inspection on the routine schedule (a storm inspection does not
move it: Part 4.2(b) joins the two obligations with "and"); a due day on a weekend or holiday is NOT rolled
forward (the CGP counts calendar days and a storm does not wait for Monday; MGL c.4 §9 governs statutory periods
for acts of the Town and applicants, not field inspection intervals). The storm window is 24 elapsed hours
("within 24 hours of the occurrence"), which on a daylight-saving weekend ends an hour later or earlier on the
wall clock than the storm's end did (``storm_deadline``).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from enum import Enum

from .calendar import fmt_clock

RAIN_TRIGGER_IN = 0.25          # CGP 2022 Part 4.2(b), 4.3.1: ≥ 0.25 in of rain in 24 hours
SNOW_TRIGGER_IN = 3.25          # CGP 2022 Part 4.2(b), 4.3.1: snowmelt from ≥ 3.25 in of snow in 24 hours
STORM_RESPONSE = timedelta(hours=24)   # "within 24 hours of the occurrence": 24 elapsed hours (storm_deadline)
OPTION_A_DAYS = 7               # CGP Part 4.2(a)
OPTION_B_DAYS = 14              # CGP Part 4.2(b)
SENSITIVE_DAYS = 7              # CGP Part 4.3.1
STABILIZED_FIRST_MONTH_DAYS = 14  # CGP Part 4.4.1: twice in the first month, ≤ 14 days apart
STABILIZED_FIRST_MONTH = 30       # the "first month" after stabilization [days]
MONTHLY_DAYS = 30                 # "once per month" [days]
STABILIZATION_DAYS = 7          # Ch. 380 § 380-11 C(3)(a)
NOTICE_HOURS = 24               # Ch. 380 § 380-16 C(3): the design engineer's notice of each inspection


class Frequency(str, Enum):
    """The operator's choice under CGP 2022 Part 4.2."""

    EVERY_7_DAYS = "7day"                 # 4.2(a)
    EVERY_14_DAYS_AND_STORMS = "14day_storm"  # 4.2(b)


class Frozen(str, Enum):
    NO = "no"
    SUSPENDED = "suspended"     # 4.4.3(a): work suspended, disturbed areas stabilized
    CONTINUING = "continuing"   # 4.4.3(b): work goes on in frozen conditions


@dataclass(frozen=True)
class Storm:
    """A 24-hour precipitation total ending at ``ended_at`` [in of rain, in of snow]."""

    ended_at: datetime
    rain_in: float = 0.0
    snow_in: float = 0.0

    @property
    def triggers(self) -> bool:
        return self.rain_in >= RAIN_TRIGGER_IN or self.snow_in >= SNOW_TRIGGER_IN


@dataclass(frozen=True)
class Due:
    """An inspection due: by ``due_at`` (None = suspended), why, and the rule. ``kind`` is "routine" (the CGP
    calendar-day schedule) or "storm" (the 24-hour storm trigger)."""

    due_at: datetime | None
    reason: str
    citation: str
    interval_days: int | None
    storm: Storm | None = None
    kind: str = "routine"
    note: str = ""         # a storm deadline whose wall-clock time the daylight-saving change moved (dst_note)

    @property
    def due_on(self) -> date | None:
        return None if self.due_at is None else self.due_at.date()


def interval_days(*, frequency: Frequency | str, sensitive_waters: bool, stabilized_on: date | None = None,
                  frozen: Frozen | str = Frozen.NO, last_inspection: date | None = None) -> tuple[int | None, bool, str]:
    """The routine interval [days], whether storms trigger an inspection, and the rule applied.

    ``None`` interval = routine inspections suspended (CGP 4.4.3(a)).
    """
    frequency, frozen = Frequency(frequency), Frozen(frozen)
    if sensitive_waters:
        days, storms, cite = SENSITIVE_DAYS, True, "CGP 2022 Part 4.3.1 (sensitive receiving waters)"
    elif frequency is Frequency.EVERY_7_DAYS:
        days, storms, cite = OPTION_A_DAYS, False, "CGP 2022 Part 4.2(a)"
    else:
        days, storms, cite = OPTION_B_DAYS, True, "CGP 2022 Part 4.2(b)"
    if frozen is Frozen.SUSPENDED and not sensitive_waters:
        return None, False, "CGP 2022 Part 4.4.3(a): frozen, work suspended, disturbed areas stabilized"
    if frozen is Frozen.SUSPENDED and sensitive_waters:
        # Stricter rule prevails (§ 380-11 C(1)): a sensitive-water site is not suspended, only reduced.
        return MONTHLY_DAYS, True, "CGP 2022 Part 4.4.3 (frozen) with Part 4.3.1 storm trigger kept"
    if frozen is Frozen.CONTINUING:
        return MONTHLY_DAYS, storms and sensitive_waters, "CGP 2022 Part 4.4.3(b): frozen, work continuing"
    if stabilized_on is not None:
        ref = last_inspection or stabilized_on
        first_month = (ref - stabilized_on).days < STABILIZED_FIRST_MONTH
        d = STABILIZED_FIRST_MONTH_DAYS if first_month else MONTHLY_DAYS
        return d, storms and sensitive_waters, (
            "CGP 2022 Part 4.4.1: stabilized area, " + ("twice in the first month" if first_month else "monthly"))
    return days, storms, cite


def storm_deadline(ended_at: datetime) -> datetime:
    """The last moment of the storm inspection: 24 ELAPSED hours after the storm's 24-hour period ended.

    CGP 2022 Part 4.2(b) and 4.3.1 say "within 24 hours of the occurrence of" the storm event: a duration, not
    "by the same time the next day". Across a daylight-saving weekend the two differ by an hour: a storm ending
    Saturday 10:00 EST before the spring change is inspected by Sunday 11:00 EDT (not 10:00, which would allow only
    23 hours); one ending Saturday 10:00 EDT before the fall change by Sunday 09:00 EST (not 10:00, 25 hours).
    Counted in UTC and returned in ``ended_at``'s own zone. A naive ``ended_at`` is refused (its hours are
    ambiguous)."""
    if ended_at.tzinfo is None or ended_at.utcoffset() is None:
        raise ValueError("the storm's end must carry its time zone")
    return (ended_at.astimezone(timezone.utc) + STORM_RESPONSE).astimezone(ended_at.tzinfo)


def dst_note(ended_at: datetime, due_at: datetime) -> str:
    """A word when the 24 ELAPSED hours of the storm window (CGP 2022 Part 4.2(b), 4.3.1; ``storm_deadline``) end at
    another wall-clock time than the storm did — the clocks changed in between — so nobody reads the deadline as a
    mistake: "24 elapsed hours: the clocks changed (EST to EDT), so the deadline reads 12:00 AM, not 11:00 PM". Empty
    when the clock times agree."""
    if (ended_at.hour, ended_at.minute) == (due_at.hour, due_at.minute):
        return ""
    return (f"24 elapsed hours: the clocks changed ({ended_at.tzname()} to {due_at.tzname()}), so the deadline reads "
            f"{fmt_clock(due_at.hour, due_at.minute)}, not {fmt_clock(ended_at.hour, ended_at.minute)}")


def _routine_due(*, frequency, last_routine_at: datetime, sensitive_waters: bool, stabilized_on: date | None,
                 frozen) -> tuple[Due | None, bool, str, int | None]:
    days, storm_rule, cite = interval_days(frequency=frequency, sensitive_waters=sensitive_waters,
                                           stabilized_on=stabilized_on, frozen=frozen,
                                           last_inspection=last_routine_at.date())
    routine = None if days is None else Due(
        due_at=datetime.combine(last_routine_at.date() + timedelta(days=days), datetime.max.time(),
                                tzinfo=last_routine_at.tzinfo).replace(microsecond=0),
        reason=f"routine: every {days} calendar days", citation=cite, interval_days=days)
    return routine, storm_rule, cite, days


def inspections_due(*, frequency: Frequency | str, last_routine_at: datetime, last_inspection_at: datetime | None = None,
                    sensitive_waters: bool = False, storms: list[Storm] | tuple[Storm, ...] = (),
                    stabilized_on: date | None = None, frozen: Frozen | str = Frozen.NO) -> list[Due]:
    """Every erosion-control inspection now owed, earliest first: the routine one and, where storms trigger
    inspections, the storm one.

    CGP 2022 Part 4.2(b) (and 4.3.1) require inspections "once every 14 [7] calendar days AND within 24 hours of
    the occurrence of" a ≥ 0.25 in rain / ≥ 3.25 in snow storm: two obligations. So

    - the routine schedule counts from ``last_routine_at``, the last inspection made on the routine schedule (the
      one before the start, § 380-16 C(4)(b)[1], or a routine one); a storm inspection does not move it;
    - a storm is owed when a triggering storm ended after the last erosion-control inspection of any kind
      (``last_inspection_at``, default ``last_routine_at``): whoever inspects the whole site after the storm
      ended has inspected after it. Several uninspected storms are one inspection, owed by the earliest deadline;
    - the storm inspection is due 24 elapsed hours after the storm ended (``storm_deadline``).

    Times are returned in the zone of ``last_routine_at`` (pass local time: reasons print the storm's end in it).
    The routine one is absent when routine inspections are suspended (CGP 4.4.3(a)).
    """
    for s in storms:
        if s.rain_in < 0 or s.snow_in < 0:
            raise ValueError("precipitation must not be negative")
    tz = last_routine_at.tzinfo
    routine, storm_rule, cite, days = _routine_due(frequency=frequency, last_routine_at=last_routine_at,
                                                   sensitive_waters=sensitive_waters, stabilized_on=stabilized_on,
                                                   frozen=frozen)
    covered_until = max(last_routine_at, last_inspection_at) if last_inspection_at else last_routine_at
    out = [] if routine is None else [routine]
    if storm_rule:
        triggering = sorted((s for s in storms if s.triggers and s.ended_at > covered_until), key=lambda s: s.ended_at)
        if triggering:
            s = triggering[0]
            ended_local = s.ended_at.astimezone(tz) if tz is not None else s.ended_at
            what = f"{s.rain_in:.2f} in of rain" if s.rain_in >= RAIN_TRIGGER_IN else f"{s.snow_in:.2f} in of snow"
            more = f" (and {len(triggering) - 1} later storm(s))" if len(triggering) > 1 else ""
            due_at = storm_deadline(ended_local)
            zone = f" {ended_local.tzname()}" if ended_local.tzname() else ""   # EST or EDT: said, never guessed
            out.append(Due(due_at=due_at,
                           reason=f"storm: {what} in 24 hours ending {ended_local:%Y-%m-%d %H:%M}{zone}{more}",
                           citation=cite + "; within 24 hours (24 elapsed hours) of a ≥ 0.25 in rain / ≥ 3.25 in "
                                           "snow event", interval_days=days, storm=s, kind="storm",
                           note=dst_note(ended_local, due_at)))
    out.sort(key=lambda d: d.due_at)
    return out


def next_inspection_due(*, frequency: Frequency | str, last_inspection_at: datetime, sensitive_waters: bool = False,
                        storms: list[Storm] | tuple[Storm, ...] = (), stabilized_on: date | None = None,
                        frozen: Frozen | str = Frozen.NO, last_any_inspection_at: datetime | None = None) -> Due:
    """The next erosion-control inspection due: the earliest of ``inspections_due``.

    Parameters
    ----------
    frequency : the operator's chosen CGP 2022 Part 4.2 frequency
    last_inspection_at : when the last inspection on the routine schedule was made (the one "before the start of
        construction" for the first, Ch. 380 § 380-16 C(4)(b)[1]); a storm inspection is not one
    sensitive_waters : discharges to sediment-/nutrient-impaired or Tier 2, 2.5, 3 waters (Part 4.3.1)
    storms : 24-hour precipitation totals [in]; only those ending after the last inspection count
    stabilized_on : the day stabilization of the area was completed (Part 4.4.1), if it was
    frozen : frozen conditions (Part 4.4.3)
    last_any_inspection_at : the last erosion-control inspection of any kind (a storm inspection included), which
        covers the storms that ended before it

    Returns
    -------
    Due : the earlier of the routine due moment and 24 elapsed hours after the first triggering storm not yet
        inspected. A storm trigger is owed even when routine inspections are reduced, unless suspended under
        Part 4.4.3(a).
    """
    dues = inspections_due(frequency=frequency, last_routine_at=last_inspection_at,
                           last_inspection_at=last_any_inspection_at, sensitive_waters=sensitive_waters, storms=storms,
                           stabilized_on=stabilized_on, frozen=frozen)
    if dues:
        return dues[0]
    _, _, cite, _ = _routine_due(frequency=frequency, last_routine_at=last_inspection_at,
                                 sensitive_waters=sensitive_waters, stabilized_on=stabilized_on, frozen=frozen)
    return Due(due_at=None, reason="suspended until thawing begins", citation=cite, interval_days=None)


def stabilization_due(ceased_on: date) -> date:
    """The last day to stabilize an area where work ceased on ``ceased_on`` (Ch. 380 § 380-11 C(3)(a):
    "no more than seven days after"), calendar days, not rolled forward (a field condition, not an act
    before an office)."""
    return ceased_on + timedelta(days=STABILIZATION_DAYS)


def notice_is_timely(*, noticed_at: datetime, inspection_at: datetime) -> bool:
    """Ch. 380 § 380-16 C(3): the project design engineer notifies the Director at least 24 hours before."""
    return inspection_at - noticed_at >= timedelta(hours=NOTICE_HOURS)


# --- inspection reports (§ 380-16 C(4)(f)[1]) -----------------------------------------------------

REPORT_FIELDS: tuple[tuple[str, str], ...] = (
    ("inspected_on", "[a] the inspection date"),
    ("location", "[a] the location"),
    ("inspector_name", "[b] name of inspector"),
    ("inspector_credentials", "[b] inspector's credentials"),
    ("kind", "[c] type of inspection"),
    ("last_inspection", "[d] date of last inspection (or “none”: first inspection)"),
    ("weather", "[e] weather at time of inspection"),
    ("precipitation_24h_in", "[f] accumulated precipitation within previous 24 hours"),
    ("evaluation", "[g] evaluation: in compliance, or the violations"),
)
CORRECTIVE_FIELD = ("corrective_steps", "[h] steps to be taken to correct violations")


def report_missing_keys(report: dict) -> list[str]:
    """The keys (of REPORT_FIELDS, and ``corrective_steps``) of the § 380-16 C(4)(f)[1] items ``report`` lacks, in
    the rule's order: ``report_missing_fields`` names them as the rule does."""
    labels = dict(REPORT_FIELDS + (CORRECTIVE_FIELD,))
    names = {f"§ 380-16 C(4)(f)[1]{label}": key for key, label in labels.items()}
    return [names[m] for m in report_missing_fields(report)]


def report_missing_fields(report: dict) -> list[str]:
    """The § 380-16 C(4)(f)[1] items a written inspection report lacks, named as in the rule.

    ``report`` maps the field names of REPORT_FIELDS to values; ``last_inspection`` may be the string
    "none" for a first inspection; ``precipitation_24h_in`` may be 0 (but must be given). When the
    evaluation is "violations", the corrective steps ([h]) are required too.
    """
    missing = []
    for key, label in REPORT_FIELDS:
        v = report.get(key)
        if v is None or (isinstance(v, str) and not v.strip()):
            missing.append(f"§ 380-16 C(4)(f)[1]{label}")
    if report.get("evaluation") == "violations":
        v = report.get(CORRECTIVE_FIELD[0])
        if v is None or (isinstance(v, str) and not v.strip()):
            missing.append(f"§ 380-16 C(4)(f)[1]{CORRECTIVE_FIELD[1]}")
    return missing


# --- MS4 permit year -------------------------------------------------------------------------------

def permit_year(year: int) -> tuple[date, date]:
    """The MS4 permit year ending June 30 of ``year``: July 1 of year−1 through June 30 of year."""
    if not 2000 <= year <= 2100:
        raise ValueError("year out of range (2000–2100)")
    return date(year - 1, 7, 1), date(year, 6, 30)


def certification_due(recorded_on: date, n: int) -> date:
    """The n-th (1-based) annual O&M certification due date: the n-th anniversary of the final O&M
    plan's recording (Ch. 380 § 380-14 C(2)(l): annual, documenting the last 12 months). Feb 29 → Feb 28.
    A due day on a weekend or holiday rolls forward (MGL c.4 §9): applied by the caller through
    ``rules.calendar.roll_forward``."""
    if n < 1:
        raise ValueError("n starts at 1")
    y = recorded_on.year + n
    try:
        return recorded_on.replace(year=y)
    except ValueError:
        return date(y, 2, 28)
