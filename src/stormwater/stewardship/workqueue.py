"""Stewardship clocks on the work queue (stormwater.workqueue): annual O&M certifications (§ 380-14 C(2)(l),
from 30 days before they are due, and every overdue one) and failures to maintain (§ 380-14 E: 30 days to
correct after the Director's notice; then a court order or other relief)."""
from __future__ import annotations

from django.urls import reverse

from stormwater.accounts.roles import Perm
from stormwater.cases.models import Clock
from stormwater.cases.selectors import clock_view
from stormwater.rules.clocks import Standing
from stormwater.workqueue.registry import QueueContext, WorkItem, register

from . import workflow as wf
from .selectors import EARLY_DAYS, certifications_due, sites_for_user

STAFF = (Perm.STEWARDSHIP, Perm.INSPECT, Perm.PERMIT_VIEW_ALL)


def _parties(site) -> frozenset[int]:
    ids = {site.owner_user_id} | {p.user_id for p in site.parties.all() if p.until is None}
    if site.permit_id:
        ids.add(site.permit.case.applicant_id)
    return frozenset(i for i in ids if i)


@register("stewardship", label="Stewardship")
def stewardship_items(ctx: QueueContext):
    staff = ctx.can(*STAFF)
    if not staff and not ctx.can(Perm.PERMIT_APPLY, Perm.INSPECTION_FILE):
        return
    scope = sites_for_user(ctx.user)
    sites = scope.select_related("permit__case").prefetch_related("parties")
    # § 380-14 C(2)(l): shown from the day a certification may be filed (EARLY_DAYS before it is due).
    for d in certifications_due(today=ctx.today, within_days=EARLY_DAYS, sites=sites):
        site = d.plan.site
        url = reverse("site_detail", args=[site.case.number])
        yield WorkItem(
            source="stewardship", kind="stewardship.certification", title=f"{site.case.number} · {site.name}",
            action=f"Annual O&M certification, year {d.seq} ({d.period_start:%b %-d, %Y} – {d.period_end:%b %-d, %Y})",
            due=d.due_on, overdue=ctx.today > d.due_on, record_url=url, record_label=site.case.number,
            act_url=url + "#certifications", citation="§ 380-14 C(2)(l); MGL c.4 §9",
            perms=(Perm.STEWARDSHIP,), user_ids=_parties(site), party="owner", category="certification",
            detail="The owner files it; staff record a paper one and send reminders")

    # § 380-14 E: the owner corrects within 30 days of the Director's notice.
    clocks = (Clock.objects.filter(case__kind=wf.MAINTENANCE, case__closed_at__isnull=True, met_on__isnull=True,
                                   case__maintenance_notice__site__in=scope.values("pk"))
              .select_related("case__maintenance_notice__site__case", "case__maintenance_notice__site__permit__case")
              .prefetch_related("tolls", "extensions", "case__maintenance_notice__site__parties"))
    for c in clocks:
        cv = clock_view(c, today=ctx.today)
        notice = c.case.maintenance_notice
        site = notice.site
        late = cv.standing is Standing.OVERDUE
        url = reverse("site_detail", args=[site.case.number]) + "#notices"
        yield WorkItem(
            source="stewardship", kind="stewardship.maintenance", title=f"{c.case.number} · {site.name}",
            action=("Not corrected in 30 days: seek a court order or other relief, or verify the correction" if late
                    else "Correct the failure to maintain (the Director verifies it)"),
            due=cv.due, overdue=late, record_url=url,
            record_label=c.case.number, act_url=url, citation=c.citation, perms=(Perm.STEWARDSHIP,),
            user_ids=_parties(site), party="town" if late else "owner", category="maintenance",
            detail=f"{c.case.status_label} · noticed {notice.noticed_on:%b %-d, %Y}")

