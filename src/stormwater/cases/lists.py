"""What every case list shares on the one list mechanism (issue 16): the next date a running clock falls due,
as a column the list filters ("overdue", "due within 7 days", "stopped") and sorts by over every matching row.

A clock's due date is never stored (``cases.models.Clock``): it comes from ``rules.clocks`` (business days,
Massachusetts holidays, tolls, extensions). A case list therefore reads the running clocks of the cases the user
may see in one query (tolls and extensions prefetched), computes each due date in Python, and hands the dates to
SQL as one ``CASE`` (``due_expression``: one branch per distinct date), so filtering and sorting by the due date
act on every matching row in the database, in a constant number of queries. The work grows with the number of
running clocks (open cases), not with the history of closed ones.
"""
from __future__ import annotations

from collections import defaultdict
from datetime import date, timedelta

from django.db.models import BooleanField, Case, DateField, Value, When
from django.utils import timezone
from django.utils.html import format_html

from stormwater.web.lists import DUE_FORMAT, choice_filter

from .models import Clock
from .selectors import ClockView, clock_view

CLOCK_CHOICES = [("overdue", "Overdue"), ("today", "Due today"), ("week", "Due within 7 days"),
                 ("month", "Due within 30 days"), ("stopped", "Stopped (waiting)"), ("running", "Any clock running"),
                 ("none", "No clock running")]


def due_expression(due_by_pk: dict, *, field: str = "pk", output_field=None) -> Case | Value:
    """A SQL value per row from a Python mapping {pk: date}: one ``WHEN pk IN (…) THEN date`` per distinct date."""
    output_field = output_field or DateField()
    by_date = defaultdict(list)
    for pk, d in due_by_pk.items():
        if d is not None:
            by_date[d].append(pk)
    if not by_date:
        return Value(None, output_field=output_field)
    return Case(*[When(**{f"{field}__in": pks}, then=Value(d, output_field=output_field))
                  for d, pks in sorted(by_date.items())], default=Value(None, output_field=output_field),
                output_field=output_field)


def running_clocks(cases, *, kinds=None, today: date | None = None) -> dict[int, ClockView]:
    """Case pk → the view of its running clock that falls due first (a stopped clock only if none is running),
    for every case in ``cases`` (a queryset of Case): one query, tolls and extensions prefetched."""
    today = today or timezone.localdate()
    qs = Clock.objects.filter(case__in=cases, met_on__isnull=True).prefetch_related("tolls", "extensions")
    if kinds:
        qs = qs.filter(kind__in=list(kinds))
    out: dict[int, ClockView] = {}
    for c in qs:
        v = clock_view(c, today=today)
        old = out.get(c.case_id)
        if old is None or (v.due is not None and (old.due is None or v.due < old.due)):
            out[c.case_id] = v
    return out


def annotate_clocks(qs, views: dict[int, ClockView], *, case_field: str = "case"):
    """``clock_due`` (the date; NULL when stopped or none) and ``clock_running`` (a clock is running or stopped)."""
    pk = "pk" if case_field in ("", "pk") else f"{case_field}_id"
    return qs.annotate(clock_due=due_expression({k: v.due for k, v in views.items()}, field=pk),
                       clock_running=Case(When(**{f"{pk}__in": list(views)}, then=Value(True)), default=Value(False),
                                          output_field=BooleanField()) if views else Value(False))


def clock_filter(qs, value: str, *, field: str = "clock_due", running: str = "clock_running"):
    today = timezone.localdate()
    return {
        "overdue": lambda: qs.filter(**{f"{field}__lt": today}),
        "today": lambda: qs.filter(**{field: today}),
        "week": lambda: qs.filter(**{f"{field}__gte": today, f"{field}__lte": today + timedelta(days=7)}),
        "month": lambda: qs.filter(**{f"{field}__gte": today, f"{field}__lte": today + timedelta(days=30)}),
        "stopped": lambda: qs.filter(**{running: True, f"{field}__isnull": True}),
        "running": lambda: qs.filter(**{running: True}),
        "none": lambda: qs.filter(**{running: False}),
    }[value]()


def clock_choice_filter(label: str = "Clock"):
    return choice_filter(None, label, CLOCK_CHOICES, method="_clock")


class ClockFilterMixin:
    def _clock(self, qs, name, value):
        return clock_filter(qs, value)


def clock_cell(view: ClockView | None, *, today: date | None = None, with_label: bool = False):
    """The due date with its standing as a badge; "stopped since …" for a tolled clock; "—" for none."""
    if view is None:
        return "—"
    label = f"{view.clock.label}: " if with_label else ""
    if view.due is None:
        return format_html('{}<span class="badge">stopped since {}; {} days left</span>', label,
                           view.state.stopped_since, view.state.remaining_when_stopped)
    bad = view.standing.value in ("overdue", "due today")
    from django.template.defaultfilters import date as date_filter

    return format_html('{}{} <span class="badge{}">{}</span>', label, date_filter(view.due, DUE_FORMAT),
                       " bad" if bad else "", view.standing.value)


def clock_text(view: ClockView | None) -> str:
    if view is None:
        return ""
    if view.due is None:
        return f"stopped since {view.state.stopped_since}"
    return f"{view.due.isoformat()} ({view.standing.value})"




def status_choices(kinds) -> list[tuple[str, str]]:
    """The statuses of the state machines of ``kinds`` (cases.machines), each value once, in table order."""
    from .machines import machine_for

    seen: dict[str, str] = {}
    for k in kinds:
        for value, label in machine_for(k).labels.items():
            seen.setdefault(value, label)
    return list(seen.items())
