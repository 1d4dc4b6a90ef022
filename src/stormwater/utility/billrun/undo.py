"""Undoing: voiding an issued run before mailing (reversing entries), discarding a proof; recording the mailing
after which a run is no longer voided."""
from __future__ import annotations

from datetime import date

from django.db import connection, transaction
from django.utils import timezone

from stormwater.accounts.roles import Perm
from stormwater.audit.services import actor_or_none, audit_record
from stormwater.rules.money import fmt

from ..books import closed_through
from ..models import Bill, BillRun, Component, EntryKind, Installment, LedgerEntry, RunState
from .common import (ERR_ACTIVITY, ERR_CLOSED, ERR_MAIL_STATE, ERR_MAILED, ERR_MAY_NOT_VOID, ERR_NOT_ISSUED,
                     ERR_NOT_OPEN, ERR_REASON, BillingError, _locked, _set_state)

# --- void, discard, mailing --------------------------------------------------------------------------------

def _mailed(run: BillRun) -> str | None:
    """How the run's bills went out, if they did: the mailing recorded on the run, or a bill e-mailed."""
    from django.db.models.functions import Cast
    from django.db.models import CharField

    from stormwater.notices.models import NoticeSent

    if run.mailed_on:
        return f" on {run.mailed_on:%B %-d, %Y}"
    ids = Bill.all_objects.filter(run=run).annotate(s=Cast("pk", CharField())).values("s")
    sent = NoticeSent.objects.filter(kind="bill", object_type="utility.bill", object_id__in=ids).first()
    return f" (bill e-mailed to {sent.to})" if sent else None


def _activity(run: BillRun) -> tuple[str, str] | None:
    """(what, a bill number) of anything beyond the run's charges and credit balances applied to it: payments,
    interest, demands, abatements, liens, refunds, reversals; abatement or appeal cases on its bills."""
    other = (LedgerEntry.objects.filter(bill__run=run).exclude(kind__in=[EntryKind.CHARGE, EntryKind.CREDIT])
             .select_related("bill").first())
    if other:
        return f"a {other.get_kind_display().lower()} entry", other.bill.number
    for rel in Bill._meta.get_fields(include_hidden=True):
        if not (rel.auto_created and not rel.concrete and rel.one_to_many) or rel.related_model in (Installment,
                                                                                                   LedgerEntry):
            continue
        hit = rel.related_model._base_manager.filter(**{f"{rel.field.name}__run": run}).first()
        if hit is not None:
            return f"a {rel.related_model._meta.verbose_name}", getattr(hit, rel.field.name).number
    return None


def _post_reversals(run: BillRun, reason: str, acting_user) -> int:
    """Reversing entries, set-based: each charge and each credit balance applied to the run's bills, effective on
    the day of the entry it reverses (the run is undone as if never issued); the credit balances come back as
    unapplied credit on their accounts."""
    le, bill = LedgerEntry._meta.db_table, Bill._meta.db_table
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    who = getattr(actor_or_none(acting_user), "pk", None)
    memo = f"Void of bill run {run.pk}: {reason}"[:300]
    with connection.cursor() as c:
        c.execute(
            f"INSERT INTO {le} (account_id, kind, component, amount, effective_on, bill_id, installment_id, "
            f"reverses_id, payment_id, memo, created_at, created_by_id) "
            f"SELECT e.account_id, %s, e.component, -e.amount, e.effective_on, e.bill_id, e.installment_id, e.id, "
            f"NULL, %s, %s, %s FROM {le} e JOIN {bill} b ON b.id = e.bill_id "
            f"WHERE b.run_id = %s AND e.kind IN (%s, %s) "
            f"AND NOT EXISTS (SELECT 1 FROM {le} r WHERE r.reverses_id = e.id) ORDER BY e.id",
            [EntryKind.REVERSAL.value, memo, now, who, run.pk, EntryKind.CHARGE.value, EntryKind.CREDIT.value])
        n = c.rowcount
        c.execute(
            f"INSERT INTO {le} (account_id, kind, component, amount, effective_on, bill_id, installment_id, "
            f"reverses_id, payment_id, memo, created_at, created_by_id) "
            f"SELECT e.account_id, %s, %s, SUM(e.amount), e.effective_on, NULL, NULL, NULL, NULL, %s, %s, %s "
            f"FROM {le} e JOIN {bill} b ON b.id = e.bill_id WHERE b.run_id = %s AND e.kind = %s "
            f"GROUP BY e.account_id, e.effective_on ORDER BY e.account_id",
            [EntryKind.REVERSAL.value, Component.UNAPPLIED.value, memo + " (credit balance restored)", now, who,
             run.pk, EntryKind.CREDIT.value])
        return n + c.rowcount


def bill_run_void(*, run: BillRun, reason: str, acting_user) -> BillRun:
    """Void an issued run before its bills are mailed (issue 16 "undo"): reversing entries for its charges
    (the ledger is append-only: nothing is edited or deleted) and the run "voided", which takes its bills out of
    ``Bill.objects`` (the bill rows are append-only too and stay as they were). The period can then be billed
    again; the new bills are the accounts' next revision, numbered "-R2".

    Refused: not issued; mailed (recorded, or a bill e-mailed); any activity beyond the charges (payments,
    interest, demands, abatements, cases): those are resolved first; books closed through the issue date.
    """
    if not (reason or "").strip():
        raise BillingError(ERR_REASON)
    with transaction.atomic():
        locked = _locked(run)
        if locked is None or locked.state != RunState.ISSUED:
            raise BillingError(ERR_NOT_ISSUED.format(run=run.pk, state=locked.get_state_display().lower()
                                                     if locked else "gone"))
        actor = actor_or_none(acting_user)
        if actor is not None and not actor.can(Perm.BILLING_APPROVE):
            raise BillingError(ERR_MAY_NOT_VOID.format(run=locked.pk))
        how = _mailed(locked)
        if how is not None:
            raise BillingError(ERR_MAILED.format(run=locked.pk, how=how))
        activity = _activity(locked)
        if activity:
            raise BillingError(ERR_ACTIVITY.format(run=locked.pk, what=activity[0], bill=activity[1]))
        through = closed_through()
        if through and locked.issue_date <= through:
            raise BillingError(ERR_CLOSED.format(through=through, run=locked.pk, day=locked.issue_date))
        reversed_n = _post_reversals(locked, reason.strip(), acting_user)
        _set_state(locked, RunState.VOIDED)
        locked.voided_at, locked.voided_by, locked.void_reason = timezone.now(), actor, reason.strip()
        locked.save(update_fields=["state", "voided_at", "voided_by", "void_reason"])
        audit_record(actor=acting_user, action="bill_run.void", obj=locked, why=reason.strip(),
                     data={"bills": locked.bill_count, "total": fmt(locked.total_billed), "reversals": reversed_n})
    return locked


def bill_run_discard(*, run: BillRun, reason: str = "", acting_user) -> BillRun:
    """Set aside a proof that is not to be approved (wrong issue date, data to fix first): the run becomes
    "discarded", so the period can be prepared again (its bills' next revision, "-R2"). Its bills and
    installments stay as rows of the discarded run (append-only, issue 14) — never issued, in no ledger, seen
    only on the run's page. Also ends a preparation left half-way (its process killed)."""
    with transaction.atomic():
        locked = _locked(run)
        if locked is None or locked.state not in (RunState.PREPARING, RunState.PROOF):
            raise BillingError(ERR_NOT_OPEN.format(run=run.pk, state=locked.get_state_display().lower()
                                                   if locked else "gone"))
        n = Bill.all_objects.filter(run=locked).count()
        _set_state(locked, RunState.DISCARDED)
        locked.save(update_fields=["state"])
        audit_record(actor=acting_user, action="bill_run.discard", obj=locked, why=reason.strip(),
                     data={"bills": n})
    return locked


def bill_run_mark_mailed(*, run: BillRun, mailed_on: date, acting_user) -> BillRun:
    """Record that the run's paper bills went to the mail (the legal mailing); a mailed run is not voided."""
    with transaction.atomic():
        locked = _locked(run)
        if locked is None or locked.state != RunState.ISSUED:
            raise BillingError(ERR_MAIL_STATE.format(run=run.pk, state=locked.get_state_display().lower()
                                                     if locked else "gone"))
        if mailed_on < locked.issue_date:
            raise BillingError(f"mailed_on: {mailed_on} is before the issue date {locked.issue_date}")
        if locked.mailed_on:
            return locked
        locked.mailed_on = mailed_on
        locked.save(update_fields=["mailed_on"])
        audit_record(actor=acting_user, action="bill_run.mailed", obj=locked, data={"mailed_on": str(mailed_on)})
    return locked
