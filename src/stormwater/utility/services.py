"""State changes of the utility: rate resolutions and bill runs. Each atomic, each audited."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from django.db import transaction

from stormwater.audit.services import actor_or_none, audit_record
from stormwater.parcels.models import AssociationUnit, Parcel
from stormwater.parcels.selectors import impervious_as_of
from stormwater.rules.calendar import add_calendar_days, add_months
from stormwater.rules.classes import PropertyClass
from stormwater.rules.fees import Block, FeeTerms, validate_terms
from stormwater.rules.money import ZERO, allocate, fmt, split_equal

from .models import (Account, Bill, BillRun, BillRunException, EntryKind, Installment, LedgerEntry,
                     RateResolution, ResolutionBlock)
from .selectors import (ERR_NO_RESOLUTION, BillingProblem, ParcelFacts, assess, credits_in_force,
                        resolution_in_force)

# Ch. 295 Art. IV ¶B: "Payment shall be due 30 days after the issue date of the stormwater bill."
DUE_DAYS = 30
ERR_PERIOD = "The period must start before it ends."


class BillingError(Exception):
    """A bill run that cannot go ahead; the message says why."""


@transaction.atomic
def resolution_adopt(*, label: str, adopted_on: date, effective_from: date, eru_sqft: Decimal,
                     rate_per_eru: Decimal, small_residential_rate: Decimal, installments: int,
                     interest_rate_percent: Decimal, demand_charge: Decimal,
                     blocks: list[tuple[int, int | None, Decimal]], is_demo: bool = False, notes: str = "",
                     acting_user) -> RateResolution:
    """Enter a Select Board rate resolution (Ch. 295 Art. IV ¶B–¶E) after checking its terms."""
    terms = FeeTerms(eru_sqft=Decimal(eru_sqft), rate_per_eru=Decimal(rate_per_eru),
                     small_residential_rate=Decimal(small_residential_rate),
                     blocks=tuple(Block(a, b, Decimal(c)) for a, b, c in blocks), installments=installments)
    validate_terms(terms)
    if not (Decimal(0) <= Decimal(interest_rate_percent) <= Decimal(100)):
        raise ValueError("interest_rate_percent: must be between 0 and 100")
    if Decimal(demand_charge) < 0:
        raise ValueError("demand_charge: must not be negative")
    res = RateResolution.objects.create(
        label=label, adopted_on=adopted_on, effective_from=effective_from, eru_sqft=eru_sqft,
        rate_per_eru=rate_per_eru, small_residential_rate=small_residential_rate, installments=installments,
        interest_rate_percent=interest_rate_percent, demand_charge=demand_charge, is_demo=is_demo, notes=notes,
        created_by=actor_or_none(acting_user))
    ResolutionBlock.objects.bulk_create(
        ResolutionBlock(resolution=res, first_eru=a, last_eru=b, coefficient=c) for a, b, c in blocks)
    audit_record(actor=acting_user, action="resolution.adopt", obj=res, why=label,
                 data={"effective_from": str(effective_from), "eru_sqft": str(eru_sqft),
                       "rate_per_eru": str(rate_per_eru), "installments": installments})
    return res


def fiscal_year(fy: int) -> tuple[str, date, date]:
    """Massachusetts fiscal year FYnnnn: July 1 of the year before to June 30."""
    return f"FY{fy}", date(fy - 1, 7, 1), date(fy, 6, 30)


def installment_schedule(issue_date: date, n: int) -> list[tuple[date, date]]:
    """(issue, due) of each of ``n`` installments spread evenly over the year from ``issue_date``.

    Due 30 days after each issue (Ch. 295 Art. IV ¶B); a due date on a weekend or Massachusetts
    legal holiday rolls to the next business day (MGL c.4 §9).
    """
    out = []
    for k in range(n):
        issued = add_months(issue_date, k * 12 // n)
        out.append((issued, add_calendar_days(issued, DUE_DAYS)))
    return out


@dataclass
class BillRunResult:
    run: BillRun | None
    bills: int = 0
    total: Decimal = ZERO
    already_billed: int = 0
    exempt: int = 0
    no_fee: int = 0
    problems: list[tuple[str, str]] = field(default_factory=list)  # (parcel id, message)
    message: str = ""

    def as_json(self) -> dict:
        return {"run_id": self.run.pk if self.run else None, "bills": self.bills, "total": fmt(self.total),
                "already_billed": self.already_billed, "exempt": self.exempt, "no_fee": self.no_fee,
                "problems": [{"parcel_id": p, "message": m} for p, m in self.problems], "message": self.message}


def _ensure_accounts(parcel_pks: list[int], units_by_parcel: dict[int, list[AssociationUnit]],
                     parcel_ids: dict[int, str]) -> dict[tuple[int, int | None], int]:
    """Account pk for every (parcel, unit) to bill, creating missing accounts in bulk."""
    existing = {(p, u): pk for pk, p, u in Account.objects.values_list("pk", "parcel_id", "unit_id")}
    new = []
    for p in parcel_pks:
        for unit in units_by_parcel.get(p) or [None]:
            key = (p, unit.pk if unit else None)
            if key not in existing:
                number = f"SW-{parcel_ids[p]}" + (f"-U{unit.unit}" if unit else "")
                new.append(Account(number=number, parcel_id=p, unit=unit))
    if new:
        Account.objects.bulk_create(new, batch_size=2000)
        existing = {(p, u): pk for pk, p, u in Account.objects.values_list("pk", "parcel_id", "unit_id")}
    return existing


def _apply_credit_balances(account_ids: set[int], on: date, acting_user) -> None:
    """Accounts carrying an overpayment credit: apply it to the new bills, so no interest accrues on a
    bill the owner has in effect already paid."""
    from django.db.models import Sum

    from stormwater.receivables.services import credit_apply

    from .models import Component

    with_credit = (LedgerEntry.objects.filter(account_id__in=account_ids, component=Component.UNAPPLIED)
                   .values("account_id").annotate(s=Sum("amount")).filter(s__lt=0).values_list("account_id", flat=True))
    for acct in Account.objects.filter(pk__in=list(with_credit)):
        credit_apply(account=acct, on=on, acting_user=acting_user)


@transaction.atomic
def bill_run_issue(*, period_label: str, period_start: date, period_end: date, issue_date: date,
                   acting_user) -> BillRunResult:
    """Bill every nonexempt parcel once for the period (Ch. 295 Art. IV ¶B, ¶E, ¶G). Set-based.

    - Rates: the resolution in force on the period's first day; none → BillingError.
    - Idempotent: accounts already billed for the period are skipped (and a unique constraint on
      (account, period_start) backs that up), so re-running bills nothing twice.
    - Parcels that cannot be billed are listed with why (BillRunException), never billed $0.
    - Association parcels: one bill per unit for its recorded percentage; the units' amounts sum
      to the cent to the parcel's fee (¶G).
    - Each bill has 1–4 installments summing exactly to its amount; each installment is a charge
      in the account's append-only ledger, effective on its issue date.
    """
    if period_start >= period_end:
        raise BillingError(ERR_PERIOD)
    res = resolution_in_force(period_start)
    if res is None:
        raise BillingError(ERR_NO_RESOLUTION.format(day=period_start))
    # Serialize runs: two clerks pressing "issue" at once must not both bill (PostgreSQL row lock;
    # SQLite's IMMEDIATE transactions already serialize writers).
    RateResolution.objects.select_for_update().filter(pk=res.pk).first()
    terms = res.fee_terms()

    parcels = list(Parcel.objects.values_list(
        "pk", "parcel_id", "owner_id", "land_use_code", "dwelling_units", "public_way", "road_maintenance",
        "class_override", "class_override_reason", "lot_sqft", "owner__name", "owner__mailing_address",
        "water_sewer_account"))
    impervious = impervious_as_of(as_of=issue_date)
    # Credits apply prospectively: those in force on the issue date (Ch. 295 Art. IV credits ¶E).
    credits = credits_in_force(on=issue_date)
    units_by_parcel: dict[int, list[AssociationUnit]] = {}
    for u in AssociationUnit.objects.select_related("association", "owner").order_by("association__parcel_id", "unit"):
        units_by_parcel.setdefault(u.association.parcel_id, []).append(u)
    billed = set(Bill.objects.filter(period_start=period_start).values_list("account_id", flat=True))

    result = BillRunResult(run=None)
    to_bill: list[tuple[tuple, object]] = []
    for row in parcels:
        pk, pid, owner_id, luc, du, pw, rm, ov, ovr, lot, _, _, _ = row
        facts = ParcelFacts(has_owner=owner_id is not None, land_use_code=luc, dwelling_units=du, public_way=pw,
                            road_maintenance=rm, class_override=ov, class_override_reason=ovr, lot_sqft=lot,
                            impervious_sqft=impervious.get(pk), credit_percent=credits.get(pk, (ZERO, ""))[0],
                            credit_note=credits.get(pk, (ZERO, ""))[1])
        try:
            fee = assess(facts, terms)
        except BillingProblem as e:
            result.problems.append((pid, str(e)))
            continue
        if fee.property_class is PropertyClass.EXEMPT:
            result.exempt += 1
            continue
        if fee.annual_fee == 0:
            result.no_fee += 1
            continue
        units = units_by_parcel.get(pk)
        if units and any(u.owner_id is None for u in units):
            result.problems.append((pid, "An association unit has no record owner: "
                                         + ", ".join(u.unit for u in units if u.owner_id is None)))
            continue
        to_bill.append((row, fee))

    accounts = _ensure_accounts([r[0] for r, _ in to_bill], units_by_parcel, {r[0]: r[1] for r, _ in to_bill})
    schedule = installment_schedule(issue_date, terms.installments)

    run = BillRun(period_label=period_label, period_start=period_start, period_end=period_end,
                  issue_date=issue_date, resolution=res,
                  created_by=actor_or_none(acting_user))
    bills: list[Bill] = []
    for row, fee in to_bill:
        pk, pid, _, _, _, _, _, _, _, _, owner_name, owner_addr, water_account = row
        units = units_by_parcel.get(pk)
        blocks = [b.as_json() for b in fee.blocks]
        if units:
            amounts = allocate(fee.annual_fee, [u.percent for u in units])
            targets = [(u, a) for u, a in zip(units, amounts)]
        else:
            targets = [(None, fee.annual_fee)]
        for unit, amount in targets:
            acct = accounts[(pk, unit.pk if unit else None)]
            if acct in billed:
                result.already_billed += 1
                continue
            expl = fee.explanation
            if unit:
                a = unit.association
                expl += (f"\nProperty association {a.name} (instrument {a.instrument}): unit {unit.unit} is "
                         f"{unit.percent}% of ${fmt(fee.annual_fee)} = ${fmt(amount)} (Ch. 295 Art. IV ¶G).")
            bills.append(Bill(
                number=f"{period_label}-{pid}" + (f"-U{unit.unit}" if unit else ""), run=run, account_id=acct,
                parcel_id=pk, period_start=period_start, period_end=period_end, issue_date=issue_date,
                owner_name=unit.owner.name if unit else owner_name,
                mailing_address=unit.owner.mailing_address if unit else owner_addr,
                property_class=fee.property_class.value, impervious_sqft=fee.impervious_sqft, erus=fee.erus,
                gross_fee=fee.gross_fee, credit_percent=fee.credit_percent,
                share_percent=unit.percent if unit else None, amount=amount, blocks=blocks, explanation=expl,
                flagged=fee.over_last_block, water_sewer_account="" if unit else water_account))
    if not bills:
        result.message = (f"Nothing to bill for {period_label}: every billable account is already billed."
                          if result.already_billed else f"Nothing to bill for {period_label}.")
        return result

    run.bill_count = len(bills)
    run.total_billed = sum((b.amount for b in bills), ZERO)
    run.save()
    for b in bills:
        b.run = run
    Bill.objects.bulk_create(bills, batch_size=2000)
    installments: list[Installment] = []
    for b in bills:
        for seq, (amount, (issued, due)) in enumerate(zip(split_equal(b.amount, len(schedule)), schedule), 1):
            installments.append(Installment(bill=b, seq=seq, amount=amount, issue_date=issued, due_date=due))
    Installment.objects.bulk_create(installments, batch_size=2000)
    creator = run.created_by
    LedgerEntry.objects.bulk_create(
        (LedgerEntry(account_id=i.bill.account_id, kind=EntryKind.CHARGE, amount=i.amount, effective_on=i.issue_date,
                     bill=i.bill, installment=i, memo=f"{i.bill.number} installment {i.seq}", created_by=creator)
         for i in installments), batch_size=2000)
    problem_parcels = dict(Parcel.objects.filter(parcel_id__in=[p for p, _ in result.problems])
                           .values_list("parcel_id", "pk"))
    BillRunException.objects.bulk_create(
        BillRunException(run=run, parcel_id=problem_parcels[p], message=m) for p, m in result.problems)
    _apply_credit_balances({b.account_id for b in bills}, issue_date, acting_user)
    result.run, result.bills, result.total = run, len(bills), run.total_billed
    result.message = f"Issued {len(bills)} bills for {period_label}, total ${fmt(run.total_billed)}."
    audit_record(actor=acting_user, action="bill_run.issue", obj=run, why=result.message,
                 data={"resolution": res.pk, "bills": len(bills), "total": fmt(run.total_billed),
                       "problems": len(result.problems), "already_billed": result.already_billed})
    return result
