"""Permit clocks on the work queue (stormwater.workqueue): every running clock of a permit file (the 42-day
action clock with its tolls and extensions, completeness cure dates, the 53G consultant fee payment, the
applicant's windows, the refund, the project start), the information requests outstanding and the consultant
appeals before the Select Board, and the files flagged as possible segmentation waiting for the Director's
finding. Ch. 380 § 380-4 A, § 380-10 D, E, G(2), I(2), K."""
from __future__ import annotations

from django.db.models import Q
from django.urls import reverse

from stormwater.accounts.roles import Perm
from stormwater.cases.models import Clock
from stormwater.cases.selectors import clock_view
from stormwater.rules.clocks import Standing
from stormwater.workqueue.registry import QueueContext, WorkItem, register

from . import workflow as wf
from .models import ConsultantAppeal, ConsultantEngagement, InformationRequest, PermitApplication
from .selectors import permits_for_user

STAFF = (Perm.PERMIT_VIEW_ALL,)
# clock kind → (perms that act, who must act by the date, what to do, the section of the file page, category)
ACTS: dict[str, tuple[tuple[str, ...], str, str, str, str]] = {
    wf.ACTION: ((Perm.PERMIT_DECIDE, Perm.PERMIT_REVIEW), "town",
                "Final action on the application (approve, approve with conditions, disapprove)", "actions",
                "decision"),
    wf.CURE: ((Perm.PERMIT_REVIEW,), "applicant",
              "Missing items due from the applicant; after this date the application may be denied as "
              "administratively incomplete", "checklist", "completeness"),
    wf.CONSULTANT_PAYMENT: ((Perm.PERMIT_ACCOUNT,), "applicant",
                            "Consultant fee due into the 53G account (record the deposit when it comes); unpaid "
                            "after this date the application may be denied", "balance", "payment"),
    wf.CONSULTANT_WITHDRAWAL: ((), "applicant", "Last day to withdraw without consultant cost", "consultant",
                               "applicant window"),
    wf.CONSULTANT_APPEAL_WINDOW: ((), "applicant", "Last day to appeal the consultant's selection to the Select "
                                  "Board", "consultant", "applicant window"),
    wf.REFUND: ((Perm.PERMIT_ACCOUNT,), "town", "Refund the 53G account balance to the applicant", "balance",
                "payment"),
    wf.PROJECT_START: ((), "applicant", "Start construction (or ask for an extension) by this date", "actions",
                       "applicant window"),
}


def _parties(app) -> frozenset[int]:
    ids = {app.case.applicant_id, app.owner.user_id if app.owner_id else None}
    ids |= {c.user_id for c in app.consultants.all() if c.state != ConsultantEngagement.State.DISQUALIFIED}
    return frozenset(i for i in ids if i)


@register("permits", label="Permits")
def permit_items(ctx: QueueContext):
    staff = ctx.can(*STAFF)
    if not staff and not ctx.can(Perm.PERMIT_APPLY, Perm.PERMIT_CONSULT):
        return
    mine = None if staff else permits_for_user(ctx.user).values("pk")

    def scope(path: str) -> Q:
        """All files for permit staff; otherwise only the user's own (the permits access function)."""
        return Q() if mine is None else Q(**{f"{path}__in": mine})

    clocks = (Clock.objects.filter(scope("case__permit"), case__kind=wf.PERMIT, case__closed_at__isnull=True, met_on__isnull=True)
              .select_related("case", "case__permit", "case__permit__owner")
              .prefetch_related("tolls", "extensions", "case__permit__consultants"))
    for c in clocks:
        cv = clock_view(c, today=ctx.today)
        if cv.standing is Standing.LAPSED:
            continue  # a right the applicant did not use: nothing left to do
        app = c.case.permit
        perms, party, action, anchor, category = ACTS.get(c.kind, ((Perm.PERMIT_REVIEW,), "town", c.label,
                                                                   "clocks", "other"))
        extended = sum(e.days for e in c.extensions.all())
        detail = c.case.status_label
        if extended:
            detail += f" · extended {extended} day{'s' if extended != 1 else ''}"
        if cv.due is None:
            detail += " · the clock stands still"
            if cv.state.remaining_when_stopped is not None:
                detail += f" ({cv.state.remaining_when_stopped} days left when it stopped)"
        url = reverse("permit_detail", args=[c.case.number])
        yield WorkItem(
            source="permits", kind=f"permit.{c.kind}", title=f"{c.case.number} · {app.site_address}",
            action=action, due=cv.due, overdue=cv.standing is Standing.OVERDUE, record_url=url,
            record_label=c.case.number, act_url=f"{url}#{anchor}", citation=c.citation, perms=perms,
            user_ids=_parties(app), party=party, category=category, detail=detail)

    # § 380-10 E: information the Director asked for, still outstanding (the 42 days stand still meanwhile).
    reqs = (InformationRequest.objects.filter(scope("application"),
                                              responded_on__isnull=True,
                                              application__case__status=wf.Status.INFO_REQUESTED)
            .select_related("application__case", "application__owner")
            .prefetch_related("application__consultants"))
    for r in reqs:
        app = r.application
        url = reverse("permit_detail", args=[app.case.number])
        yield WorkItem(
            source="permits", kind="permit.info_request", title=f"{app.case.number} · {app.site_address}",
            action="Requested information outstanding: the applicant submits it (staff record a paper response)",
            due=None, overdue=False, record_url=url, record_label=app.case.number, act_url=url + "#actions",
            citation="§ 380-10 E, I(2)", perms=(Perm.PERMIT_REVIEW,), user_ids=_parties(app), party="applicant",
            category="information", detail=f"Requested {r.requested_on:%b %-d, %Y}; the 42-day clock stands still")

    # § 380-10 G(2)(e): an appeal of the consultant's selection, before the Select Board (no time limit set; the
    # action clock is extended by the appeal's duration).
    appeals = (ConsultantAppeal.objects.filter(
        scope("engagement__application"), decided_on__isnull=True)
        .select_related("engagement__application__case", "engagement__application__owner")
        .prefetch_related("engagement__application__consultants"))
    for a in appeals:
        app = a.engagement.application
        url = reverse("permit_detail", args=[app.case.number])
        yield WorkItem(
            source="permits", kind="permit.consultant_appeal", title=f"{app.case.number} · {app.site_address}",
            action=f"Record the Select Board's decision on the appeal of the consultant ({a.engagement.name})",
            due=None, overdue=False, record_url=url, record_label=app.case.number, act_url=url + "#consultant",
            citation="§ 380-10 G(2)(e)", perms=(Perm.PERMIT_APPEAL_RECORD,), user_ids=_parties(app), party="town",
            category="hearing", detail=f"Appeal received {a.received_on:%b %-d, %Y}")

    # § 380-4 A: activities "may not be phased or segmented to evade, defer or curtail review" — a file flagged at
    # applicability waits for the Director's finding (one project or separate projects); no time limit is set.
    if ctx.can(Perm.PERMIT_DECIDE):
        flagged = (PermitApplication.objects.filter(segmentation_flagged=True, segmentation_finding="",
                                                    case__closed_at__isnull=True)
                   .select_related("case"))
        for app in flagged:
            url = reverse("permit_detail", args=[app.case.number])
            facts = (app.determination or {}).get("segmentation") or {}
            yield WorkItem(
                source="permits", kind="permit.segmentation", title=f"{app.case.number} · {app.site_address}",
                action="Possible segmentation flagged: record the finding (one project or separate projects)",
                due=None, overdue=False, record_url=url, record_label=app.case.number,
                act_url=url + "#segmentation", citation="§ 380-4 A", perms=(Perm.PERMIT_DECIDE,),
                party="town", category="decision", detail=" · ".join(facts.get("facts") or []))
