"""Relief's clocks on the work queue (stormwater.workqueue): the relief work queue itself
(``selectors.work_queue``: every running clock of an open credit, abatement, appeal or §16E case), each row
with who acts on it, and the credit applications filed and waiting for the completeness determination (no clock
runs until then). Ch. 295 Art. IV credits ¶D–E, billing ¶E, appeals ¶A–B."""
from __future__ import annotations

from django.urls import reverse

from stormwater.accounts.roles import Perm
from stormwater.rules.clocks import Standing
from stormwater.workqueue.registry import QueueContext, WorkItem, register

from stormwater.cases.models import Case

from . import workflow as wf
from .selectors import relief_cases_for_user, work_queue

# Who acts by each clock's date (Perm) and in what words. Owner windows (appeal, ATB, recertification) are the
# owner's: staff do nothing until the owner acts, so they reach only the case's parties.
ACTS: dict[str, tuple[tuple[str, ...], str, str]] = {
    wf.CREDIT_DECISION: ((Perm.RELIEF_DECIDE, Perm.RELIEF_REVIEW), "Decide the credit application in writing",
                         "decision"),
    wf.ABATEMENT_DECISION: ((Perm.RELIEF_DECIDE, Perm.RELIEF_REVIEW), "Decide the abatement in writing "
                            "(deny, grant in full or in part)", "decision"),
    wf.NOTICE: ((Perm.APPEAL_RECORD,), "Send the hearing notice to the owner", "hearing"),
    wf.HEARING: ((Perm.APPEAL_RECORD,), "Hold the Select Board hearing", "hearing"),
    wf.APPEAL_DECISION: ((Perm.APPEAL_RECORD,), "Record the Select Board's written decision", "decision"),
    wf.APPEAL_FILING: ((), "Last day to appeal to the Select Board", "owner window"),
    wf.ATB: ((), "Last day to appeal to the Appellate Tax Board", "owner window"),
    wf.RECERTIFICATION: ((), "Recertify the credit", "owner window"),
}


@register("relief", label="Credits, abatements and appeals")
def relief_items(ctx: QueueContext):
    staff = ctx.can(Perm.RELIEF_VIEW_ALL)
    if not staff and not ctx.can(Perm.RELIEF_APPLY):
        return
    rows = work_queue(today=ctx.today, cases=None if staff else relief_cases_for_user(ctx.user),
                      prefetch=("case__parties",))
    for r in rows:
        clock, case = r.view.clock, r.case
        perms, action, category = ACTS.get(clock.kind, ((Perm.RELIEF_REVIEW,), clock.label, "other"))
        if r.lapsed and clock.kind == wf.RECERTIFICATION:
            # credits ¶C: the recertification lapsed; the Department may revoke the credit.
            perms, action = (Perm.RELIEF_DECIDE,), "Recertification lapsed: the credit may be revoked"
        parties = {p.user_id for p in case.parties.all() if p.user_id}
        if case.applicant_id:
            parties.add(case.applicant_id)
        url = reverse("relief_detail", args=[case.number])
        yield WorkItem(
            source="relief", kind=f"relief.{clock.kind}", title=f"{case.number} · {case.title}", action=action,
            due=r.view.due, overdue=r.view.standing is Standing.OVERDUE, record_url=url, record_label=case.number,
            act_url=url + "#actions", citation=clock.citation, perms=perms, user_ids=frozenset(parties),
            party=r.party, category=category,
            detail=(f"{case.status_label}" + (" · the clock stands still" if r.view.due is None else "")))

    # Credits ¶D–E: a filed application waits for the Department to find it complete (the 30 days to decide run from
    # acceptance), so it has no clock yet; without this item a resident's new application reached no one's queue.
    filed = Case.objects.filter(kind=wf.CREDIT, status=wf.CreditStatus.FILED, closed_at__isnull=True)
    if not staff:
        filed = filed.filter(pk__in=relief_cases_for_user(ctx.user).values("pk"))
    for case in filed.prefetch_related("parties"):
        parties = {p.user_id for p in case.parties.all() if p.user_id} | ({case.applicant_id} - {None})
        url = reverse("relief_detail", args=[case.number])
        yield WorkItem(
            source="relief", kind="relief.completeness", title=f"{case.number} · {case.title}",
            action="Determine whether the credit application is complete (accept it, or name what is missing)",
            due=None, overdue=False, record_url=url, record_label=case.number, act_url=url + "#actions",
            citation="Ch. 295 Art. IV credits ¶D–E", perms=(Perm.RELIEF_REVIEW,), user_ids=frozenset(parties),
            party="town", category="completeness",
            detail=f"Filed {case.filed_on:%b %-d, %Y}" if case.filed_on else case.status_label)
