"""Approving a proof (it issues the run: charges posted set-based in one short transaction), and the one-step
issue of the CLI and the API (start, prepare, approve)."""
from __future__ import annotations

from dataclasses import replace
from datetime import date

from django.db import connection, transaction
from django.db.models import Sum
from django.utils import timezone

from stormwater.accounts.roles import Perm
from stormwater.audit.services import actor_or_none, audit_record
from stormwater.rules.money import ZERO, fmt, fmt_display

from ..books import closed_through
from ..models import Account, Bill, BillRun, Component, EntryKind, Installment, LedgerEntry, RunState
from ..posting import credit_apply
from .common import (ERR_ISSUE_CLOSED, ERR_MAY_NOT_APPROVE, ERR_MAY_NOT_ISSUE, ERR_NOT_PROOF, ERR_ONE_STEP_SECOND_APPROVER,
                     ERR_SECOND_APPROVER, MSG_OPEN_PROOF, BillingError, BillRunResult, Log, Progress, _counts,
                     _locked, _result, _set_state, run_problems)
from .prepare import bill_run_prepare, bill_run_start

# --- approve (issue) ---------------------------------------------------------------------------------------

def approval_refusal(run: BillRun, user) -> str | None:
    """Why ``user`` may not approve ``run`` (None: they may). ``user`` None is the system (CLI)."""
    from stormwater.townconfig import town_config

    actor = actor_or_none(user)
    if actor is None:
        return None
    if not actor.can(Perm.BILLING_APPROVE):
        return ERR_MAY_NOT_APPROVE.format(run=run.pk)
    if town_config().bill_run_second_approver and run.created_by_id == actor.pk:
        return ERR_SECOND_APPROVER.format(user=actor.get_full_name() or actor.username)
    return None


def _post_charges(run: BillRun, acting_user) -> int:
    """Each installment of the run is a charge in its account's ledger, effective on its issue date: one
    INSERT … SELECT (set-based; no row crosses into Python)."""
    le, inst, bill = LedgerEntry._meta.db_table, Installment._meta.db_table, Bill._meta.db_table
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    with connection.cursor() as c:
        c.execute(
            f"INSERT INTO {le} (account_id, kind, component, amount, effective_on, bill_id, installment_id, "
            f"reverses_id, payment_id, memo, created_at, created_by_id) "
            f"SELECT b.account_id, %s, %s, i.amount, i.issue_date, b.id, i.id, NULL, NULL, "
            f"b.number || ' installment ' || i.seq, %s, %s "
            f"FROM {inst} i JOIN {bill} b ON b.id = i.bill_id WHERE b.run_id = %s",
            [EntryKind.CHARGE.value, Component.PRINCIPAL.value, now, getattr(actor_or_none(acting_user), "pk", None),
             run.pk])
        return c.rowcount


def _apply_credit_balances(run: BillRun, acting_user) -> int:
    """Accounts carrying an overpayment credit: apply it to the new bills, so no interest accrues on a bill the
    owner has in effect already paid. Returns how many accounts."""
    with_credit = list(LedgerEntry.objects.filter(
        component=Component.UNAPPLIED, account_id__in=Bill.all_objects.filter(run=run).values("account_id"))
        .values("account_id").annotate(s=Sum("amount")).filter(s__lt=0).values_list("account_id", flat=True))
    for acct in Account.objects.filter(pk__in=with_credit):
        credit_apply(account=acct, on=run.issue_date, acting_user=acting_user)
    return len(with_credit)


def bill_run_approve(*, run: BillRun, acting_user) -> BillRunResult:
    """Approve a proof: the run is issued and its charges posted, in one short transaction (issue 16).

    Approving an issued run again changes nothing (a double click, two approvers at once): the second call
    finds it issued and reports 0 bills issued. Refused: not a proof, or not allowed (``approval_refusal``).
    """
    with transaction.atomic():
        locked = _locked(run)
        if locked is None:
            raise BillingError(f"There is no bill run {run.pk}.")
        if locked.state == RunState.ISSUED:
            return _result(None, {"already_billed": locked.bill_count}, [],
                           f"Run {locked.pk} was already issued: nothing issued again.")
        if locked.state != RunState.PROOF:
            raise BillingError(ERR_NOT_PROOF.format(run=locked.pk, state=locked.get_state_display().lower()))
        refusal = approval_refusal(locked, acting_user)
        if refusal:
            raise BillingError(refusal)
        through = closed_through()  # the books may have been closed since the proof was prepared (issue 17)
        if through and locked.issue_date <= through:
            raise BillingError(ERR_ISSUE_CLOSED.format(day=locked.issue_date, through=through))
        _set_state(locked, RunState.ISSUED)
        locked.approved_at, locked.approved_by = timezone.now(), actor_or_none(acting_user)
        locked.save(update_fields=["state", "approved_at", "approved_by"])
        posted = _post_charges(locked, acting_user)
        credited = _apply_credit_balances(locked, acting_user)
        counts = _counts(locked)
        message = (f"Issued {locked.bill_count} bills for {locked.period_label}, "
                   f"total ${fmt_display(locked.total_billed)}.")
        audit_record(actor=acting_user, action="bill_run.issue", obj=locked, why=message,
                     data={"resolution": locked.resolution_id, "bills": locked.bill_count,
                           "total": fmt(locked.total_billed), "charges": posted, "credit_balances_applied": credited,
                           "problems": counts["problems"] or 0, "already_billed": counts["already_billed"] or 0,
                           "prepared_by": str(locked.created_by or "system")})
    return _result(locked, counts, run_problems(locked), message)


def bill_run_issue(*, period_label: str, period_start: date, period_end: date, issue_date: date, acting_user,
                   progress: Progress = None, log: Log = None) -> BillRunResult:
    """Bill every nonexempt parcel once for the period, in one step (Ch. 295 Art. IV ¶B, ¶E, ¶G): start,
    prepare, approve. The CLI's ``stormwater bill_run`` and ``POST /api/bill-runs/``.

    - Rates: the resolution in force on the period's first day; none → BillingError.
    - Idempotent: parcels already billed for the period, on any account (whole or association unit), are
      skipped (``prepare._billed``; a unique constraint on (account, period_start, revision) backs up one bill
      per account), so re-running bills nothing twice, also after an instrument is recorded (issue 25). Two callers at once: one
      issues, the other reports 0 bills (tests/utility/test_concurrency.py).
    - Parcels that cannot be billed are listed with why (BillRunException), never billed $0.
    - Association parcels: one bill per unit for its recorded percentage; the units' amounts sum to the
      cent to the parcel's fee (¶G).
    - Each bill has 1–4 installments summing exactly to its amount; each installment is a charge in the
      account's append-only ledger, effective on its issue date.
    - A person must be allowed to approve (Collector, Director); with the town's
      ``bill_run_second_approver`` a person may not issue in one step at all.
    - A proof of the period waiting for approval is left alone (0 bills, the message says so).
    """
    from stormwater.townconfig import town_config

    actor = actor_or_none(acting_user)
    if actor is not None:
        if not actor.can(Perm.BILLING_APPROVE):
            raise BillingError(ERR_MAY_NOT_ISSUE)
        if town_config().bill_run_second_approver:
            raise BillingError(ERR_ONE_STEP_SECOND_APPROVER)
    run, created = bill_run_start(period_label=period_label, period_start=period_start, period_end=period_end,
                                  issue_date=issue_date, acting_user=acting_user, issue_when_ready=True)
    if not created and not run.issue_when_ready:
        return BillRunResult(run=None, message=MSG_OPEN_PROOF.format(
            label=run.period_label, run=run.pk, state=run.get_state_display().lower()))
    prepared = bill_run_prepare(run=run, acting_user=acting_user, progress=progress, log=log)
    if prepared.run is None:
        return prepared
    issued = bill_run_approve(run=prepared.run, acting_user=acting_user)
    if issued.run is None:  # another caller approved it meanwhile
        return replace(prepared, run=None, bills=0, total=ZERO, already_billed=prepared.already_billed + prepared.bills,
                       message=f"Nothing to bill for {period_label}: every billable account is already billed.")
    return issued

