"""Money: Decimal to the cent, one rounding mode, one allocation helper.

DESIGN.md "Money": Decimal, never float; splits allocate cents so the parts always sum to the
whole (largest remainder, as django-hordak's money utilities do).
"""
from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Sequence

CENT = Decimal("0.01")
ZERO = Decimal("0.00")


def to_decimal(value: object, *, field: str = "amount") -> Decimal:
    """Parse a number given as str/int/Decimal (floats are accepted via their repr) or raise ValueError."""
    if isinstance(value, bool) or value is None:
        raise ValueError(f"{field}: a number is required")
    if isinstance(value, float):
        value = repr(value)
    try:
        d = Decimal(str(value).strip())
    except (InvalidOperation, ValueError):
        raise ValueError(f"{field}: {value!r} is not a number") from None
    if not d.is_finite():
        raise ValueError(f"{field}: {value!r} is not a finite number")
    return d


def round_cents(amount: Decimal) -> Decimal:
    """Round to the cent, halves away from zero (the one rounding mode used for money)."""
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def fmt(amount: Decimal) -> str:
    """Money as a string with two decimals (the API and CLI convention)."""
    return str(round_cents(amount))


def fmt_display(amount: Decimal) -> str:
    """Money for people: thousands separators, two decimals ("1,913.76")."""
    return f"{round_cents(amount):,.2f}"


def fmt_usd(amount: Decimal) -> str:
    """Money for people, the one form on every page and paper (issue 16): "$1,234.56", "-$12.50", "$0.00"."""
    cents = round_cents(amount)
    return f"-${-cents:,.2f}" if cents < 0 else f"${cents:,.2f}"


def fmt_ratio(value: Decimal) -> str:
    """A coefficient or percent without trailing zeros, at least one decimal ("0.9", "1.0", "8.3333")."""
    q = value.normalize()
    return f"{q:.1f}" if q == q.to_integral_value() else format(q, "f")


def allocate(total: Decimal, weights: Sequence[Decimal]) -> list[Decimal]:
    """Split ``total`` (to the cent) in proportion to ``weights`` so the parts sum exactly to it.

    Largest-remainder method: each part gets the floor of its exact share in cents, and the
    cents left over go one each to the parts with the largest remainders (ties: earlier first).
    Works for negative totals too (the split of a negative amount is the negation of the split of
    the positive amount).
    """
    total = round_cents(total)
    if not weights:
        raise ValueError("allocate: at least one weight is required")
    if any(w < 0 for w in weights):
        raise ValueError("allocate: weights must not be negative")
    wsum = sum(weights, Decimal(0))
    if wsum == 0:
        raise ValueError("allocate: weights must not all be zero")
    sign = -1 if total < 0 else 1
    cents = int(abs(total) / CENT)
    exact = [Decimal(cents) * w / wsum for w in weights]
    floors = [int(e) for e in exact]  # exact >= 0, so int() is the floor
    left = cents - sum(floors)
    order = sorted(range(len(weights)), key=lambda i: (-(exact[i] - floors[i]), i))
    for i in order[:left]:
        floors[i] += 1
    return [sign * Decimal(c) * CENT for c in floors]


def split_equal(total: Decimal, parts: int) -> list[Decimal]:
    """Split ``total`` into ``parts`` installments that sum exactly to it (earlier ones take the extra cents)."""
    if parts < 1:
        raise ValueError("parts must be at least 1")
    return allocate(total, [Decimal(1)] * parts)
