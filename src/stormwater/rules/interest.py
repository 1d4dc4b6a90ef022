"""Interest on unpaid stormwater charges (Ch. 295 Art. IV, billing and collection ¶C).

"If a Stormwater Enterprise Fund bill is not paid in full by the 30th day from the date the bill is
issued, interest at the rate of 12% per annum shall accrue on any unpaid balance. Interest shall
accrue from the day after the bills are due."

- Simple interest, per day, on a 365-day year (DESIGN.md interpretations), on unpaid principal.
- A due date on a Saturday, Sunday or Massachusetts legal holiday rolls to the next business day
  (MGL c.4 §9), so interest starts the day after the rolled due date.
- Rounded once, to the cent, at the end (half up).
"""
from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal
from typing import Iterable

from .calendar import roll_forward
from .money import ZERO, round_cents

DAYS_IN_YEAR = Decimal(365)


def interest_start(due_date: date) -> date:
    """The first day interest accrues: the day after the (rolled) due date."""
    return roll_forward(due_date) + timedelta(days=1)


def interest_days(due_date: date, as_of: date) -> int:
    """Days of interest through ``as_of`` inclusive (0 until the day after the rolled due date)."""
    return max(0, (as_of - interest_start(due_date)).days + 1)


def simple_interest(*, unpaid_principal: Decimal, due_date: date, as_of: date,
                    rate_percent: Decimal = Decimal(12)) -> tuple[Decimal, int]:
    """Interest on a constant unpaid principal from the day after due through ``as_of``: (amount, days)."""
    if unpaid_principal < 0:
        raise ValueError("unpaid_principal: must not be negative")
    if rate_percent < 0:
        raise ValueError("rate_percent: must not be negative")
    days = interest_days(due_date, as_of)
    return round_cents(unpaid_principal * rate_percent / 100 * days / DAYS_IN_YEAR), days


def accrued_interest(*, principal: Decimal, reductions: Iterable[tuple[date, Decimal]], due_date: date,
                     as_of: date, rate_percent: Decimal) -> Decimal:
    """Interest through ``as_of`` on a principal reduced over time (payments, abatements, lien transfer).

    ``reductions``: (effective date, amount) — the principal is lower from that day on (a payment
    received on day D stops interest on what it paid from day D). Piecewise simple interest, summed
    exactly and rounded once to the cent. Deterministic: the same ledger gives the same amount as of
    any date.
    """
    start = interest_start(due_date)
    if as_of < start:
        return ZERO
    events = sorted((d, a) for d, a in reductions if d <= as_of)
    total = Decimal(0)
    balance = principal
    cursor = start
    for day, amount in events:
        if day > cursor:
            total += max(balance, ZERO) * (day - cursor).days
            cursor = day
        balance -= amount
    total += max(balance, ZERO) * ((as_of - cursor).days + 1)
    return round_cents(total * rate_percent / 100 / DAYS_IN_YEAR)
