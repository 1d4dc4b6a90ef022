"""Reads of construction files. ``project_get_for_user`` is the only way a view reaches one: the Director's
staff and inspectors (and anyone who sees every permit) all; the project's design engineer and ESC
inspector their projects; the applicant or owner their own; anything else is 404."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from django.db.models import OuterRef, Q, QuerySet, Subquery
from django.http import Http404
from django.utils import timezone

from stormwater.accounts.roles import Perm
from stormwater.rules.inspections import Due, Storm, next_inspection_due, stabilization_due

from .models import EROSION_KINDS, ConstructionProject, DisturbedArea, Inspection, RainEvent, Surety

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
    return next_due_by_project([project]).get(project.pk)


def _last_erosion_at(project_ref):
    return Subquery(Inspection.objects.filter(project=project_ref, kind__in=[k.value for k in EROSION_KINDS])
                    .order_by("-inspected_at").values("inspected_at")[:1])


def next_due_by_project(projects) -> dict[int, Due | None]:
    """``next_due`` of many projects in two queries whatever their number (the work queue, the inspector's
    day): each project's last erosion-control inspection and the storms after it, then the pure rule."""
    pks = [p.pk for p in projects if p.certificate_on is None]
    if not pks:
        return {}
    last = dict(ConstructionProject.objects.filter(pk__in=pks).annotate(last_at=_last_erosion_at(OuterRef("pk")))
                .values_list("pk", "last_at"))
    storms: dict[int, list[Storm]] = {}
    for e in (RainEvent.objects.filter(project_id__in=[k for k, v in last.items() if v is not None])
              .filter(ended_at__gt=_last_erosion_at(OuterRef("project_id"))).order_by("ended_at", "id")):
        storms.setdefault(e.project_id, []).append(
            Storm(ended_at=timezone.localtime(e.ended_at), rain_in=float(e.rain_in), snow_in=float(e.snow_in)))
    out: dict[int, Due | None] = {}
    for p in projects:
        at = last.get(p.pk)
        if p.certificate_on is not None or at is None:
            out[p.pk] = None
            continue
        out[p.pk] = next_inspection_due(frequency=p.frequency, last_inspection_at=timezone.localtime(at),
                                        sensitive_waters=p.sensitive_waters, storms=storms.get(p.pk, []),
                                        stabilized_on=p.stabilized_on, frozen=p.frozen)
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
    """Projects under way whose next erosion-control inspection is past due."""
    now = now or timezone.now()
    out = []
    projects = list(ConstructionProject.objects.filter(certificate_on__isnull=True, started_on__isnull=False))
    dues = next_due_by_project(projects)
    for p in projects:
        d = dues.get(p.pk)
        if d is not None and d.due_at is not None and d.due_at < now:
            out.append((p, d))
    return out
