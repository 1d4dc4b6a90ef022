"""Permit fees and the MGL c.44 §53G consultant special account: pure arithmetic.

Ch. 380 § 380-10 G(1): "an application and inspection fee established by the DPW Director … and a
technical review fee sufficient to cover professional review". The text sets no amounts: they are a
fee schedule the Director adopts with an effective date (permits.PermitFeeSchedule); the shipped
values are demo values and are labelled as such wherever shown.
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal

from .applicability import SQFT_PER_ACRE
from .money import ZERO, round_cents


@dataclass(frozen=True)
class FeeTerms:
    application_fee: Decimal              # flat, per application [$]
    inspection_fee_per_acre: Decimal      # per started acre disturbed [$/acre]
    technical_review_fee_per_acre: Decimal  # per started acre disturbed [$/acre]
    minimum_acres: int = 1


@dataclass(frozen=True)
class FeeLine:
    label: str
    amount: Decimal
    citation: str


def billable_acres(disturbance_sqft: Decimal, *, minimum: int = 1) -> int:
    """Acres disturbed, each started acre counted whole, at least ``minimum``."""
    if disturbance_sqft < 0:
        raise ValueError("disturbance must not be negative")
    acres = int((Decimal(disturbance_sqft) / SQFT_PER_ACRE).to_integral_value(rounding=ROUND_CEILING))
    return max(acres, minimum)


def permit_fees(disturbance_sqft: Decimal, terms: FeeTerms) -> list[FeeLine]:
    """The fee lines of an application (§ 380-10 G(1)); the 53G consultant fee is separate."""
    acres = billable_acres(Decimal(disturbance_sqft), minimum=terms.minimum_acres)
    return [
        FeeLine("Application fee", round_cents(terms.application_fee), "§ 380-10 G(1)"),
        FeeLine(f"Inspection fee ({acres} acre{'s' if acres != 1 else ''})",
                round_cents(terms.inspection_fee_per_acre * acres), "§ 380-10 G(1)"),
        FeeLine(f"Technical review fee ({acres} acre{'s' if acres != 1 else ''})",
                round_cents(terms.technical_review_fee_per_acre * acres), "§ 380-10 G(1)"),
    ]


def fees_total(lines: list[FeeLine]) -> Decimal:
    return sum((x.amount for x in lines), ZERO)


# --- the special account (MGL c.44 §53G; § 380-10 G(2)(a), (f)) -----------------------------------

DEPOSIT, INTEREST, EXPENDITURE, REFUND = "deposit", "interest", "expenditure", "refund"
SIGN = {DEPOSIT: 1, INTEREST: 1, EXPENDITURE: -1, REFUND: -1}


def account_balance(entries: list[tuple[str, Decimal]]) -> Decimal:
    """Balance of the project's special account: deposits + interest − expenditures − refunds."""
    total = ZERO
    for kind, amount in entries:
        if kind not in SIGN:
            raise ValueError(f"unknown account entry kind {kind!r}")
        if amount <= 0:
            raise ValueError("account entries are positive amounts; the kind gives the sign")
        total += SIGN[kind] * Decimal(amount)
    return round_cents(total)


def account_summary(entries: list[tuple[str, Decimal]]) -> dict[str, Decimal]:
    out = {k: ZERO for k in SIGN}
    for kind, amount in entries:
        out[kind] += Decimal(amount)
    out["balance"] = account_balance(entries)
    return {k: round_cents(v) for k, v in out.items()}
