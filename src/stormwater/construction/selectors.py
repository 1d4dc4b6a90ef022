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
from stormwater.rules.inspections import Due, Storm, next_inspection_due, stabilization_due

from .models import EROSION_KINDS, ConstructionProject, DisturbedArea, Inspection, Surety

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


def last_erosion_inspection(project: ConstructionProject) -> Inspection | None:
    return project.inspections.filter(kind__in=[k.value for k in EROSION_KINDS]).order_by("-inspected_at").first()


def next_due(project: ConstructionProject) -> Due | None:
    """The next erosion-control inspection due (CGP 2022 Part 4 via rules.inspections), counted from the
    last erosion-control inspection (the first being the one before the start, § 380-16 C(4)(b)[1]).
    None until that first inspection is filed or once the certificate is issued."""
    if project.certificate_on is not None:
        return None
    last = last_erosion_inspection(project)
    if last is None:
        return None
    storms = [Storm(ended_at=e.ended_at, rain_in=float(e.rain_in), snow_in=float(e.snow_in))
              for e in project.rain_events.filter(ended_at__gt=last.inspected_at)]
    return next_inspection_due(frequency=project.frequency, last_inspection_at=timezone.localtime(last.inspected_at),
                               sensitive_waters=project.sensitive_waters, storms=storms,
                               stabilized_on=project.stabilized_on, frozen=project.frozen)


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
    dues = next_due_many(projects)
    return [(p, d) for p in projects if (d := dues.get(p.pk)) is not None and d.due_at is not None and d.due_at < now]


def next_due_many(projects) -> dict[int, Due | None]:
    """``next_due`` for many projects at once (the construction list, issue 16): project pk → the next
    erosion-control inspection due, from two queries (the latest erosion-control inspection of each project and
    the rain events of those projects) instead of two a project. The same rule (``rules.inspections``)."""
    from .models import RainEvent

    projects = [p for p in projects if p.certificate_on is None]
    pks = [p.pk for p in projects]
    last: dict[int, Inspection] = {}
    for i in (Inspection.objects.filter(project_id__in=pks, kind__in=[k.value for k in EROSION_KINDS])
              .order_by("project_id", "-inspected_at")):
        last.setdefault(i.project_id, i)
    rain: dict[int, list] = {}
    for e in RainEvent.objects.filter(project_id__in=pks).order_by("ended_at"):
        rain.setdefault(e.project_id, []).append(e)
    out: dict[int, Due | None] = {}
    for p in projects:
        li = last.get(p.pk)
        if li is None:
            out[p.pk] = None
            continue
        storms = [Storm(ended_at=e.ended_at, rain_in=float(e.rain_in), snow_in=float(e.snow_in))
                  for e in rain.get(p.pk, []) if e.ended_at > li.inspected_at]
        out[p.pk] = next_inspection_due(frequency=p.frequency, last_inspection_at=timezone.localtime(li.inspected_at),
                                        sensitive_waters=p.sensitive_waters, storms=storms,
                                        stabilized_on=p.stabilized_on, frozen=p.frozen)
    return out
