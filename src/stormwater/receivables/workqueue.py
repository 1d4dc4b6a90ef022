"""Collections on the work queue (stormwater.workqueue), from the Collector's own selectors (so the set-based
reports of issue 15 make this fast too): demands ripe for commitment to the Board of Assessors, grouped by the
day they were mailed, and the accounts past due on which a demand may be served (Ch. 295 Art. IV billing ¶D).

Both acts are done for many accounts at once (the demand and commitment pages take a list), so each is one
item, not one per account."""
from __future__ import annotations

from collections import defaultdict

from django.urls import reverse

from stormwater.accounts.roles import Perm
from stormwater.rules.money import ZERO, fmt_display
from stormwater.workqueue.registry import QueueContext, WorkItem, register

from .selectors import commitment_candidates, demand_candidates
from .services import commitment_due_on


@register("collections", label="Collections")
def collection_items(ctx: QueueContext):
    if not ctx.can(Perm.COLLECT):
        return
    # billing ¶D: "If the amount due remains unpaid 14 days after mailing of said demand, the Collector shall
    # commit the amount to the Board of Assessors": a duty from that day on, for the next annual tax bill.
    by_day: dict = defaultdict(list)
    for demand, pos in commitment_candidates(as_of=ctx.today):
        by_day[demand.served_on].append((demand, pos.total))
    for served_on, rows in sorted(by_day.items()):
        ripe = commitment_due_on(rows[0][0])
        totals = [t for _, t in rows]
        n = len(rows)
        yield WorkItem(
            source="collections", kind="collections.commitment", title=f"Demands mailed {served_on:%b %-d, %Y}",
            action=f"Commit {n} unpaid demand{'s' if n != 1 else ''} to the Board of Assessors "
                   f"(${fmt_display(sum(totals, ZERO))} owed)",
            due=ripe, overdue=False, record_url=reverse("demands"), record_label="Demands",
            act_url=reverse("commitments") + f"?as_of={ctx.today:%Y-%m-%d}",
            citation="Ch. 295 Art. IV billing ¶D (14 days after mailing)", perms=(Perm.COLLECT,), party="town",
            category="commitment", detail="Ready since this date; the lien arises on the next tax bill")

    # billing ¶D: "At any time after interest begins to accrue … the Collector may serve … a demand": a power the
    # Collector uses, with no last day — listed (undated) so that past-due accounts are never out of sight.
    candidates = demand_candidates(as_of=ctx.today)
    if candidates:
        n = len(candidates)
        total = sum((pos.total for _, pos in candidates), ZERO)
        yield WorkItem(
            source="collections", kind="collections.demand", title="Bills past due",
            action=f"Serve demands for payment: {n:,} account{'s' if n != 1 else ''} past due, "
                   f"${fmt_display(total)} owed with interest",
            due=None, overdue=False, record_url=reverse("delinquency"), record_label="Delinquency",
            act_url=reverse("demands") + f"?as_of={ctx.today:%Y-%m-%d}",
            citation="Ch. 295 Art. IV billing ¶C–¶D (interest from the day after the due date; demand any time "
                     "after)", perms=(Perm.COLLECT,), party="town", category="demand",
            detail="No demand served yet on these accounts")
