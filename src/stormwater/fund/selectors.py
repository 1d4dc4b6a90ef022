"""Reads of the Stormwater Management Account: budgets, fee receipts from the ledger, revenue against
budget, and the parcel base and inputs of the rate model."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal

from django.db.models import Count, Q, Sum

from stormwater.parcels.models import Parcel
from stormwater.parcels.selectors import impervious_as_of
from stormwater.rules.classes import PropertyClass
from stormwater.rules.fees import FeeTerms
from stormwater.rules.money import ZERO
from stormwater.rules.rate_model import (DEFAULT_SAMPLE_ERUS, ParcelBase, RateSolution, SampleBill, sample_bills,
                                         solve_rate)
from stormwater.rules.town import demo_terms
from stormwater.utility.models import Bill, EntryKind, LedgerEntry
from stormwater.utility.selectors import BillingProblem, ParcelFacts, assess, association_split, resolution_in_force

from .models import AllowedUse, BudgetLine, Category, FiscalYearBudget, OtherRevenue, RevenueKind


def fiscal_year_of(d: date) -> int:
    """Massachusetts fiscal year of a day: FY2027 runs July 1, 2026 – June 30, 2027."""
    return d.year + 1 if d.month >= 7 else d.year


def fiscal_year_bounds(fy: int) -> tuple[date, date]:
    return date(fy - 1, 7, 1), date(fy, 6, 30)


# ----------------------------------------------------------------------------------------------- budget

@dataclass(frozen=True)
class BudgetSummary:
    fiscal_year: int
    start: date
    end: date
    budget: FiscalYearBudget | None
    lines: list[BudgetLine]
    other: list[OtherRevenue]
    total: Decimal
    by_category: list[tuple[str, str, Decimal]]   # (value, label, amount)
    by_use: list[tuple[str, str, Decimal]]        # (letter, label, amount), only uses with lines
    other_total: Decimal                          # anticipated and received
    other_received: Decimal
    reserve_use: Decimal

    @property
    def need(self) -> Decimal:
        """What the fee must raise: budget − other revenue − reserve use, not below zero (budget/rates ¶C)."""
        return max(ZERO, self.total - self.other_total - self.reserve_use)

    def as_json(self) -> dict:
        from stormwater.rules.money import fmt

        b = self.budget
        return {
            "fiscal_year": self.fiscal_year, "start": str(self.start), "end": str(self.end),
            "approved_on": str(b.approved_on) if b and b.approved_on else None,
            "total": fmt(self.total), "other_revenue": fmt(self.other_total),
            "other_revenue_received": fmt(self.other_received), "reserve_use": fmt(self.reserve_use),
            "fee_need": fmt(self.need),
            "lines": [{"id": ln.pk, "category": ln.category, "allowed_use": ln.allowed_use,
                       "description": ln.description, "amount": fmt(ln.amount)} for ln in self.lines],
            "other": [{"id": r.pk, "kind": r.kind, "source": r.source, "amount": fmt(r.amount),
                       "dated": str(r.dated), "received": r.received, "notes": r.notes} for r in self.other],
            "by_category": {v: fmt(a) for v, _, a in self.by_category},
            "by_use": {v: fmt(a) for v, _, a in self.by_use},
        }


def budget_summary(fiscal_year: int) -> BudgetSummary:
    start, end = fiscal_year_bounds(fiscal_year)
    budget = FiscalYearBudget.objects.filter(fiscal_year=fiscal_year).first()
    lines = list(BudgetLine.objects.filter(budget=budget)) if budget else []
    other = list(OtherRevenue.objects.filter(budget=budget)) if budget else []
    cat = {c: ZERO for c in Category.values}
    use: dict[str, Decimal] = {}
    for ln in lines:
        cat[ln.category] += ln.amount
        use[ln.allowed_use] = use.get(ln.allowed_use, ZERO) + ln.amount
    return BudgetSummary(
        fiscal_year=fiscal_year, start=start, end=end, budget=budget, lines=lines, other=other,
        total=sum((ln.amount for ln in lines), ZERO),
        by_category=[(c.value, c.label, cat[c.value]) for c in Category],
        by_use=[(u.value, u.label, use[u.value]) for u in AllowedUse if u.value in use],
        other_total=sum((r.amount for r in other), ZERO),
        other_received=sum((r.amount for r in other if r.received), ZERO),
        reserve_use=budget.reserve_use if budget else ZERO)


# --------------------------------------------------------------------------------------------- receipts

GROUPINGS = ("day", "month", "quarter", "fiscal_year")


@dataclass(frozen=True)
class ReceiptPeriod:
    label: str
    start: date
    end: date
    receipts: Decimal   # payments less reversed payments
    payments: int       # payment entries (a payment applied to several items is several entries)
    reversals: int


def receipt_entries(start: date, end: date):
    """Ledger entries that move fee cash: payments (negative) and reversals of payments (positive)."""
    return LedgerEntry.objects.filter(effective_on__gte=start, effective_on__lte=end).filter(
        Q(kind=EntryKind.PAYMENT) | Q(kind=EntryKind.REVERSAL, reverses__kind=EntryKind.PAYMENT))


def _period_of(d: date, grouping: str) -> tuple[str, date, date]:
    if grouping == "day":
        return d.isoformat(), d, d
    if grouping == "month":
        nxt = date(d.year + (d.month == 12), d.month % 12 + 1, 1)
        return f"{d:%Y-%m}", date(d.year, d.month, 1), nxt - timedelta(days=1)
    fy = fiscal_year_of(d)
    if grouping == "quarter":
        q = ((d.month - 7) % 12) // 3 + 1  # fiscal quarters: Q1 = July–September
        m0 = (6 + 3 * (q - 1)) % 12 + 1
        y0 = fy - 1 if m0 >= 7 else fy
        s = date(y0, m0, 1)
        e = date(y0 + (m0 + 3 > 12), (m0 + 2) % 12 + 1, 1)
        return f"FY{fy} Q{q}", s, e - timedelta(days=1)
    s, e = fiscal_year_bounds(fy)
    return f"FY{fy}", s, e


def receipts_by_period(start: date, end: date, grouping: str = "month") -> list[ReceiptPeriod]:
    """Fee receipts of the Stormwater Management Account (fee section ¶C) from the ledger, by period.

    receipts = −Σ amount of payment entries and of reversals of payment entries, by ``effective_on``.
    Every period from ``start`` to ``end`` is listed (zero where nothing was received); the first and
    last are clipped to the range. Quarters are fiscal quarters (Q1 = July–September).
    """
    if grouping not in GROUPINGS:
        raise ValueError(f"grouping: expected one of {', '.join(GROUPINGS)}")
    if end < start:
        raise ValueError("end: must not be before start")
    if grouping == "day" and (end - start).days > 3660:
        raise ValueError("grouping by day: at most ten years at once")
    rows = (receipt_entries(start, end).order_by().values("effective_on")
            .annotate(s=Sum("amount"), n=Count("id", filter=Q(kind=EntryKind.PAYMENT)),
                      r=Count("id", filter=Q(kind=EntryKind.REVERSAL))))
    sums: dict[str, list] = {}
    for row in rows:
        label = _period_of(row["effective_on"], grouping)[0]
        acc = sums.setdefault(label, [ZERO, 0, 0])
        acc[0] -= row["s"] or ZERO
        acc[1] += row["n"]
        acc[2] += row["r"]
    for day, amount, n in lien_receipts(start, end):
        acc = sums.setdefault(_period_of(day, grouping)[0], [ZERO, 0, 0])
        acc[0] += amount
        acc[1] += n
    out = []
    d = start
    while d <= end:
        label, s, e = _period_of(d, grouping)
        acc = sums.get(label, [ZERO, 0, 0])
        out.append(ReceiptPeriod(label, max(s, start), min(e, end), acc[0] + ZERO, acc[1], acc[2]))
        d = e + timedelta(days=1)
    return out


def lien_receipts(start: date, end: date) -> list[tuple[date, Decimal, int]]:
    """Committed stormwater charges paid through the property tax bill (Ch. 295 Art. IV billing ¶D):
    they left the stormwater ledger as lien entries and come back to the fund as receipts.
    → (day, amount, liens closed that day), summed by the database."""
    from stormwater.receivables.models import CommitmentLine

    return [(d, s or ZERO, n) for d, s, n in
            CommitmentLine.objects.filter(paid_on__gte=start, paid_on__lte=end).order_by().values("paid_on")
            .annotate(s=Sum("paid_amount"), n=Count("id")).values_list("paid_on", "s", "n")]


def receipts_total(start: date, end: date) -> Decimal:
    """All fee receipts from ``start`` to ``end``: ledger payments less reversals, and liens paid (two sums)."""
    from stormwater.receivables.models import CommitmentLine

    s = receipt_entries(start, end).aggregate(s=Sum("amount"))["s"]
    liens = CommitmentLine.objects.filter(paid_on__gte=start, paid_on__lte=end).aggregate(
        s=Sum("paid_amount"))["s"]
    return ZERO - (s or ZERO) + (liens or ZERO)


def billed_for_year(fiscal_year: int) -> Decimal:
    """Fees billed for the fiscal year (bills whose period starts in it; back bills included)."""
    start, end = fiscal_year_bounds(fiscal_year)
    return Bill.objects.filter(period_start__gte=start, period_start__lte=end).aggregate(s=Sum("amount"))["s"] or ZERO


# ----------------------------------------------------------------------------------- revenue vs budget

@dataclass(frozen=True)
class RevenueRow:
    source: str
    budgeted: Decimal
    actual: Decimal | None  # None: not a receipt (the use of reserves)
    note: str = ""

    @property
    def percent(self) -> Decimal | None:
        if self.actual is None or not self.budgeted:
            return None
        return (self.actual * 100 / self.budgeted).quantize(Decimal("0.1"))


@dataclass(frozen=True)
class RevenueVsBudget:
    fiscal_year: int
    as_of: date
    summary: BudgetSummary
    billed: Decimal
    rows: list[RevenueRow]

    @property
    def budgeted_total(self) -> Decimal:
        return sum((r.budgeted for r in self.rows), ZERO)

    @property
    def actual_total(self) -> Decimal:
        return sum((r.actual for r in self.rows if r.actual is not None), ZERO)

    @property
    def fee_receipts(self) -> Decimal:
        return self.rows[0].actual or ZERO


REVENUE_ROW_LABEL = {"grant": "Grants", "loan": "Low-interest loans", "appropriation": "Appropriations",
                     "other": "Other revenue"}


def revenue_vs_budget(fiscal_year: int, *, as_of: date) -> RevenueVsBudget:
    """Revenue of the account for a fiscal year against its budget, as of a day.

    The fee's budgeted revenue is what it must raise (budget − other revenue − reserve use);
    its actual revenue is the receipts from the ledger from July 1 to ``as_of``. Other revenue counts
    as actual once marked received on or before ``as_of``.
    """
    summary = budget_summary(fiscal_year)
    through = min(as_of, summary.end)
    fee = receipts_total(summary.start, through) if through >= summary.start else ZERO
    billed = billed_for_year(fiscal_year)
    rows = [RevenueRow("Stormwater fee receipts", summary.need, fee, f"billed for FY{fiscal_year}: ${billed:,.2f}")]
    for kind in RevenueKind:
        items = [r for r in summary.other if r.kind == kind.value]
        if items:
            rows.append(RevenueRow(REVENUE_ROW_LABEL[kind.value],
                                   sum((r.amount for r in items), ZERO),
                                   sum((r.amount for r in items if r.received and r.dated <= as_of), ZERO)))
    if summary.reserve_use:
        rows.append(RevenueRow("Use of reserves", summary.reserve_use, None, "funded from the account's reserves"))
    return RevenueVsBudget(fiscal_year=fiscal_year, as_of=as_of, summary=summary, billed=billed, rows=rows)


# ------------------------------------------------------------------------------------------ rate model

def parcel_base(*, as_of: date, terms: FeeTerms) -> ParcelBase:
    """Every parcel through the one fee path (``utility.selectors.assess``) with the survey in force on
    ``as_of``, grouped for the rate model. Set-based like the bill run: two queries, then pure code.

    Exempt parcels, parcels with no fee and parcels a bill run could not bill are counted, not in the base. A
    property association's fee is counted once, in its master parcel; its units' own parcels are not billed
    (``utility.selectors.association_split``, Ch. 295 Art. IV ¶G) and are counted with the parcels owing no fee.
    """
    impervious = impervious_as_of(as_of=as_of)
    split = association_split(on=as_of)
    rows = []
    exempt = no_fee = problems = 0
    for pk, owner_id, luc, du, pw, rm, ov, ovr, lot in Parcel.objects.values_list(
            "pk", "owner_id", "land_use_code", "dwelling_units", "public_way", "road_maintenance",
            "class_override", "class_override_reason", "lot_sqft").iterator(chunk_size=5000):
        if split.master_of(pk) is not None:
            # A unit parcel named by its association's instrument owes no fee of its own: its share is in the master's
            # (Ch. 295 Art. IV ¶G). Counted as the bill run counts it, with the parcels owing no fee of their own.
            no_fee += 1
            continue
        facts = ParcelFacts(has_owner=owner_id is not None, land_use_code=luc, dwelling_units=du, public_way=pw,
                            road_maintenance=rm, class_override=ov, class_override_reason=ovr, lot_sqft=lot,
                            impervious_sqft=impervious.get(pk))
        try:
            fee = assess(facts, terms)
        except BillingProblem:
            problems += 1
            continue
        if fee.property_class is PropertyClass.EXEMPT:
            exempt += 1
        elif fee.erus == 0:
            no_fee += 1
        elif split.problem(pk):
            problems += 1  # the run refuses a master whose unit has no record owner
        else:
            rows.append((fee.property_class, fee.erus, fee.credit_percent))
    return ParcelBase.from_parcels(rows, exempt=exempt, no_fee=no_fee, not_billable=problems)


@dataclass(frozen=True)
class RateModelInputs:
    fiscal_year: int
    base_as_of: date
    budget: Decimal | None = None          # None: the fiscal year's budget total
    other_revenue: Decimal | None = None   # None: the year's other revenue (anticipated and received)
    reserve_use: Decimal | None = None     # None: the year's use of reserves
    collection_rate_percent: Decimal = Decimal(100)
    credit_allowance_percent: Decimal = ZERO
    flat_ratio: Decimal = Decimal(1)
    sample_erus: tuple[int, ...] = DEFAULT_SAMPLE_ERUS


@dataclass(frozen=True)
class RateModelRun:
    inputs: RateModelInputs
    summary: BudgetSummary
    terms: FeeTerms            # ERU size and blocks the base is measured with
    terms_source: str
    current: FeeTerms | None   # the terms in force, for the sample bills' comparison
    base: ParcelBase
    solution: RateSolution
    proposed: FeeTerms
    samples: list[SampleBill] = field(default_factory=list)


def model_terms(fiscal_year: int) -> tuple[FeeTerms, str, FeeTerms | None]:
    """ERU size and blocks for the model: the resolution in force on July 1 of the year (else today's,
    else the demo configuration). Returns (terms, where they come from, terms in force to compare)."""
    start, _ = fiscal_year_bounds(fiscal_year)
    res = resolution_in_force(start) or resolution_in_force(date.today())
    if res is None:
        t = demo_terms()
        return t, t.label, None
    t = res.fee_terms()
    return t, t.label, t


def rate_model_run(*, inputs: RateModelInputs) -> RateModelRun:
    summary = budget_summary(inputs.fiscal_year)
    terms, source, current = model_terms(inputs.fiscal_year)
    base = parcel_base(as_of=inputs.base_as_of, terms=terms)
    sol = solve_rate(
        budget=summary.total if inputs.budget is None else inputs.budget,
        other_revenue=summary.other_total if inputs.other_revenue is None else inputs.other_revenue,
        reserve_use=summary.reserve_use if inputs.reserve_use is None else inputs.reserve_use,
        base=base, blocks=terms.blocks, collection_rate_percent=inputs.collection_rate_percent,
        credit_allowance_percent=inputs.credit_allowance_percent, flat_ratio=inputs.flat_ratio)
    proposed = FeeTerms(eru_sqft=terms.eru_sqft, rate_per_eru=sol.rate_per_eru, small_residential_rate=sol.flat_rate,
                        blocks=terms.blocks, installments=1, label=f"proposed FY{inputs.fiscal_year} rate")
    return RateModelRun(inputs=inputs, summary=summary, terms=terms, terms_source=source, current=current, base=base,
                        solution=sol, proposed=proposed,
                        samples=sample_bills(proposed=proposed, current=current, erus=inputs.sample_erus))
