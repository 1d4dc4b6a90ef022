"""JSON API of construction files (read). Guarded like the pages; the same access selector."""
from __future__ import annotations

from django.http import JsonResponse
from django.utils import timezone

from stormwater.accounts.access import require_perm
from stormwater.rules.money import fmt

from . import selectors, services


def _project(p) -> dict:
    due = selectors.next_due(p)
    surety = selectors.surety_of(p)
    return {
        "number": p.case.number, "permit": p.permit.case.number, "site": p.permit.site_address,
        "status": p.case.status, "status_label": p.case.status_label,
        "started_on": str(p.started_on) if p.started_on else None,
        "certificate_on": str(p.certificate_on) if p.certificate_on else None,
        "next_inspection": None if due is None else {
            "due_at": due.due_at.isoformat() if due.due_at else None, "reason": due.reason, "citation": due.citation},
        # every inspection owed now (routine and a pending storm one; CGP 2022 Part 4.2(b)), local time
        "inspections_due": [{"kind": d.kind, "due_at": d.due_at.isoformat(), "reason": d.reason, "citation": d.citation}
                            for d in selectors.dues(p)],
        "areas": [{"name": a.area.name, "ceased_on": str(a.area.ceased_on) if a.area.ceased_on else None,
                   "stabilize_by": str(a.due) if a.due else None, "stabilized_on": str(a.area.stabilized_on)
                   if a.area.stabilized_on else None, "overdue": a.overdue} for a in selectors.areas(p)],
        "surety": None if surety is None else {"amount": fmt(surety.amount), "held": fmt(services.surety_held(surety))},
        "violations_unresolved": [v.ref for v in p.violations.all() if v.kind == "notice" and not v.resolved],
        "corrective_actions_open": [v.ref for v in p.violations.all() if v.kind == "corrective" and not v.resolved],
        "certificate_missing": services.final_submissions_missing(p) if p.certificate_on is None else [],
        "inspections": [{"kind": i.kind, "at": timezone.localtime(i.inspected_at).isoformat(), "evaluation": i.evaluation}
                        for i in p.inspections.all()],
    }


@require_perm(api=True)
def api_construction_list(request):
    return JsonResponse({"projects": [
        {"number": p.case.number, "permit": p.permit.case.number, "status": p.case.status}
        for p in selectors.projects_for_user(request.user)[:500]]})


@require_perm(api=True)
def api_construction_detail(request, number: str):
    return JsonResponse(_project(selectors.project_get_for_user(user=request.user, number=number)))
