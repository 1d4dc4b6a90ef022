"""The inspector's day (issue 18): what is due today and this week on every construction file the person may see,
from each file's clocks, and the order to drive to today's sites. Reads only.

What is due, per file not yet certified complete (§ 380-18):
- the erosion-control inspection before the start (§ 380-16 C(4)(b)[1]) while work has not started — not dated;
- the routine CGP inspection (every 7 or 14 calendar days, CGP 2022 Part 4.2/4.3.1/4.4) and a storm inspection
  within 24 hours of a ≥ 0.25 in rain / ≥ 3.25 in snow event (Part 4.2(b), 4.3.1): ``selectors.dues_from``;
- a stabilization check on the day an area must be stabilized, 7 days after work there ceased (§ 380-11 C(3)(a));
- the engineer's inspections (pre-bury, walk-through, final, periodic) on the day the design engineer's 24-hour
  notice schedules them (§ 380-16 C(3)), until their report is filed;
- the re-inspection of a violation at the time it was scheduled (issue 30; § 380-16 C(4)(e)[5]: the correction is
  seen before the Director approves it), until a report of the site inspected on or after that day is filed or the
  violation is resolved — a Director's inspection (§ 380-16 C(4)(b)[2]);
- a corrective action opened from a row that needs maintenance (EPA CGP 2022 Part 5; issue 30) on its due day, until
  its completion is recorded.

Today's list holds what is due by the end of today, everything overdue, and every pending storm inspection (it is
due within 24 hours of the storm). This week's list is the next seven days from today.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from django.db.models import Prefetch, Q
from django.utils import timezone

from stormwater.gis.route import haversine_m, route_order
from stormwater.rules.inspections import stabilization_due

from . import workflow as wf
from .models import (EROSION_KINDS, ConstructionProject, Evaluation, FollowUp, Inspection, InspectionKind,
                     InspectionNotice, Violation)
from .selectors import dues_from, projects_for_user

K = InspectionKind


@dataclass(frozen=True)
class Visit:
    """One inspection owed on one site. ``report_kind`` is the report form's type; ``due_at`` None = not dated."""

    project: ConstructionProject
    what: str              # "storm", "routine", "pre_start", "stabilization", "engineer", "reinspection", "corrective"
    title: str
    report_kind: str
    due_at: datetime | None
    reason: str
    citation: str
    overdue: bool
    storm_id: int | None = None
    note: str = ""         # the storm deadline moved on the clock by daylight-saving time (rules.inspections.dst_note)

    @property
    def due_on(self) -> date | None:
        return None if self.due_at is None else timezone.localtime(self.due_at).date()

    @property
    def form_query(self) -> str:
        return f"?kind={self.report_kind}" + (f"&storm={self.storm_id}" if self.storm_id else "")


@dataclass
class Stop:
    """A site on the day's route: its visits, its position (lat, lon) or None, its place in the route (1-based)."""

    project: ConstructionProject
    visits: list[Visit]
    position: tuple[float, float] | None
    order: int | None = None
    leg_m: float | None = None   # straight-line distance from the previous stop (or the start) [m]
    overdue: bool = field(default=False)

    @property
    def leg_mi(self) -> str:
        return "" if self.leg_m is None else f"{self.leg_m / 1609.344:.1f}"


def _end_of(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, datetime.max.time()).replace(microsecond=0))


def projects_in_the_field(user):
    """The files with work to inspect: not certified complete, with what the day needs prefetched (a constant
    number of queries however many files there are)."""
    return (projects_for_user(user).filter(certificate_on__isnull=True)
            .exclude(case__status=wf.Status.COMPLETED)
            .select_related("permit__case")
            .prefetch_related(
                Prefetch("inspections", queryset=Inspection.objects.only(
                    "id", "project_id", "kind", "inspected_at", "evaluation", "notice_id", "storm_id"),
                    to_attr="field_inspections"),
                "rain_events", "areas",
                Prefetch("notices", queryset=InspectionNotice.objects.order_by("scheduled_at"), to_attr="field_notices"),
                Prefetch("violations", queryset=Violation.objects.filter(
                    Q(reinspect_at__isnull=False) | Q(kind=FollowUp.CORRECTIVE, corrected_on__isnull=True))
                    .select_related("row"), to_attr="field_reinspections")))


def visits_for(project: ConstructionProject, *, now: datetime) -> list[Visit]:
    """Every inspection owed on this file now, dated or not (from the prefetched lists of
    ``projects_in_the_field``)."""
    out: list[Visit] = []
    inspections = project.field_inspections
    erosion = [i for i in inspections if i.kind in {k.value for k in EROSION_KINDS}]
    if project.case.status == wf.Status.PRECONSTRUCTION and not any(
            i.kind == K.EROSION_PRE_START and i.evaluation == Evaluation.COMPLIANT for i in inspections):
        out.append(Visit(project=project, what="pre_start", title="Erosion controls before the start",
                         report_kind=K.EROSION_PRE_START.value, due_at=None,
                         reason="before land disturbance begins", citation="§ 380-16 C(4)(b)[1]", overdue=False))
    for d in dues_from(project, erosion, list(project.rain_events.all())):
        storm = d.kind == "storm"
        storm_id = None
        if storm:
            storm_id = next((e.pk for e in project.rain_events.all() if timezone.localtime(e.ended_at) == d.storm.ended_at),
                            None)
        out.append(Visit(project=project, what=d.kind, title="Storm inspection" if storm else "Routine inspection",
                         report_kind=(K.EROSION_STORM if storm else K.EROSION_ROUTINE).value, due_at=d.due_at,
                         reason=d.reason, citation=d.citation, overdue=d.due_at < now, storm_id=storm_id,
                         note=d.note))
    for a in project.areas.all():
        if a.ceased_on is not None and a.stabilized_on is None:
            by = stabilization_due(a.ceased_on)
            out.append(Visit(project=project, what="stabilization", title=f"Stabilization check: {a.name}",
                             report_kind=K.EROSION_ROUTINE.value, due_at=_end_of(by),
                             reason=f"work ceased {a.ceased_on:%Y-%m-%d}; stabilized by {by:%Y-%m-%d}",
                             citation="§ 380-11 C(3)(a)", overdue=_end_of(by) < now))
    reported = {i.notice_id for i in inspections if i.notice_id}
    for n in project.field_notices:
        if n.pk not in reported:
            at = timezone.localtime(n.scheduled_at)
            out.append(Visit(project=project, what="engineer", title=K(n.kind).label, report_kind=n.kind, due_at=at,
                             reason=f"the design engineer's notice for {at:%Y-%m-%d %H:%M}",
                             citation="§ 380-16 C(3)", overdue=_end_of(at.date()) < now))
    for v in project.field_reinspections:
        if v.kind == FollowUp.CORRECTIVE:
            out.append(_corrective_visit(project, v, now))
            continue
        at = timezone.localtime(v.reinspect_at)
        if v.resolved or any(timezone.localtime(i.inspected_at).date() >= at.date() for i in inspections):
            continue
        what = v.row.label if v.row is not None else v.description[:80]
        out.append(Visit(project=project, what="reinspection", title=f"Re-inspection of V{v.pk}: {what}",
                         report_kind=K.RANDOM.value, due_at=at,
                         reason=f"notice of violation V{v.pk}, to correct by {v.correct_by:%Y-%m-%d}",
                         citation="§ 380-16 C(4)(e)[5]", overdue=_end_of(at.date()) < now))
    return out


def _corrective_visit(project: ConstructionProject, a: Violation, now: datetime) -> Visit:
    """A corrective action (CGP 2022 Part 5; issue 30): listed on its due day until its completion is recorded —
    an inspection of the site does not close it."""
    what = a.row.label if a.row is not None else a.description[:80]
    return Visit(project=project, what="corrective", title=f"Corrective action {a.ref}: {what}",
                 report_kind=K.RANDOM.value, due_at=_end_of(a.correct_by),
                 reason=f"found {a.found_on:%Y-%m-%d}: {a.corrective_actions[:120]}; due {a.correct_by:%Y-%m-%d}",
                 citation="CGP 2022 Part 5", overdue=_end_of(a.correct_by) < now)


def _sort_key(v: Visit):
    return (v.due_at is None, v.due_at or datetime.max.replace(tzinfo=timezone.get_current_timezone()), v.project.pk)


def day_visits(*, user, now: datetime | None = None) -> list[Visit]:
    """Today's list: due by the end of today, overdue, or a pending storm inspection (due within 24 hours)."""
    now = now or timezone.now()
    end = _end_of(timezone.localtime(now).date())
    out = [v for p in projects_in_the_field(user) for v in visits_for(p, now=now)
           if v.due_at is not None and (v.due_at <= end or v.what == "storm")]
    return sorted(out, key=_sort_key)


def week_visits(*, user, now: datetime | None = None, days: int = 7) -> list[Visit]:
    """The next ``days`` days from today (overdue first), then what is not dated (before the start)."""
    now = now or timezone.now()
    end = _end_of(timezone.localtime(now).date() + timedelta(days=days - 1))
    out = [v for p in projects_in_the_field(user) for v in visits_for(p, now=now)
           if v.due_at is None or v.due_at <= end]
    return sorted(out, key=_sort_key)


def field_positions(user) -> list[tuple[float, float]]:
    """(lat, lon) of every site the person has in the field (the base map around them is kept on the phone)."""
    return list(site_positions(list(projects_for_user(user).filter(certificate_on__isnull=True)
                                    .exclude(case__status=wf.Status.COMPLETED))).values())


def site_positions(projects) -> dict[int, tuple[float, float]]:
    """(lat, lon) of each project: its own position, else the centroid of its permit's first parcel with a shape
    in the latest survey (GIS, EPSG:2249 → WGS84). Projects with neither are left out."""
    out, missing = {}, []
    for p in projects:
        if p.latitude is not None and p.longitude is not None:
            out[p.pk] = (p.latitude, p.longitude)
        else:
            missing.append(p)
    if missing:
        out.update(_parcel_centroids(missing))
    return out


def _parcel_centroids(projects) -> dict[int, tuple[float, float]]:
    import numpy as np
    import shapely

    from stormwater.gis.models import ParcelShape
    from stormwater.gis.overlay import from_target_crs
    from stormwater.permits.models import PermitApplication

    parcels = {}  # project pk -> parcel ids
    through = PermitApplication.parcels.through.objects.filter(
        permitapplication_id__in=[p.permit_id for p in projects]).values_list("permitapplication_id", "parcel_id")
    by_permit: dict[int, list[int]] = {}
    for permit_id, parcel_id in through:
        by_permit.setdefault(permit_id, []).append(parcel_id)
    for p in projects:
        parcels[p.pk] = sorted(by_permit.get(p.permit_id, []))
    wanted = {pid for ids in parcels.values() for pid in ids}
    if not wanted:
        return {}
    latest: dict[int, ParcelShape] = {}
    for shape in ParcelShape.objects.filter(parcel_id__in=wanted).select_related("survey").order_by(
            "parcel_id", "-survey__surveyed_on", "-survey_id"):
        latest.setdefault(shape.parcel_id, shape)
    chosen = {pk: latest[ids[0]] for pk, ids in parcels.items() if ids and ids[0] in latest}
    if not chosen:
        return {}
    keys = list(chosen)
    geoms = shapely.from_wkb([bytes(chosen[k].geom_wkb) for k in keys])
    pts = from_target_crs(np.array(shapely.centroid(geoms)))
    return {k: (round(float(shapely.get_y(pt)), 6), round(float(shapely.get_x(pt)), 6)) for k, pt in zip(keys, pts)}


def day_route(visits: list[Visit], *, start: tuple[float, float] | None) -> list[Stop]:
    """Today's sites in the order to drive them (gis.route: nearest neighbour + 2-opt + Or-opt over straight-line
    distances, from ``start`` or, without one, from the site of the most urgent visit); sites without a position
    follow, unordered."""
    stops: dict[int, Stop] = {}
    for v in visits:
        s = stops.setdefault(v.project.pk, Stop(project=v.project, visits=[], position=None))
        s.visits.append(v)
        s.overdue = s.overdue or v.overdue
    positions = site_positions([s.project for s in stops.values()])
    for pk, s in stops.items():
        s.position = positions.get(pk)
    placed = [s for s in stops.values() if s.position is not None]
    unplaced = [s for s in stops.values() if s.position is None]
    order = route_order([s.position for s in placed], start)
    route = [placed[i] for i in order]
    here = start
    for n, s in enumerate(route, start=1):
        s.order = n
        s.leg_m = haversine_m(here, s.position) if here is not None else None
        here = s.position
    return route + unplaced
