"""Relief's clocks on the work queue (stormwater.workqueue): the relief work queue itself
(``selectors.work_queue``: every running clock of an open credit, abatement, appeal or §16E case), each row
with who acts on it. Ch. 295 Art. IV credits ¶E, billing ¶E, appeals ¶A–B."""
from __future__ import annotations

from django.urls import reverse

from stormwater.accounts.roles import Perm
from stormwater.rules.clocks import Standing
from stormwater.workqueue.registry import QueueContext, WorkItem, register

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
