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

from .models import BooksCheck
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


@register("books", label="Books")
def books_items(ctx: QueueContext):
    """The latest check of the books (``bookcheck.check_books``, run by the daily sweep) when it found a break: the
    Director's and the Collector's to look into (issue 25). One item, however many breaks; one query."""
    if not ctx.can(Perm.COLLECT):
        return
    last = BooksCheck.objects.order_by("-id").first()
    if last is None or last.clean:
        return
    n = len(last.breaks)
    first = last.breaks[0] if last.breaks else {}
    where = " ".join(x for x in (first.get("account", ""), first.get("ref", "")) if x)
    url = reverse("job_detail", args=[last.job_id]) if last.job_id else reverse("job_list")
    yield WorkItem(
        source="books", kind="books.break", title=f"The books do not balance ({last.as_of:%b %-d, %Y})",
        action=f"Look into {n} break{'s' if n != 1 else ''} in the books: run `stormwater books check`",
        due=last.as_of, overdue=True, record_url=url, record_label="Books check", act_url=url,
        citation="Ch. 295 Art. IV billing ¶B–¶E; MGL c.44 §53F½ (the fund's books)", perms=(Perm.COLLECT,),
        party="town", category="books",
        detail=(f"{where}: {first.get('what', '')}" if first else "") + (f" (and {n - 1} more)" if n > 1 else ""))
