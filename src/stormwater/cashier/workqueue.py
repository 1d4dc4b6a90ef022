"""The Collector's office on the work queue (stormwater.workqueue): municipal lien certificates to issue within
ten days of the request (MGL c.60 §23), refund vouchers waiting for a second person, and cashier's batches left
open from an earlier day. One query each."""
from __future__ import annotations

from django.urls import reverse

from stormwater.accounts.roles import Perm
from stormwater.rules.money import fmt_display
from stormwater.workqueue.registry import QueueContext, WorkItem, register

from .models import BatchState, CashBatch, LienCertificate, RefundState, RefundVoucher


@register("collector_office", label="Collector's office")
def office_items(ctx: QueueContext):
    if ctx.can(Perm.COLLECT):
        for c in LienCertificate.objects.filter(issued_on__isnull=True).select_related("parcel").order_by("due_on"):
            yield WorkItem(
                source="collector_office", kind="cashier.lien_certificate",
                title=f"{c.number} · {c.parcel.address}",
                action=f"Issue the municipal lien certificate requested by {c.requester_name}",
                due=c.due_on, overdue=ctx.today > c.due_on, record_url=reverse("cashier_lien", args=[c.pk]),
                record_label=c.number, act_url=reverse("cashier_lien", args=[c.pk]),
                citation="MGL c.60 §23 (within ten days of the request)", perms=(Perm.COLLECT,), party="town",
                category="certificate", detail=f"Requested {c.requested_on:%b %-d} ({c.get_channel_display().lower()})")
    if ctx.can(Perm.REFUND_APPROVE):
        for v in (RefundVoucher.objects.filter(state=RefundState.REQUESTED).exclude(requested_by=ctx.user)
                  .select_related("account")):
            yield WorkItem(
                source="collector_office", kind="cashier.refund", title=f"{v.number} · {v.account.number}",
                action=f"Approve or reject a refund of ${fmt_display(v.amount)} to {v.payee}", due=None,
                overdue=False, record_url=reverse("cashier_refunds"), record_label=v.number,
                act_url=reverse("cashier_refunds"), citation="Town policy: two people for a refund",
                perms=(Perm.REFUND_APPROVE,), party="town", category="payment")
    if ctx.can(Perm.PAYMENT_POST):
        for b in CashBatch.objects.filter(cashier=ctx.user, state=BatchState.OPEN, opened_on__lt=ctx.today):
            yield WorkItem(
                source="collector_office", kind="cashier.batch", title=f"Batch {b.number} opened {b.opened_on}",
                action="Count the drawer and close the batch", due=b.opened_on, overdue=True,
                record_url=reverse("cashier_batch", args=[b.pk]), record_label=b.number,
                act_url=reverse("cashier_batch", args=[b.pk]), citation="Town cash handling: each day's batch closed and deposited",
                perms=(Perm.PAYMENT_POST,), user_ids=frozenset({ctx.user.pk}), party="town", category="payment")
