"""Opening balances (issue 32): the old system's open bills, installments and credit balances become ledger entries
dated as in the old system, reconciled to the cent against its control totals before anything is applied.

Through the import pipeline (``stormwater.imports.pipeline``): read and validate the whole export
(``golive.export``), look every account up, refuse any bad row by row and field, then write in one transaction, read
back what the books now hold (the set-based positions, ``receivables.positions``) and compare it with the control
totals. A dry run (the default) and a refused reconciliation roll the writes back; nothing is applied unless every
bucket of every fiscal year agrees to the cent or each difference was listed and accepted.

What one converted installment is (Ch. 295 Art. IV billing ¶B–¶D):
- a bill of a conversion run (one per fiscal year, "FY2026 converted", issued), numbered ``CV-<old number>``, its
  installment with the old issue and due dates, and its principal charged on the issue date — so interest
  (12 %/yr, billing ¶C, ``rules.interest``) runs here from the day after the old due date;
- the demand charge on the demand's mailing day, with its ``receivables.Demand`` (the commitment clock, billing ¶D,
  runs from it);
- a commitment to the tax lien on its day: the interest to that day posted, then lien entries for everything owed,
  with its ``receivables.Commitment`` line;
- where the old system's interest differs from what its dates imply here on the unpaid principal (a part payment in
  the old system, another way of counting), the difference as a ``conversion`` entry on the cut-over (or lien) day:
  the balance is the old system's, and interest continues from the cut-over on the principal;
- a credit balance: unapplied credit (a ``conversion`` entry) on the cut-over date.
Idempotent by old bill number and installment (``ConvertedInstallment``) and by account for credits: a re-run of the
same export changes nothing; a row that says something else than what was converted is refused.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from pathlib import Path

from django.db import transaction
from django.db.models import Sum

from stormwater.audit.services import actor_or_none, audit_record
from stormwater.imports.pipeline import ImportRefused, Problem, content_checksum, error, refuse_on_errors
from stormwater.imports.services import import_record_create
from stormwater.parcels.models import Parcel
from stormwater.rules.interest import accrued_interest
from stormwater.rules.money import ZERO, fmt
from stormwater.utility.bulk import analyze
from stormwater.utility.models import (CONVERTED_BILL_PREFIX, DEAD_STATES, Account, Bill, BillRun, Component,
                                       EntryKind, Installment,
                                       LedgerEntry, RateResolution, RunState)
from stormwater.utility.selectors import resolution_in_force

from .export import BUCKETS, ControlTotals, Export, OldRow, fy_key, read_control, read_export
from .models import Conversion, ConvertedCredit, ConvertedInstallment

KIND = "golive_balances"
ERR_NO_CONTROL = ("no control totals: the conversion is applied only against the old system's control totals "
                  "(--control FILE / the control totals file), reconciled to the cent")
ERR_DIFFERENCES = ("the control totals and what the conversion creates differ: nothing applied (correct the export, "
                   "or accept each difference listed)")


class _Rollback(Exception):
    pass


def fy_bounds(fy: int) -> tuple[date, date]:
    """A Massachusetts fiscal year: July 1 of the year before through June 30."""
    return date(fy - 1, 7, 1), date(fy, 6, 30)


@dataclass
class BalancesResult:
    source: str
    as_of: date
    rows: int
    dry_run: bool
    applied: bool = False
    created: dict = field(default_factory=dict)     # bills, installments, entries, demands, commitments, credits
    unchanged: int = 0
    control: dict = field(default_factory=dict)     # "FY2026" → bucket → str
    converted: dict = field(default_factory=dict)   # the same, what the books hold after the conversion
    differences: list[dict] = field(default_factory=list)
    accepted: bool = False
    aging: dict = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    conversion: Conversion | None = None

    @property
    def agrees(self) -> bool:
        return bool(self.control) and not self.differences

    def as_json(self) -> dict:
        return {"source": self.source, "as_of": str(self.as_of), "rows": self.rows, "dry_run": self.dry_run,
                "applied": self.applied, "agrees": self.agrees, "created": self.created, "unchanged": self.unchanged,
                "control_totals": self.control, "converted": self.converted, "differences": self.differences,
                "differences_accepted": self.accepted, "aging": self.aging,
                "conversion": self.conversion.pk if self.conversion else None,
                "problems": [p.as_json() for p in self.problems]}


def _money_json(d: dict) -> dict:
    return {k: (v if k == "accounts" else fmt(v)) for k, v in d.items()}


# --- looking the rows up --------------------------------------------------------------------------------------

@dataclass
class _Plan:
    accounts: dict[str, Account | Parcel]   # row's account key → the account, or the parcel whose account is made
    new_rows: list[OldRow]
    new_credits: dict[str, tuple[int, Decimal, int | None, str]]
    resolutions: dict[int, RateResolution]
    unchanged: int


def _who(r: OldRow) -> str:
    return r.account or f"parcel {r.parcel_id}"


def _plan(ex: Export, problems: list[Problem]) -> _Plan:
    """Every account found, what is new and what was converted before; refusals by row and field."""
    name = ex.name
    numbers = {r.account for r in ex.rows if r.account} | {k for k in ex.credits if not k.startswith("parcel ")}
    pids = {r.parcel_id for r in ex.rows if r.parcel_id} | {c[3] for c in ex.credits.values() if c[3]}
    by_number = {a.number: a for a in Account.objects.filter(number__in=numbers)
                 .select_related("parcel__owner", "unit__owner")}
    parcels = {p.parcel_id: p for p in Parcel.objects.filter(parcel_id__in=pids | numbers)}
    whole = {a.parcel_id: a for a in Account.objects.filter(parcel__in=parcels.values(), unit__isnull=True)
             .select_related("parcel__owner")}
    accounts: dict[str, Account | Parcel] = {}
    unknown, refused = [], defaultdict(list)

    def find(key: str, account: str, pid: str, n: int, col: str) -> None:
        if key in accounts:
            return
        hit = by_number.get(account) if account else None
        p = parcels.get(pid) or (parcels.get(account) if account else None)
        if hit is None and p is not None:
            hit = whole.get(p.pk) or p
        if hit is None:
            unknown.append(f"row {n} ({col}): {account or pid}")
        else:
            accounts[key] = hit

    acol, pcol = ex.mapping.get("account", "account"), ex.mapping.get("parcel_id", "parcel_id")
    for r in ex.rows:
        find(_who(r), r.account, r.parcel_id, r.row, acol if r.account else pcol)
    for key, (n, _, _, pid) in ex.credits.items():
        find(key, "" if key.startswith("parcel ") else key, pid, n, acol if not key.startswith("parcel ") else pcol)
    if unknown:
        problems.append(error("unknown_account", name, "accounts and parcels this system does not have (import the "
                              "assessor records first, or correct the number): nothing converted", unknown))
    # Converted before: the same facts change nothing, other facts are refused.
    done = {c.old_key: c for c in ConvertedInstallment.objects.filter(old_key__in=[r.key for r in ex.rows])}
    new_rows, unchanged = [], 0
    for r in ex.rows:
        c = done.get(r.key)
        if c is None:
            new_rows.append(r)
        elif c.facts == r.facts():
            unchanged += 1
        else:
            diff = [k for k, v in r.facts().items() if c.facts.get(k) != v]
            refused["changed_since"].append(f"row {r.row} ({', '.join(diff)}): bill {r.bill_number} installment "
                                            f"{r.installment} was converted on {c.conversion.created_at:%Y-%m-%d} "
                                            f"(row {c.row}) with other figures")
    before = set(Bill.all_objects.filter(number__in={f"{CONVERTED_BILL_PREFIX}{r.bill_number}" for r in new_rows})
                 .values_list("number", flat=True))
    for r in new_rows:
        if f"{CONVERTED_BILL_PREFIX}{r.bill_number}" in before:
            refused["changed_since"].append(f"row {r.row} (installment): bill {r.bill_number} was converted before "
                                            f"without installment {r.installment} (give every installment of a bill "
                                            "in the one export)")
    credit_accounts = {k: accounts[k] for k in ex.credits if k in accounts}
    held = {c.account_id: c for c in ConvertedCredit.objects.filter(
        account__in=[a for a in credit_accounts.values() if isinstance(a, Account)])}
    new_credits = {}
    for k, (n, amount, fy, pid) in ex.credits.items():
        a = credit_accounts.get(k)
        c = held.get(a.pk) if isinstance(a, Account) else None
        if c is None:
            new_credits[k] = (n, amount, fy, pid)
        elif c.amount == amount:
            unchanged += 1
        else:
            refused["changed_since"].append(f"row {n} (credit_balance): {k}'s credit balance of {fmt(c.amount)} was "
                                            f"converted before; this file says {fmt(amount)}")
    # One bill per account and fiscal year (a bill's period, Ch. 295 Art. IV ¶B); none billed here already.
    first: dict[tuple, OldRow] = {}
    for r in new_rows:
        a = accounts.get(_who(r))
        k = (id(a), r.fiscal_year)
        if a is not None and k in first and first[k].bill_number != r.bill_number:
            refused["conflicting_bill"].append(
                f"row {r.row} (bill_number): {_who(r)} has bill {first[k].bill_number} for FY{r.fiscal_year} on row "
                f"{first[k].row} (one bill a fiscal year: give the others as its installments)")
        first.setdefault(k, r)
    existing = {(b.account_id, b.period_start): b.number for b in Bill.all_objects.filter(
        account__in=[a for a in accounts.values() if isinstance(a, Account)],
        period_start__in={fy_bounds(r.fiscal_year)[0] for r in new_rows}).exclude(run__state__in=DEAD_STATES)}
    for r in new_rows:
        a = accounts.get(_who(r))
        if not isinstance(a, Account):
            continue
        b = existing.get((a.pk, fy_bounds(r.fiscal_year)[0]))
        if b and not b.startswith(CONVERTED_BILL_PREFIX):
            refused["already_billed"].append(f"row {r.row} (fiscal_year): {a.number} is billed for FY{r.fiscal_year} "
                                             f"here already (bill {b})")
    for code, ids in refused.items():
        problems.append(error(code, name, {
            "changed_since": "converted before with other figures (the old system changed after the conversion? "
                             "correct it here by an abatement or a payment): nothing converted",
            "conflicting_bill": "two bills of one account in one fiscal year: nothing converted",
            "already_billed": "accounts this system has billed for that fiscal year: nothing converted"}[code], ids))
    from stormwater.receivables.selectors import closed_through

    through = closed_through()
    if through is not None:  # the converted entries carry the old system's dates: none may land in closed books
        problems.append(error("closed_period", name, f"the books here are closed through {through}: convert the old "
                              "system's balances before closing any period (their entries keep their own dates)"))
    resolutions: dict[int, RateResolution] = {}
    earliest = RateResolution.objects.order_by("effective_from", "id").first()
    for fy in sorted({r.fiscal_year for r in new_rows}):
        res = resolution_in_force(fy_bounds(fy)[0]) or earliest
        if res is None:
            problems.append(error("no_resolution", name, "no rate resolution is entered: the interest rate and the "
                                  "demand charge of the converted bills are unknown (enter the Select Board's "
                                  "resolution first)"))
            break
        resolutions[fy] = res
    return _Plan(accounts, new_rows, new_credits, resolutions, unchanged)


# --- writing ------------------------------------------------------------------------------------------------

def _accounts_made(plan: _Plan) -> None:
    """The whole-parcel accounts of parcels that have none yet, numbered as the bill run numbers them, in one write."""
    todo = {p.pk: p for p in plan.accounts.values() if isinstance(p, Parcel)}
    if todo:
        Account.objects.bulk_create([Account(number=f"SW-{p.parcel_id}", parcel=p) for p in todo.values()],
                                    batch_size=1000)
        made = {a.parcel_id: a for a in Account.objects.filter(parcel_id__in=todo, unit__isnull=True)
                .select_related("parcel__owner")}
        for k, v in plan.accounts.items():
            if isinstance(v, Parcel):
                plan.accounts[k] = made[v.pk]


def _account_of(plan: _Plan, key: str) -> Account:
    a = plan.accounts[key]
    if isinstance(a, Parcel):  # the whole-parcel account, numbered as the bill run numbers it
        a, _ = Account.objects.get_or_create(parcel=a, unit=None, defaults={"number": f"SW-{a.parcel_id}"})
        plan.accounts[key] = a
    return a


def _class_of(parcel: Parcel) -> str:
    """The parcel's class for the converted bill's snapshot (the old bill's own fee facts are not converted)."""
    from stormwater.parcels.selectors import parcel_classification
    from stormwater.rules.classes import ClassificationError, PropertyClass

    try:
        return parcel_classification(parcel).property_class.value
    except ClassificationError:
        return PropertyClass.NONRESIDENTIAL.value


def _run_for(fy: int, rows: list[OldRow], res: RateResolution, user) -> BillRun:
    start, end = fy_bounds(fy)
    label = f"FY{fy} converted"
    run = BillRun.objects.filter(period_start=start, period_label=label).first()
    if run is None:
        run = BillRun.objects.create(period_label=label, period_start=start, period_end=end,
                                     issue_date=min(r.issue_date for r in rows), resolution=res,
                                     state=RunState.ISSUED, created_by=actor_or_none(user),
                                     summary={"converted": True, "note": "open bills converted from the old system "
                                                                         "(issue 32)"})
    return run


def _write(plan: _Plan, ex: Export, as_of: date, conversion: Conversion, user) -> dict:
    """Write the new rows' bills, installments, entries, demands, commitments and credits."""
    from stormwater.receivables.models import Commitment, CommitmentLine, Demand

    by = actor_or_none(user)
    made = {"bills": 0, "installments": 0, "entries": 0, "demands": 0, "commitments": 0, "credits": 0}
    adjusted: list[str] = []
    by_bill: dict[str, list[OldRow]] = defaultdict(list)
    for r in plan.new_rows:
        by_bill[r.bill_number].append(r)
    runs: dict[int, BillRun] = {}
    for fy in sorted({r.fiscal_year for r in plan.new_rows}):
        runs[fy] = _run_for(fy, [r for r in plan.new_rows if r.fiscal_year == fy], plan.resolutions[fy], user)
    _accounts_made(plan)
    bills: dict[str, Bill] = {}
    for number, rows in by_bill.items():
        r0 = rows[0]
        account = plan.accounts[_who(r0)]
        start, end = fy_bounds(r0.fiscal_year)
        parcel, owner = account.parcel, account.billed_owner
        amount = sum((r.principal for r in rows), ZERO)
        bills[number] = Bill(
            number=f"{CONVERTED_BILL_PREFIX}{number}", run=runs[r0.fiscal_year], account=account, parcel=parcel,
            period_start=start,
            period_end=end, issue_date=min(r.issue_date for r in rows), owner_name=owner.name if owner else "",
            mailing_address=owner.mailing_address if owner else "", property_class=_class_of(parcel),
            impervious_sqft=ZERO, erus=0, gross_fee=amount, amount=amount, blocks=[],
            explanation=(f"Converted from the old system's bill {number} (FY{r0.fiscal_year}) at the cut-over "
                         f"{as_of}: its open installments with their own issue and due dates (issue 32)."),
            water_sewer_account=parcel.water_sewer_account)
    Bill.objects.bulk_create(bills.values(), batch_size=1000)
    made["bills"] = len(bills)
    insts = {r.key: Installment(bill=bills[r.bill_number], seq=r.installment, amount=r.principal,
                                issue_date=r.issue_date, due_date=r.due_date) for r in plan.new_rows}
    Installment.objects.bulk_create(insts.values(), batch_size=1000)
    made["installments"] = len(insts)
    entries: list[LedgerEntry] = []
    demands: list[tuple[OldRow, Installment, RateResolution]] = []
    converted: list[ConvertedInstallment] = []
    for number, rows in by_bill.items():
        bill = bills[number]
        account, run = bill.account, bill.run
        rate = run.resolution.interest_rate_percent
        for r in rows:
            inst = insts[r.key]
            memo = f"Converted: old bill {number} installment {r.installment}"
            e = dict(account=account, bill=bill, installment=inst, created_by=by)
            entries.append(LedgerEntry(kind=EntryKind.CHARGE, component=Component.PRINCIPAL, amount=r.principal,
                                       effective_on=r.issue_date, memo=memo, **e))
            if r.demand_date:
                entries.append(LedgerEntry(kind=EntryKind.DEMAND, component=Component.DEMAND, amount=r.demand_charge,
                                           effective_on=r.demand_date, memo=memo + " — demand charge (Chapter 189)",
                                           **e))
                demands.append((r, inst, run.resolution))
            through = r.lien_date or as_of
            # The interest the old dates imply here (billing ¶C; the one interest function).
            implied = accrued_interest(principal=r.principal, reductions=[], due_date=r.due_date, as_of=through,
                                       rate_percent=rate)
            if r.lien_date and implied > 0:
                entries.append(LedgerEntry(kind=EntryKind.INTEREST, component=Component.INTEREST, amount=implied,
                                           effective_on=r.lien_date, memo=memo + f" — interest through {r.lien_date}",
                                           **e))
            if r.interest != implied:
                adjusted.append(f"row {r.row} ({ex.mapping.get('interest', 'interest')}): {fmt(r.interest)}, the "
                                f"dates imply {fmt(implied)}")
                entries.append(LedgerEntry(kind=EntryKind.CONVERSION, component=Component.INTEREST,
                                           amount=r.interest - implied, effective_on=through,
                                           memo=(memo + f" — interest of the old system {fmt(r.interest)}, the dates "
                                                 f"imply {fmt(implied)} here")[:300], **e))
            if r.lien_date:
                for comp, amt in ((Component.DEMAND, r.demand_charge), (Component.INTEREST, r.interest),
                                  (Component.PRINCIPAL, r.principal)):
                    if amt:
                        entries.append(LedgerEntry(kind=EntryKind.LIEN, component=comp, amount=-amt,
                                                   effective_on=r.lien_date,
                                                   memo=memo + " — committed to the tax bill (lien)", **e))
            converted.append(ConvertedInstallment(old_key=r.key, old_bill_number=number, fiscal_year=r.fiscal_year,
                                                  conversion=conversion, installment=inst, row=r.row,
                                                  facts=r.facts()))
    LedgerEntry.objects.bulk_create(entries, batch_size=2000)
    made["entries"] += len(entries)
    ConvertedInstallment.objects.bulk_create(converted, batch_size=2000)
    # Demands and commitments: the acts the clocks run from (billing ¶D), with the old system's days.
    commitments: dict[tuple[int, date], Commitment] = {}
    for r, inst, res in demands:
        d = Demand.objects.create(account=inst.bill.account, served_on=r.demand_date, resolution=res,
                                  demand_charge=r.demand_charge, principal_due=r.principal,
                                  interest_due=r.interest, total_due=r.principal + r.interest + r.demand_charge,
                                  created_by=by)
        made["demands"] += 1
        if r.lien_date:
            ty = r.lien_tax_year or (r.lien_date.year + 1 if r.lien_date.month >= 7 else r.lien_date.year)
            c = commitments.get((ty, r.lien_date))
            if c is None:
                c = commitments[(ty, r.lien_date)] = Commitment.objects.create(
                    tax_fiscal_year=ty, committed_on=r.lien_date, created_by=by)
                made["commitments"] += 1
            CommitmentLine.objects.create(commitment=c, account=d.account, demand=d, principal=r.principal,
                                          interest=r.interest, demand_charges=r.demand_charge, total=r.lien_amount)
    for k, (n, amount, fy, _) in plan.new_credits.items():
        account = _account_of(plan, k)
        e = LedgerEntry.objects.create(account=account, kind=EntryKind.CONVERSION, component=Component.UNAPPLIED,
                                       amount=-amount, effective_on=as_of, created_by=by,
                                       memo="Converted: credit balance in the old system at the cut-over")
        ConvertedCredit.objects.create(account=account, amount=amount, fiscal_year=fy, conversion=conversion,
                                       entry=e, row=n)
        made["credits"] += 1
        made["entries"] += 1
    for run in runs.values():
        agg = Bill.all_objects.filter(run=run).aggregate(s=Sum("amount"))
        run.bill_count = Bill.all_objects.filter(run=run).count()
        run.total_billed = agg["s"] or ZERO
        run.save(update_fields=["bill_count", "total_billed"])
    if adjusted:
        made["_adjusted"] = adjusted
    return made


# --- reading back and reconciling -----------------------------------------------------------------------------

def _empty() -> dict:
    return {b: (0 if b == "accounts" else ZERO) for b in BUCKETS}


def converted_totals(ex: Export, plan: _Plan, as_of: date) -> dict[str, dict]:
    """What the books hold for the export's rows as of the cut-over, by fiscal year and bucket: principal, interest
    and demand charges owed (the set-based positions: interest earned and not posted included) plus what was
    committed to the lien, the liens, the credit balances, the number of accounts."""
    from stormwater.receivables.positions import AccountFilter, installment_figures

    conv = {c.old_key: c for c in ConvertedInstallment.objects.filter(old_key__in=[r.key for r in ex.rows])
            .select_related("installment__bill")}
    inst_fy = {c.installment_id: c.fiscal_year for c in conv.values()}
    acct_ids = {c.installment.bill.account_id for c in conv.values()}
    credits = {c.account_id: c for c in ConvertedCredit.objects.filter(
        account__in=[a for a in plan.accounts.values() if isinstance(a, Account)])}
    out: dict[str, dict] = defaultdict(_empty)
    accounts: dict[str, set] = defaultdict(set)
    figures = installment_figures(as_of, AccountFilter(ids=sorted(acct_ids))) if acct_ids else {}
    for aid, items in figures.items():
        for f in items:
            if f.inst_id not in inst_fy:
                continue
            t = out[fy_key(inst_fy[f.inst_id])]
            t["principal"] += f.principal
            t["interest"] += f.interest + f.unposted
            t["demand"] += f.demand
            accounts[fy_key(inst_fy[f.inst_id])].add(aid)
    for r in (LedgerEntry.objects.filter(installment_id__in=inst_fy, kind=EntryKind.LIEN)
              .values("installment_id", "component").annotate(s=Sum("amount"))):
        t = out[fy_key(inst_fy[r["installment_id"]])]
        amt = -(r["s"] or ZERO)
        t["liens"] += amt
        t[{"principal": "principal", "interest": "interest", "demand": "demand"}[r["component"]]] += amt
    keys = set(ex.credits)
    for k in keys:
        a = plan.accounts.get(k)
        c = credits.get(a.pk) if isinstance(a, Account) else None
        if c is not None:
            key = fy_key(c.fiscal_year)
            out[key]["credits"] += c.amount
            accounts[key].add(a.pk)
    for k, s in accounts.items():
        out[k]["accounts"] = len(s)
    return dict(out)


def compare(control: dict[str, dict], converted: dict[str, dict]) -> list[dict]:
    """Every bucket of every fiscal year where the control totals and the books differ (to the cent)."""
    diffs = []
    for k in sorted(set(control) | set(converted)):
        c, v = control.get(k) or _empty(), converted.get(k) or _empty()
        for b in BUCKETS:
            if (c.get(b) or 0) != (v.get(b) or 0):
                d = (v.get(b) or 0) - (c.get(b) or 0)
                diffs.append({"fiscal_year": k or "no fiscal year", "bucket": b,
                              "old_system": c.get(b) if b == "accounts" else fmt(c.get(b) or ZERO),
                              "converted": v.get(b) if b == "accounts" else fmt(v.get(b) or ZERO),
                              "difference": d if b == "accounts" else fmt(d)})
    return diffs


def balances_convert(*, path: str | Path, as_of: date, control_path: str | Path | None = None,
                     mapping: dict[str, str] | None = None, apply: bool = False, accept_differences: bool = False,
                     acting_user, source: str | None = None, control_source: str | None = None) -> BalancesResult:
    """Convert the old system's export of open bills (issue 32). Dry run unless ``apply``; refused
    (``ImportRefused``, nothing written) on any bad row, and on apply when the control totals and the books differ
    and the differences were not accepted. A refusal to apply is recorded (``ImportRecord``)."""
    source = source or Path(path).name
    ex = read_export(path, as_of=as_of, mapping=mapping, name=source)
    problems = list(ex.problems)
    ct = read_control(control_path, name=control_source) if control_path else ControlTotals("", {})
    problems += ct.problems
    res = BalancesResult(source=source, as_of=as_of, rows=len(ex.rows) + len(ex.credits), dry_run=not apply,
                         problems=problems)
    try:
        if any(p.code == "missing_column" for p in problems) or ct.problems and not ct.by_year:
            refuse_on_errors(source, problems)
        plan = _plan(ex, problems)  # every row looked up too, so one refusal lists every bad row and field
        refuse_on_errors(source, problems)
    except ImportRefused as e:
        if apply:
            import_record_create(kind=KIND, source=source, path=path, content_checksum="", outcome="refused",
                                 counts={}, report=e.json_detail(), acting_user=acting_user)
        raise
    res.unchanged = plan.unchanged
    res.control = {k: _money_json(v) for k, v in ct.by_year.items()}
    content = content_checksum(sorted([r.key, r.facts()] for r in ex.rows) + sorted(
        [k, str(v[1])] for k, v in ex.credits.items()))
    try:
        with transaction.atomic():
            conversion = Conversion.objects.create(as_of=as_of, source=source[:300], created_by=actor_or_none(acting_user))
            res.created = _write(plan, ex, as_of, conversion, acting_user)
            # The totals, the aging and the books' reads below run over the rows just written: plan them on the
            # tables' real sizes (a rolled-back dry run leaves statistics of 0 rows behind).
            analyze(Account, Bill, Installment, LedgerEntry, ConvertedInstallment)
            adjusted = res.created.pop("_adjusted", [])
            if adjusted:
                problems.append(Problem(
                    "interest_kept", source, "interest of the old system other than its dates imply here (a part "
                    "payment it counted otherwise?): kept as the old system says, the difference a conversion "
                    "entry; interest continues from the cut-over on the principal", adjusted, severity="warning"))
            totals = converted_totals(ex, plan, as_of)
            res.converted = {k: _money_json(v) for k, v in sorted(totals.items())}
            res.differences = compare(ct.by_year, totals) if ct.by_year else []
            res.aging = _aging(plan, as_of)
            if not apply:
                raise _Rollback
            if not ct.by_year:
                raise ImportRefused(source, [*problems, error("no_control", source, ERR_NO_CONTROL)])
            if res.differences and not accept_differences:
                raise ImportRefused(source, [*problems, error(
                    "control_totals", source, ERR_DIFFERENCES,
                    [f"{d['fiscal_year']} {d['bucket']}: old system {d['old_system']}, converted {d['converted']} "
                     f"(difference {d['difference']})" for d in res.differences])])
            res.accepted = bool(res.differences)
            changed = any(res.created.values())
            rec = import_record_create(
                kind=KIND, source=source, path=path, content_checksum=content,
                outcome="applied" if changed else "unchanged",
                counts={"rows": res.rows, **res.created, "unchanged": res.unchanged},
                report={"control_totals": res.control, "converted": res.converted, "differences": res.differences,
                        "accepted_differences": res.accepted, "problems": [p.as_json() for p in problems]},
                acting_user=acting_user)
            conversion.import_record = rec
            conversion.control, conversion.converted = res.control, res.converted
            conversion.accepted_differences = res.differences if res.accepted else []
            conversion.save()
            audit_record(actor=acting_user, action="golive.balances", obj=conversion, why=source[:200],
                         data={"as_of": str(as_of), "created": res.created, "differences": res.differences,
                               "accepted": res.accepted})
            res.applied, res.conversion = True, conversion
    except _Rollback:
        pass
    except ImportRefused as e:
        import_record_create(kind=KIND, source=source, path=path, content_checksum=content, outcome="refused",
                             counts={"rows": res.rows}, report=e.json_detail(), acting_user=acting_user)
        raise
    return res


def _aging(plan: _Plan, as_of: date) -> dict:
    """The aging of the converted accounts as of the cut-over (the Collector's aging report, those accounts)."""
    from stormwater.receivables.positions import AccountFilter, AccountReport

    ids = sorted({a.pk for a in plan.accounts.values() if isinstance(a, Account)})
    t = AccountReport("aging", as_of=as_of, accounts=AccountFilter(ids=ids)).totals()
    return {"accounts": t.count, **{k: fmt(v) for k, v in t.buckets.items()}, "total": fmt(t.total)}
