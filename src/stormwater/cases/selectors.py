"""Reads of cases: clocks with their due dates, the timeline."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.utils import timezone

from stormwater.rules.clocks import ClockState, Standing, clock_standing, days_left

from .models import Case, Clock


@dataclass(frozen=True)
class ClockView:
    clock: Clock
    state: ClockState
    standing: Standing
    days_left: int | None

    @property
    def due(self):
        return self.state.due


def clock_view(clock: Clock, *, today: date | None = None) -> ClockView:
    today = today or timezone.localdate()
    st = clock.state()
    return ClockView(clock=clock, state=st, standing=clock_standing(st, today=today, met_on=clock.met_on, window=clock.window),
                     days_left=days_left(st, today=today))


def case_clocks(case: Case, *, today: date | None = None, running_only: bool = False) -> list[ClockView]:
    qs = case.clocks.prefetch_related("tolls", "extensions")
    if running_only:
        qs = qs.filter(met_on__isnull=True)
    return [clock_view(c, today=today) for c in qs]


def case_clock(case: Case, kind: str, *, today: date | None = None) -> ClockView | None:
    c = case.clocks.filter(kind=kind).order_by("-start", "-id").first()
    return clock_view(c, today=today) if c else None
