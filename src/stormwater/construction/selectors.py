"""Reads of construction files. ``project_get_for_user`` is the only way a view reaches one: the Director's
staff and inspectors (and anyone who sees every permit) all; the project's design engineer and ESC
inspector their projects; the applicant or owner their own; anything else is 404."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from django.db.models import Q, QuerySet
from django.http import Http404
from django.utils import timezone

from stormwater.accounts.roles import Perm
from stormwater.rules.inspections import Due, Storm, inspections_due, next_inspection_due, stabilization_due

from .models import EROSION_KINDS, ROUTINE_KINDS, ConstructionProject, DisturbedArea, Inspection, RainEvent, Surety

ERR_NOT_FOUND = "No such construction file."


def projects_for_user(user) -> QuerySet[ConstructionProject]:
    qs = ConstructionProject.objects.select_related("case", "permit", "permit__case")
    if user.can(Perm.INSPECT) or user.can(Perm.PERMIT_VIEW_ALL) or user.can(Perm.SURETY):
        return qs
    return qs.filter(Q(design_engineer=user) | Q(esc_inspector=user) | Q(permit__case__applicant=user)
                     | Q(permit__owner__user=user)).distinct()


def project_get_for_user(*, user, number: str) -> ConstructionProject:
    p = projects_for_user(user).filter(case__number=number).first()
    if p is None:
        raise Http404(ERR_NOT_FOUND)
    return p


def dues_from(project: ConstructionProject, inspections, rain_events) -> list[Due]:
    """``dues`` computed from the project's inspections and rain events as given (lists a caller prefetched for
    many projects at once: the inspector's day, construction.field)."""
    if project.certificate_on is not None:
        return []
    routine_kinds, erosion_kinds = {k.value for k in ROUTINE_KINDS}, {k.value for k in EROSION_KINDS}
    routine = max((i.inspected_at for i in inspections if i.kind in routine_kinds), default=None)
    if routine is None:
        return []
    last = max(i.inspected_at for i in inspections if i.kind in erosion_kinds)
    storms = [Storm(ended_at=timezone.localtime(e.ended_at), rain_in=float(e.rain_in), snow_in=float(e.snow_in))
              for e in rain_events if e.ended_at > routine]
    return inspections_due(frequency=project.frequency, last_routine_at=timezone.localtime(routine),
                           last_inspection_at=timezone.localtime(last), sensitive_waters=project.sensitive_waters,
                           storms=storms, stabilized_on=project.stabilized_on, frozen=project.frozen)


def dues(project: ConstructionProject) -> list[Due]:
    """Every erosion-control inspection owed now, earliest first: the routine one (counted from the last
    routine-schedule inspection) and a pending storm one (rules.inspections.inspections_due), in local time.
    Empty until the inspection before the start is filed (§ 380-16 C(4)(b)[1]) or once the certificate is issued."""
    if project.certificate_on is not None:
        return []
    inspections = list(project.inspections.filter(kind__in=[k.value for k in EROSION_KINDS]).only("kind", "inspected_at"))
    return dues_from(project, inspections, list(project.rain_events.all()))


def _next_due_from(project: ConstructionProject, inspections, rain_events) -> Due | None:
    routine_kinds = {k.value for k in ROUTINE_KINDS}
    routine = max((i.inspected_at for i in inspections if i.kind in routine_kinds), default=None)
    if project.certificate_on is not None or routine is None:
        return None
    found = dues_from(project, inspections, rain_events)
    if found:
        return found[0]
    return next_inspection_due(frequency=project.frequency, last_inspection_at=timezone.localtime(routine),
                               sensitive_waters=project.sensitive_waters, stabilized_on=project.stabilized_on,
                               frozen=project.frozen)


def next_due(project: ConstructionProject) -> Due | None:
    """The next erosion-control inspection due (the earliest of ``dues``; a "suspended" Due under CGP 4.4.3(a)).
    None until the inspection before the start is filed or once the certificate is issued."""
    return next_due_by_project([project]).get(project.pk)


def next_due_by_project(projects) -> dict[int, Due | None]:
    """``next_due`` of many projects in two queries whatever their number (the work queue, the overdue list):
    their erosion-control inspections and rain events, then the pure rule (``dues_from``) for each."""
    out: dict[int, Due | None] = {p.pk: None for p in projects}
    live = [p for p in projects if p.certificate_on is None]
    if not live:
        return out
    pks = [p.pk for p in live]
    inspections: dict[int, list] = {}
    for i in (Inspection.objects.filter(project_id__in=pks, kind__in=[k.value for k in EROSION_KINDS])
              .only("project_id", "kind", "inspected_at")):
        inspections.setdefault(i.project_id, []).append(i)
    rain: dict[int, list] = {}
    for e in RainEvent.objects.filter(project_id__in=pks).order_by("ended_at", "id"):
        rain.setdefault(e.project_id, []).append(e)
    for p in live:
        out[p.pk] = _next_due_from(p, inspections.get(p.pk, []), rain.get(p.pk, []))
    return out


@dataclass(frozen=True)
class AreaView:
    area: DisturbedArea
    due: date | None
    overdue: bool


def areas(project: ConstructionProject, *, today: date | None = None) -> list[AreaView]:
    """Each area's stabilization deadline (§ 380-11 C(3)(a)) and whether it has passed unstabilized."""
    today = today or timezone.localdate()
    out = []
    for a in project.areas.all():
        due = stabilization_due(a.ceased_on) if a.ceased_on else None
        out.append(AreaView(a, due, bool(due and a.stabilized_on is None and today > due)))
    return out


def surety_of(project: ConstructionProject) -> Surety | None:
    return Surety.objects.filter(project=project).first()


def inspections_overdue(*, now: datetime | None = None) -> list[tuple[ConstructionProject, Due]]:
    """Projects under way whose next erosion-control inspection is past due (in a constant number of queries)."""
    now = now or timezone.now()
    projects = list(ConstructionProject.objects.filter(certificate_on__isnull=True, started_on__isnull=False)
                    .select_related("case", "permit"))
    dues = next_due_by_project(projects)
    return [(p, d) for p in projects if (d := dues.get(p.pk)) is not None and d.due_at is not None and d.due_at < now]
