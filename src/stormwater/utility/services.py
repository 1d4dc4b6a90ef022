"""State changes of the utility: rate resolutions here; the bill run in ``utility.billrun`` (proof → approve →
issue → void), re-exported so callers keep importing from ``utility.services``. Each atomic, each audited."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

from django.db import transaction

from stormwater.audit.services import actor_or_none, audit_record
from stormwater.rules.fees import Block, FeeTerms, validate_terms

from .billrun import (DUE_DAYS, ERR_PERIOD, BillingError, BillRunResult, bill_run_approve,
                      bill_run_discard, bill_run_issue, bill_run_mark_mailed, bill_run_prepare,
                      bill_run_prepare_later, bill_run_start, bill_run_void, fiscal_year, installment_schedule)
from .models import RateResolution, ResolutionBlock

# Re-exported: callers (views, API, CLI, other apps, tests) import the bill run from here.
__all__ = ["DUE_DAYS", "ERR_PERIOD", "BillingError", "BillRunResult", "bill_run_approve", "bill_run_discard",
           "bill_run_issue", "bill_run_mark_mailed", "bill_run_prepare", "bill_run_prepare_later", "bill_run_start",
           "bill_run_void", "fiscal_year", "installment_schedule", "resolution_adopt"]


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
