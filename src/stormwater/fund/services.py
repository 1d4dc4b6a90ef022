"""State changes of the Stormwater Management Account: budgets, budget lines, other revenue, and the
adoption of a modelled rate. Each is one transaction with one audit row (STYLE.md habit 2)."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from django.db import transaction

from stormwater.audit.services import actor_or_none as _actor, audit_record
from stormwater.rules.money import fmt, fmt_display, fmt_ratio, round_cents

from .models import AllowedUse, BudgetLine, Category, FiscalYearBudget, OtherRevenue, RevenueKind

# The uses section names reserves under ¶B and debt service under ¶C; a line of either category
# entered under another paragraph would misstate what the fee pays for.
CATEGORY_USE = {Category.RESERVE: AllowedUse.B, Category.DEBT_SERVICE: AllowedUse.C}
ERR_CATEGORY_USE = ("{category} falls under ¶{use} of the uses of the fee (Ch. 295 Art. IV): "
                    "\"{text}\"")
ERR_AMOUNT = "amount: must be more than $0.00"
ERR_RESERVE = "reserve_use: must not be negative"
ERR_FY = "fiscal_year: expected a year between 2000 and 2100 (FY2027 = July 2026 – June 2027)"
ERR_RATE_BELOW = ("The rate per ERU ${rate} is below the ${solved} the model needs to balance the budget: "
                  "the rates must be sufficient for a balanced budget (Ch. 295 Art. IV budget/rates ¶A, ¶C).")


class FundError(ValueError):
    """A fund change that cannot be made; the message says why (``field``: the input it concerns, if any; a form
    marks it, issue 16 "Forms")."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field




def _money(value, field: str = "amount") -> Decimal:
    d = round_cents(Decimal(value))
    if d <= 0:
        raise FundError(ERR_AMOUNT if field == "amount" else f"{field}: must be more than $0.00")
    return d


def _check_fy(fy: int) -> int:
    if not 2000 <= int(fy) <= 2100:
        raise FundError(ERR_FY)
    return int(fy)


def _check_line(category: str, allowed_use: str) -> None:
    from .models import USE_TEXT

    if category not in Category.values:
        raise FundError(f"category: {category!r} is not one of {', '.join(Category.values)}")
    if allowed_use not in AllowedUse.values:
        raise FundError(f"allowed_use: {allowed_use!r} is not a paragraph A–L of the uses of the fee")
    need = CATEGORY_USE.get(Category(category))
    if need and allowed_use != need:
        raise FundError(ERR_CATEGORY_USE.format(category=Category(category).label, use=need.value,
                                                text=USE_TEXT[need.value]), "allowed_use")


def _line_data(line: BudgetLine) -> dict:
    return {"fiscal_year": line.budget.fiscal_year, "category": line.category, "allowed_use": line.allowed_use,
            "description": line.description, "amount": fmt(line.amount)}


def _revenue_data(rev: OtherRevenue) -> dict:
    return {"fiscal_year": rev.budget.fiscal_year, "kind": rev.kind, "source": rev.source, "amount": fmt(rev.amount),
            "dated": str(rev.dated), "received": rev.received, "notes": rev.notes}


def _budget_for_update(fiscal_year: int, acting_user) -> FiscalYearBudget:
    """The year's budget, created on first use; locked so two edits of one year queue (PostgreSQL)."""
    fy = _check_fy(fiscal_year)
    budget, created = FiscalYearBudget.objects.get_or_create(fiscal_year=fy,
                                                             defaults={"created_by": _actor(acting_user)})
    if created:
        audit_record(actor=acting_user, action="fund.budget_create", obj=budget, why=f"FY{fy} budget opened")
    return FiscalYearBudget.objects.select_for_update().get(pk=budget.pk)


@transaction.atomic
def budget_update(*, fiscal_year: int, reserve_use: Decimal, approved_on: date | None, notes: str = "",
                  acting_user) -> FiscalYearBudget:
    """Set the year's use of reserves, the Select Board approval date and notes."""
    budget = _budget_for_update(fiscal_year, acting_user)
    reserve = round_cents(Decimal(reserve_use))
    if reserve < 0:
        raise FundError(ERR_RESERVE)
    before = {"reserve_use": fmt(budget.reserve_use), "approved_on": str(budget.approved_on or ""),
              "notes": budget.notes}
    budget.reserve_use, budget.approved_on, budget.notes = reserve, approved_on, notes
    budget.save(update_fields=["reserve_use", "approved_on", "notes"])
    audit_record(actor=acting_user, action="fund.budget_update", obj=budget, why=f"FY{budget.fiscal_year}",
                 data={"before": before, "after": {"reserve_use": fmt(reserve), "approved_on": str(approved_on or ""),
                                                   "notes": notes}})
    return budget


@transaction.atomic
def budget_line_create(*, fiscal_year: int, category: str, allowed_use: str, description: str, amount: Decimal,
                       acting_user) -> BudgetLine:
    """Add an appropriation line under an allowed use of the fee (Ch. 295 Art. IV, uses ¶A–¶L)."""
    _check_line(category, allowed_use)
    budget = _budget_for_update(fiscal_year, acting_user)
    line = BudgetLine.objects.create(budget=budget, category=category, allowed_use=allowed_use,
                                     description=description.strip(), amount=_money(amount))
    audit_record(actor=acting_user, action="fund.budget_line_create", obj=line, why=line.description,
                 data=_line_data(line))
    return line


@transaction.atomic
def budget_line_update(*, line: BudgetLine, category: str, allowed_use: str, description: str, amount: Decimal,
                       acting_user) -> BudgetLine:
    _check_line(category, allowed_use)
    line = BudgetLine.objects.select_for_update().select_related("budget").get(pk=line.pk)
    before = _line_data(line)
    line.category, line.allowed_use, line.description, line.amount = (category, allowed_use, description.strip(),
                                                                      _money(amount))
    line.save()
    audit_record(actor=acting_user, action="fund.budget_line_update", obj=line, why=line.description,
                 data={"before": before, "after": _line_data(line)})
    return line


@transaction.atomic
def budget_line_delete(*, line: BudgetLine, acting_user) -> None:
    line = BudgetLine.objects.select_for_update().select_related("budget").get(pk=line.pk)
    data = _line_data(line)
    audit_record(actor=acting_user, action="fund.budget_line_delete", object_type="fund.budgetline",
                 object_id=str(line.pk), why=line.description, data={"before": data})
    line.delete()


def _check_revenue(kind: str) -> None:
    if kind not in RevenueKind.values:
        raise FundError(f"kind: {kind!r} is not one of {', '.join(RevenueKind.values)}")


@transaction.atomic
def other_revenue_create(*, fiscal_year: int, kind: str, source: str, amount: Decimal, dated: date,
                         received: bool = False, notes: str = "", acting_user) -> OtherRevenue:
    """Record a grant, low-interest loan, appropriation or other revenue of the account (establishment ¶)."""
    _check_revenue(kind)
    budget = _budget_for_update(fiscal_year, acting_user)
    rev = OtherRevenue.objects.create(budget=budget, kind=kind, source=source.strip(), amount=_money(amount),
                                      dated=dated, received=received, notes=notes)
    audit_record(actor=acting_user, action="fund.other_revenue_create", obj=rev, why=rev.source,
                 data=_revenue_data(rev))
    return rev


@transaction.atomic
def other_revenue_update(*, revenue: OtherRevenue, kind: str, source: str, amount: Decimal, dated: date,
                         received: bool = False, notes: str = "", acting_user) -> OtherRevenue:
    _check_revenue(kind)
    rev = OtherRevenue.objects.select_for_update().select_related("budget").get(pk=revenue.pk)
    before = _revenue_data(rev)
    rev.kind, rev.source, rev.amount, rev.dated, rev.received, rev.notes = (
        kind, source.strip(), _money(amount), dated, received, notes)
    rev.save()
    audit_record(actor=acting_user, action="fund.other_revenue_update", obj=rev, why=rev.source,
                 data={"before": before, "after": _revenue_data(rev)})
    return rev


@transaction.atomic
def other_revenue_delete(*, revenue: OtherRevenue, acting_user) -> None:
    rev = OtherRevenue.objects.select_for_update().select_related("budget").get(pk=revenue.pk)
    audit_record(actor=acting_user, action="fund.other_revenue_delete", object_type="fund.otherrevenue",
                 object_id=str(rev.pk), why=rev.source, data={"before": _revenue_data(rev)})
    rev.delete()


@dataclass(frozen=True)
class Adoption:
    label: str
    adopted_on: date
    effective_from: date
    installments: int
    interest_rate_percent: Decimal
    demand_charge: Decimal
    rate_per_eru: Decimal | None = None  # None: the solved rate; else at least the solved rate
    notes: str = ""


@transaction.atomic
def rate_model_adopt(*, model_inputs, adoption: Adoption, acting_user):
    """Adopt the modelled rate as a Select Board rate resolution (Ch. 295 Art. IV budget/rates ¶C, ¶D).

    The model is solved again here from ``model_inputs`` (a ``selectors.RateModelInputs``), so what is
    adopted is what the budget and the parcel base of today require, not a number posted by a form.
    A rate may be set higher than the solved rate (e.g. rounded to a whole dollar), never lower.
    """
    from stormwater.utility.services import resolution_adopt

    from .selectors import rate_model_run

    run = rate_model_run(inputs=model_inputs)
    sol = run.solution
    rate = sol.rate_per_eru if adoption.rate_per_eru is None else round_cents(Decimal(adoption.rate_per_eru))
    if rate < sol.rate_per_eru:
        raise FundError(ERR_RATE_BELOW.format(rate=fmt(rate), solved=fmt(sol.rate_per_eru)))
    from stormwater.rules.rate_model import flat_rate_for

    flat = flat_rate_for(rate, sol.flat_ratio)
    terms = run.terms
    note = (f"Rate model for FY{model_inputs.fiscal_year}: budget ${fmt_display(sol.budget)} − other revenue "
            f"${fmt_display(sol.other_revenue)} − reserve use ${fmt_display(sol.reserve_use)} = "
            f"${fmt_display(sol.need)} to raise from fees; collection {fmt_ratio(sol.collection_rate_percent)}%, "
            f"credits {fmt_ratio(sol.credit_allowance_percent)}%, flat ratio {fmt_ratio(sol.flat_ratio)}; parcel base "
            f"as of {model_inputs.base_as_of}; solved ${fmt(sol.rate_per_eru)} per ERU; adopted ${fmt(rate)}, "
            f"flat ${fmt(flat)}. ERU size {terms.eru_sqft:,.0f} ft² and blocks carried from: {run.terms_source}.")
    res = resolution_adopt(
        label=adoption.label, adopted_on=adoption.adopted_on, effective_from=adoption.effective_from,
        eru_sqft=terms.eru_sqft, rate_per_eru=rate, small_residential_rate=flat,
        installments=adoption.installments, interest_rate_percent=adoption.interest_rate_percent,
        demand_charge=adoption.demand_charge,
        blocks=[(b.first_eru, b.last_eru, b.coefficient) for b in terms.blocks],
        notes=(adoption.notes + "\n" if adoption.notes else "") + note, acting_user=acting_user)
    audit_record(actor=acting_user, action="fund.rate_adopt", obj=res, why=note,
                 data={"fiscal_year": model_inputs.fiscal_year, "solution": sol.as_json() | {"revenue": None},
                       "rate_per_eru": fmt(rate), "small_residential_rate": fmt(flat)})
    return res
