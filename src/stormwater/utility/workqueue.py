"""Utility clocks on the work queue (stormwater.workqueue): an owner's installments to pay (Ch. 295 Art. IV
fee ¶B: due 30 days after issue, rolled past weekends and holidays; billing ¶C: interest from the day after),
and bill runs whose proof waits for approval (issue 16 "Preview, confirm, undo")."""
from __future__ import annotations

from django.urls import reverse

from stormwater.accounts.roles import Perm
from stormwater.rules.interest import interest_start
from stormwater.rules.money import fmt_display, round_cents
from stormwater.workqueue.registry import QueueContext, WorkItem, register

from .selectors import installments_owed_for_user


@register("bills", label="Your bills")
def bill_items(ctx: QueueContext):
    """An owner's own installments to pay (staff follow collections instead)."""
    if ctx.can(Perm.BILLING_VIEW_ALL) or ctx.user.is_staff_role:
        return
    for inst in installments_owed_for_user(user=ctx.user, as_of=ctx.today):
        bill = inst.bill
        late = ctx.today >= interest_start(inst.due_date) and not bill.is_back_bill
        owed = round_cents(inst.owed)
        url = reverse("bill_detail", args=[bill.number])
        yield WorkItem(
            source="bills", kind="bill.installment", title=f"Bill {bill.number} · {bill.parcel.address}",
            action=f"Pay installment {inst.seq}: ${fmt_display(owed)}" + (" plus interest to the day paid" if late
                                                                           else ""),
            due=inst.due_date, overdue=late, record_url=url, record_label=bill.number, act_url=url,
            citation="Ch. 295 Art. IV fee ¶B (due 30 days after issue); billing ¶C (12 %/yr from the day after)",
            user_ids=frozenset({ctx.user.pk}), party="owner", category="payment",
            detail=f"{bill.period_start:%b %Y} – {bill.period_end:%b %Y}")


@register("bill_runs", label="Bill runs")
def bill_run_items(ctx: QueueContext):
    """Bill runs whose proof waits for a Collector's or the Director's approval.

    HOOK for the billrun slice (issue 16 "Preview, confirm, undo"): the proof → approve → issue states live in
    ``utility.models.RunState`` once that branch is merged; until then there is nothing to approve and this
    provider yields nothing. tests/workqueue/test_providers.py::test_bill_run_awaiting_approval runs once the
    states exist.
    """
    try:
        from .models import BillRun, RunState
    except ImportError:
        return
    approve = getattr(Perm, "BILLING_APPROVE", Perm.BILLING_RUN)
    if not ctx.can(approve):
        return
    for run in BillRun.objects.filter(state=RunState.PROOF).order_by("period_start", "id"):
        url = reverse("bill_run_detail", args=[run.pk])
        ready = run.proof_ready_at.date() if run.proof_ready_at else None
        yield WorkItem(
            source="bill_runs", kind="bill_run.approve", title=f"Bill run {run.period_label}",
            action=f"Check the proof ({run.bill_count:,} bills, ${fmt_display(run.total_billed)}) and approve or "
                   "discard it", due=run.issue_date, overdue=ctx.today > run.issue_date, record_url=url,
            record_label=run.period_label, act_url=url, perms=(approve,),
            citation="Ch. 295 Art. IV fee ¶B (bills); the proof is the town's control before issue",
            party="town", category="approval",
            detail=f"Proof ready {ready:%b %-d, %Y}" if ready else "Proof in preparation")

