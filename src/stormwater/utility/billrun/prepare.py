"""Preparing a bill run's proof: the run opened, then every parcel's bill computed and written slice by slice
(bulk: COPY on PostgreSQL), resumable after a crash; the proof's figures stored at the end."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from django.db import IntegrityError, transaction
from django.utils import timezone

from stormwater.audit.services import actor_or_none, audit_record
from stormwater.parcels.models import Parcel
from stormwater.parcels.selectors import impervious_as_of
from stormwater.rules.classes import PropertyClass
from stormwater.rules.money import ZERO, fmt, fmt_display, split_equal

from ..bulk import allocate_ids, copy_rows
from ..models import (DEAD_STATES, Account, Bill, BillRun, BillRunChunk, BillRunException, Installment, RateResolution,
                      RunState)
from ..selectors import (ERR_NO_RESOLUTION, BillingProblem, ParcelFacts, assess_area, association_split,
                         credits_in_force, resolution_in_force, unit_share_line)
from .common import (CHUNK, ERR_PERIOD, BillingError, BillRunResult, Log, Progress, _counts, _current, _locked,
                     _result, _set_state, installment_schedule, issue_date_refusal, run_problems)

# --- start ------------------------------------------------------------------------------------------------

def bill_run_start(*, period_label: str, period_start: date, period_end: date, issue_date: date, acting_user,
                   issue_when_ready: bool = False) -> tuple[BillRun, bool]:
    """Open the period's run in "preparing" → (run, True); or the period's open run → (it, False).

    The rates are the resolution in force on the period's first day (Ch. 295 Art. IV ¶D); none → BillingError.
    """
    if period_start >= period_end:
        raise BillingError(ERR_PERIOD)
    refusal = issue_date_refusal(period_label=period_label, period_start=period_start, period_end=period_end,
                                 issue_date=issue_date)
    if refusal:  # closed books, or outside the town's window around the period (issue 17)
        raise BillingError(refusal)
    res = resolution_in_force(period_start)
    if res is None:
        raise BillingError(ERR_NO_RESOLUTION.format(day=period_start))
    try:
        with transaction.atomic():
            # Serialize starts: two clerks pressing "prepare" at once get one run (PostgreSQL row lock; SQLite's
            # IMMEDIATE transactions serialize writers; the one_open_bill_run_per_period constraint backs both).
            RateResolution.objects.select_for_update().filter(pk=res.pk).first()
            open_run = BillRun.objects.filter(period_start=period_start,
                                              state__in=[RunState.PREPARING, RunState.PROOF]).first()
            if open_run is not None:
                return open_run, False
            run = BillRun.objects.create(
                period_label=period_label, period_start=period_start, period_end=period_end, issue_date=issue_date,
                resolution=res, created_by=actor_or_none(acting_user), state=RunState.PREPARING,
                issue_when_ready=issue_when_ready)
            return run, True
    except IntegrityError:
        return BillRun.objects.get(period_start=period_start, state__in=[RunState.PREPARING, RunState.PROOF]), False


# --- prepare (the proof) -----------------------------------------------------------------------------------

PARCEL_FIELDS = ("pk", "parcel_id", "owner_id", "land_use_code", "dwelling_units", "public_way", "road_maintenance",
                 "class_override", "class_override_reason", "lot_sqft", "owner__name", "owner__mailing_address",
                 "water_sewer_account")
# The columns a slice writes, in the order of the rows built below (tests check they cover the models).
BILL_COLUMNS = ("id", "number", "run_id", "account_id", "parcel_id", "period_start", "period_end", "issue_date",
                "owner_name", "mailing_address", "property_class", "impervious_sqft", "erus", "gross_fee",
                "credit_percent", "share_percent", "amount", "blocks", "explanation", "flagged", "is_back_bill",
                "water_sewer_account", "revision")
INSTALLMENT_COLUMNS = ("bill_id", "seq", "amount", "issue_date", "due_date")


@dataclass
class _Slice:
    """One slice's computation, made before its transaction (so the transaction only writes)."""

    after: int
    last: int
    parcels: int
    to_bill: list = field(default_factory=list)        # (parcel row, Fee, impervious ft²)
    units: dict = field(default_factory=dict)          # master parcel pk → [InstrumentShare] in force
    problems: list = field(default_factory=list)       # (parcel pk, parcel id, message)
    exempt: int = 0
    no_fee: int = 0


class _Pricer:
    """Fees of a run's parcels, remembered by what decides them (most parcels share a handful of fees)."""

    def __init__(self, run: BillRun):
        self.run = run
        self.terms = run.resolution.fee_terms()
        # Dates as ISO text: what both bulk paths take, formatted once rather than per row.
        self.schedule = [(i.isoformat(), d.isoformat())
                         for i, d in installment_schedule(run.issue_date, self.terms.installments)]
        self.fees: dict = {}
        # Credits apply prospectively: those in force on the issue date (Ch. 295 Art. IV credits ¶E). Read once:
        # a few parcels of a town have one.
        self.credits = credits_in_force(on=run.issue_date)
        self.blocks_json: dict = {}
        self.splits: dict = {}
        # Ch. 295 Art. IV ¶G: an association's units are billed through its master parcel for their shares under the
        # instrument in force on the issue date (the day of the bill's other facts: the survey, the credits); a
        # unit's own parcel is not billed as well (counted with the parcels owing no fee of their own).
        # One reading shared with every page and report (``selectors.association_split``), made once for the run.
        self.associations = association_split(on=run.issue_date)

    def slice(self, rows: list[tuple], after: int) -> _Slice:
        lo, hi = rows[0][0], rows[-1][0]
        s = _Slice(after=after, last=hi, parcels=len(rows))
        run = self.run
        impervious = impervious_as_of(as_of=run.issue_date, pk_range=(lo, hi))
        credits = self.credits
        split = self.associations
        s.units = {m: sh for m, sh in split.shares.items() if lo <= m <= hi}
        for row in rows:
            pk, pid, owner_id, luc, du, pw, rm, ov, ovr, lot = row[:10]
            if split.master_of(pk) is not None:
                s.no_fee += 1
                continue
            credit, note = credits.get(pk, (ZERO, ""))
            facts = ParcelFacts(has_owner=owner_id is not None, land_use_code=luc, dwelling_units=du, public_way=pw,
                                road_maintenance=rm, class_override=ov, class_override_reason=ovr, lot_sqft=lot,
                                impervious_sqft=impervious.get(pk), credit_percent=credit, credit_note=note)
            try:
                fee, imp = assess_area(facts, self.terms, cache=self.fees)
            except BillingProblem as e:
                s.problems.append((pk, pid, str(e)))
                continue
            if fee.property_class is PropertyClass.EXEMPT:
                s.exempt += 1
                continue
            if fee.annual_fee == 0:
                s.no_fee += 1
                continue
            problem = split.problem(pk)
            if problem:
                s.problems.append((pk, pid, problem))
                continue
            s.to_bill.append((row, fee, imp))
        return s

    def blocks(self, fee) -> str:
        out = self.blocks_json.get(fee.blocks)
        if out is None:
            out = self.blocks_json[fee.blocks] = json.dumps([b.as_json() for b in fee.blocks])
        return out

    def split(self, amount: Decimal) -> list[Decimal]:
        out = self.splits.get(amount)
        if out is None:
            out = self.splits[amount] = split_equal(amount, len(self.schedule))
        return out


@dataclass
class _Billed:
    """What of a slice the run's period is billed for already, by a bill that is live (issued) or in a proof.

    Ch. 295 Art. IV ¶B bills a parcel's fee for its period once, and ¶G divides that one fee among the units of an
    association: so the period is billed once whoever it was billed to (issue 25: a re-run after an instrument was
    recorded billed the units the master's whole fee over again, while the master's bill was still owed).

    - ``parcels``: parcels of the slice with a bill for the period on any account of theirs, the whole parcel's or
      its units': the run bills them nothing (neither through units a master billed whole, nor the whole master
      whose units were billed).
    - ``through``: unit parcels of the slice whose share of the period was billed through their master's unit
      account: not billed on their own as well (a run dated before the instrument took effect would).
    - ``own``: unit parcels (of the slice's masters) billed for the period on their own before an instrument named
      them: their unit's share is not billed again through the master.
    - ``revision``: account → its next revision, after the bills of voided runs and discarded proofs, which stay
      (append-only) and count for nothing else: "-R2", "-R3" …
    """

    parcels: set = field(default_factory=set)
    through: set = field(default_factory=set)
    own: set = field(default_factory=set)
    revision: dict = field(default_factory=dict)

    def parcel(self, pk: int) -> bool:
        return pk in self.parcels or pk in self.through

    def unit(self, unit) -> bool:
        return unit is not None and unit.parcel_id is not None and unit.parcel_id in self.own


def _billed(run: BillRun, s: _Slice) -> _Billed:
    """``_Billed`` of the slice: three indexed reads of the period's bills (inside the slice's transaction). The
    one_bill_per_account_period_revision constraint backs up one bill per account; the one open run per period
    (one_open_bill_run_per_period) keeps two runs from writing the period's bills at once."""
    out = _Billed()
    period = Bill.all_objects.filter(period_start=run.period_start)
    for parcel, acct, state in (period.filter(parcel_id__gt=s.after, parcel_id__lte=s.last)
                                .values_list("parcel_id", "account_id", "run__state")):
        if state in DEAD_STATES:
            out.revision[acct] = out.revision.get(acct, 1) + 1
        else:
            out.parcels.add(parcel)
    live = period.exclude(run__state__in=DEAD_STATES)
    out.through = set(live.filter(account__unit__parcel_id__gt=s.after, account__unit__parcel_id__lte=s.last)
                      .values_list("account__unit__parcel_id", flat=True))
    unit_parcels = {sh.unit.parcel_id for shares in s.units.values() for sh in shares if sh.unit.parcel_id}
    if unit_parcels:
        out.own = set(live.filter(account__unit__isnull=True, parcel_id__in=unit_parcels)
                      .values_list("parcel_id", flat=True))
    return out


def _slice_accounts(s: _Slice, billed: _Billed) -> dict[tuple[int, int | None], int]:
    """Account pk for every (parcel, unit) of the slice to bill, creating missing accounts in bulk (none for what
    ``billed`` says the run skips)."""
    existing = {(p, u): pk for pk, p, u in Account.objects.filter(parcel_id__gt=s.after, parcel_id__lte=s.last)
                .values_list("pk", "parcel_id", "unit_id")}
    new = []
    for row, _, _ in s.to_bill:
        p, pid = row[0], row[1]
        if billed.parcel(p):
            continue
        for unit in [sh.unit for sh in s.units.get(p) or []] or [None]:
            if (p, unit.pk if unit else None) not in existing and not billed.unit(unit):
                new.append(Account(number=f"SW-{pid}" + (f"-U{unit.unit}" if unit else ""), parcel_id=p, unit=unit))
    if new:
        Account.objects.bulk_create(new, batch_size=2000)
        existing = {(p, u): pk for pk, p, u in Account.objects.filter(parcel_id__gt=s.after, parcel_id__lte=s.last)
                    .values_list("pk", "parcel_id", "unit_id")}
    return existing


def _write_slice(run: BillRun, pricer: _Pricer, s: _Slice) -> BillRunChunk | None:
    """The slice's bills, installments, problems and record, in one short transaction. None: another process
    recorded this slice first, or the run is no longer being prepared (discarded)."""
    with transaction.atomic():
        locked = _locked(run)
        if locked is None or locked.state != RunState.PREPARING:
            return None
        if BillRunChunk.objects.filter(run=run, after_pk=s.after).exists():
            return None
        # Idempotency: what the period is billed for already — on any account, whole parcel or unit — is skipped
        # (``_Billed``; Ch. 295 Art. IV ¶B, ¶G).
        billed = _billed(run, s)
        accounts = _slice_accounts(s, billed)
        bills, already, total = [], 0, ZERO
        label = run.period_label
        ps, pe, issued = (d.isoformat() for d in (run.period_start, run.period_end, run.issue_date))
        for row, fee, imp in s.to_bill:
            pk, pid = row[0], row[1]
            owner_name, owner_addr, water_account = row[10], row[11], row[12]
            units = s.units.get(pk)
            if units:
                targets = list(zip(units, pricer.associations.amounts(pk, fee.annual_fee)))
            else:
                targets = [(None, fee.annual_fee)]
            if billed.parcel(pk):
                already += len(targets)
                continue
            blocks = pricer.blocks(fee)
            for share, amount in targets:
                unit = share.unit if share else None
                if billed.unit(unit):
                    already += 1
                    continue
                acct = accounts[(pk, unit.pk if unit else None)]
                expl = fee.explanation
                number = f"{label}-{pid}"
                if unit:
                    expl += "\n" + unit_share_line(share, fee.annual_fee, amount)
                    number += f"-U{unit.unit}"
                rev = billed.revision.get(acct, 1)
                if rev > 1:
                    number += f"-R{rev}"
                bills.append([None, number, run.pk, acct, pk, ps, pe, issued,
                              unit.owner.name if unit else owner_name,
                              unit.owner.mailing_address if unit else owner_addr,
                              fee.property_class.value, imp, fee.erus, fee.gross_fee,
                              fee.credit_percent, share.percent if unit else None, amount, blocks, expl,
                              fee.over_last_block, False, "" if unit else water_account, rev])
                total += amount
        ids = allocate_ids(Bill, len(bills))
        for b, i in zip(bills, ids):
            b[0] = i
        copy_rows(Bill._meta.db_table, BILL_COLUMNS, [tuple(b) for b in bills])
        schedule = pricer.schedule
        copy_rows(Installment._meta.db_table, INSTALLMENT_COLUMNS,
                  [(b[0], seq, amount, inst_issued, due)
                   for b in bills
                   for seq, (amount, (inst_issued, due)) in enumerate(zip(pricer.split(b[16]), schedule), 1)])
        BillRunException.objects.bulk_create(
            BillRunException(run_id=run.pk, parcel_id=pk, message=m) for pk, _, m in s.problems)
        return BillRunChunk.objects.create(
            run=run, after_pk=s.after, last_pk=s.last, parcels=s.parcels, bills=len(bills), total=total,
            exempt=s.exempt, no_fee=s.no_fee, already_billed=already, problems=len(s.problems))



def bill_run_prepare(*, run: BillRun, acting_user=None, progress: Progress = None, log: Log = None) -> BillRunResult:
    """Compute and store the run's proof, slice by slice (resumable; see the module docstring).

    ``progress(done, total)`` is called after each slice with parcels done of the parcels there are.
    Returns the proof's figures; ``run`` None when there was nothing to bill (the empty run is removed).
    """
    run = BillRun.objects.select_related("resolution").get(pk=run.pk)
    if run.state != RunState.PREPARING:
        return _result(run if run.state != RunState.DISCARDED else None, _counts(run), run_problems(run),
                       f"Run {run.pk} is {run.get_state_display().lower()}.")
    pricer = _Pricer(run)
    total = Parcel.objects.count()
    done = _counts(run)["parcels"] or 0
    if progress:
        progress(min(done, total), total)
    after = 0
    if log:
        log(f"Preparing the proof of {run.period_label} (run {run.pk}): {total} parcels"
            + (f", resuming after {done} already done" if done else "") + ".")
    parcels = Parcel.objects.order_by("pk").values_list(*PARCEL_FIELDS)
    while True:
        chunk = BillRunChunk.objects.filter(run=run, after_pk=after).first()
        if chunk is not None:  # done before (a resumed run) or by another process meanwhile
            after = chunk.last_pk
            continue
        rows = list(parcels.filter(pk__gt=after)[:CHUNK])
        if not rows:
            break
        written = _write_slice(run, pricer, pricer.slice(rows, after))
        if written is None:
            now = _current(run)
            if now is None or now.state != RunState.PREPARING:
                break
            continue  # another process recorded this slice: take its boundary
        after = written.last_pk
        done += written.parcels
        if progress:
            progress(min(done, total), total)
    return _finish_proof(run, acting_user=acting_user, log=log)


def _finish_proof(run: BillRun, *, acting_user, log: Log) -> BillRunResult:
    """Every slice is recorded: compute the proof's figures (reads, outside the transaction), then flip the run
    to "proof" in a short one; or remove it when it has no bill (nothing to bill: a re-run)."""
    from ..proof import proof_summary

    now = _current(run)
    if now is None:  # another process found nothing to bill and removed it
        return BillRunResult(run=None, message=f"Nothing to bill for {run.period_label}.")
    run = now
    if run.state != RunState.PREPARING:
        return _result(run if run.state != RunState.DISCARDED else None, _counts(run), run_problems(run),
                       f"Run {run.pk} is {run.get_state_display().lower()}.")
    counts = _counts(run)
    problems = run_problems(run)
    summary = proof_summary(run) if counts["bills"] else {}
    with transaction.atomic():
        locked = _locked(run)
        if locked is None or locked.state != RunState.PREPARING:
            return _result(locked, counts, problems, "")
        if not counts["bills"]:
            BillRunException.objects.filter(run=locked).delete()
            BillRunChunk.objects.filter(run=locked).delete()
            locked.delete()
            locked = None
            message = (f"Nothing to bill for {run.period_label}: every billable account is already billed."
                       if counts["already_billed"] else f"Nothing to bill for {run.period_label}.")
        else:
            message = _make_proof(locked, counts, summary, acting_user)
    if log:  # after the commit: a job's log is its own durable transaction
        log(message)
    return _result(locked, counts, problems, message)


def _make_proof(locked: BillRun, counts: dict, summary: dict, acting_user) -> str:
    """The run's proof stored and the run made a "proof" (inside the caller's transaction, the run locked)."""
    _set_state(locked, RunState.PROOF)
    locked.bill_count, locked.total_billed = counts["bills"], counts["total"]
    locked.summary = summary | {"counts": {k: (counts[k] or 0) for k in
                                           ("parcels", "exempt", "no_fee", "already_billed", "problems")}}
    locked.proof_ready_at = timezone.now()
    locked.save(update_fields=["state", "bill_count", "total_billed", "summary", "proof_ready_at"])
    message = (f"Proof of {locked.period_label} ready: {counts['bills']} bills, total ${fmt_display(counts['total'])}"
               f"; {counts['problems'] or 0} parcels could not be billed.")
    audit_record(actor=acting_user, action="bill_run.proof", obj=locked, why=message,
                 data={"resolution": locked.resolution_id, "bills": counts["bills"], "total": fmt(counts["total"]),
                       "problems": counts["problems"] or 0, "already_billed": counts["already_billed"] or 0})
    return message

