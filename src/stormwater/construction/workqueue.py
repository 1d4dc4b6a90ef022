"""Construction clocks on the work queue (stormwater.workqueue): the next erosion-control inspection of every
project under way (routine or storm, CGP 2022 Part 4 via ``rules.inspections``), the design engineer's noticed
inspections (pre-bury, walk-through, final, periodic: § 380-16 C(3)–(4)) whose report is not yet filed,
stabilization of areas where work ceased (§ 380-11 C(3)(a)) and violations to correct or to approve
(§ 380-16 C(4)(e)[5])."""
from __future__ import annotations

from django.db.models import Exists, OuterRef
from django.urls import reverse
from django.utils import timezone

from stormwater.accounts.roles import Perm
from stormwater.rules.inspections import stabilization_due
from stormwater.workqueue.registry import QueueContext, WorkItem, register

from .models import ConstructionProject, DisturbedArea, Inspection, InspectionKind, InspectionNotice, Violation
from .selectors import next_due_by_project, projects_for_user

STAFF = (Perm.INSPECT, Perm.CONSTRUCTION_MANAGE)


def _permittee(p: ConstructionProject) -> set[int]:
    return {p.permit.case.applicant_id, p.permit.owner.user_id if p.permit.owner_id else None}


def _ids(*groups) -> frozenset[int]:
    return frozenset(i for g in groups for i in g if i)


def _title(p: ConstructionProject) -> str:
    return f"{p.case.number} · {p.permit.site_address}"


@register("construction", label="Construction")
def construction_items(ctx: QueueContext):
    if not ctx.can(*STAFF, Perm.INSPECTION_FILE, Perm.PERMIT_VIEW_ALL, Perm.SURETY):
        return
    mine = projects_for_user(ctx.user).filter(certificate_on__isnull=True)
    projects = list(mine.select_related("permit__owner"))
    by_pk = {p.pk: p for p in projects}

    # CGP 2022 Part 4 (§ 380-16 C(4)(b)[1]): the next erosion-control inspection of each project under way.
    dues = next_due_by_project([p for p in projects if p.started_on is not None])
    for pk, d in dues.items():
        if d is None or d.due_at is None:
            continue
        p = by_pk[pk]
        storm = d.storm is not None
        kind = InspectionKind.EROSION_STORM if storm else InspectionKind.EROSION_ROUTINE
        url = reverse("construction_detail", args=[p.case.number])
        yield WorkItem(
            source="construction", kind="construction.inspection." + ("storm" if storm else "routine"),
            title=_title(p),
            action=("Storm inspection of the erosion controls (within 24 hours)" if storm
                    else "Routine inspection of the erosion controls"),
            due=timezone.localtime(d.due_at).date(), overdue=d.due_at < ctx.now, due_at=timezone.localtime(d.due_at) if storm else None,
            record_url=url, record_label=p.case.number,
            act_url=reverse("construction_report", args=[p.case.number]) + f"?kind={kind.value}",
            citation=d.citation, perms=(Perm.INSPECT,), user_ids=_ids([p.esc_inspector_id], _permittee(p)),
            party="ESC inspector", category="inspection", detail=d.reason)

    # § 380-16 C(3): inspections the design engineer gave notice of, whose report is not filed yet.
    notices = (InspectionNotice.objects.filter(project__in=mine)
               .exclude(Exists(Inspection.objects.filter(notice=OuterRef("pk"))))
               .select_related("project__case", "project__permit__case", "project__permit__owner"))
    for n in notices:
        p = n.project
        when = timezone.localtime(n.scheduled_at)
        url = reverse("construction_detail", args=[p.case.number])
        yield WorkItem(
            source="construction", kind=f"construction.inspection.{n.kind}", title=_title(p),
            action=f"{n.get_kind_display()}: inspect and file the report", due=when.date(),
            overdue=when.date() < ctx.today, due_at=when, record_url=url, record_label=p.case.number,
            act_url=reverse("construction_report", args=[p.case.number]) + f"?kind={n.kind}",
            citation="§ 380-16 C(3)–(4)", perms=(Perm.INSPECT,),
            user_ids=_ids([p.design_engineer_id], _permittee(p)), party="design engineer", category="inspection",
            detail=f"Scheduled {when:%b %-d, %Y %-I:%M %p} (notice given)")

    # § 380-11 C(3)(a): stabilize no more than seven days after work ceased on a portion of the site.
    areas = (DisturbedArea.objects.filter(project__in=mine, ceased_on__isnull=False, stabilized_on__isnull=True)
             .select_related("project__case", "project__permit__case", "project__permit__owner"))
    for a in areas:
        p = a.project
        due = stabilization_due(a.ceased_on)
        url = reverse("construction_detail", args=[p.case.number])
        yield WorkItem(
            source="construction", kind="construction.stabilization", title=f"{_title(p)} · {a.name}",
            action="Stabilize the area (work ceased there)", due=due, overdue=ctx.today > due, record_url=url,
            record_label=p.case.number, act_url=url + "#areas", citation="§ 380-11 C(3)(a)",
            perms=STAFF, user_ids=_ids([p.esc_inspector_id], _permittee(p)), party="permittee",
            category="stabilization", detail=f"Work ceased {a.ceased_on:%b %-d, %Y}")

    # § 380-16 C(4)(e)[5]: the permittee corrects by the date in the notice; the Director approves the work.
    for v in (Violation.objects.filter(project__in=mine, approved_on__isnull=True, kind="notice")
              .select_related("project__case", "project__permit__case", "project__permit__owner")):
        p = v.project
        url = reverse("construction_detail", args=[p.case.number])
        corrected = v.corrected_on is not None
        yield WorkItem(
            source="construction", kind="construction.violation." + ("approve" if corrected else "correct"),
            title=_title(p),
            action=("Approve the correction of the violation" if corrected else "Correct the violation"),
            due=None if corrected else v.correct_by, overdue=not corrected and ctx.today > v.correct_by,
            record_url=url, record_label=p.case.number, act_url=url + "#violations",
            citation="§ 380-16 C(4)(e)[5]",
            perms=(Perm.CONSTRUCTION_MANAGE,) if corrected else STAFF,
            user_ids=frozenset() if corrected else _ids([p.design_engineer_id], _permittee(p)),
            party="town" if corrected else "permittee", category="violation",
            detail=(f"Corrected {v.corrected_on:%b %-d, %Y}" if corrected else v.description[:140]))
