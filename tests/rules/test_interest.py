"""Interest (Ch. 295 Art. IV billing ¶C): 12 % a year from the day after due; due date rolled (MGL c.4 §9)."""
from datetime import date
from decimal import Decimal as D

import pytest

from stormwater.rules.interest import accrued_interest, interest_days, simple_interest


def test_no_interest_through_the_due_date_then_from_the_day_after():
    assert simple_interest(unpaid_principal=D("1000"), due_date=date(2026, 10, 15), as_of=date(2026, 10, 15)) == (
        D("0.00"), 0)
    assert simple_interest(unpaid_principal=D("1000"), due_date=date(2026, 10, 15), as_of=date(2026, 10, 16)) == (
        D("0.33"), 1)  # 1000 × 0.12 / 365 = 0.3288
    assert simple_interest(unpaid_principal=D("1000"), due_date=date(2026, 10, 15), as_of=date(2027, 10, 15)) == (
        D("120.00"), 365)


def test_a_due_date_on_a_weekend_before_a_holiday_rolls_forward():
    # Sat Oct 10, 2026 → Tue Oct 13 (Columbus Day Mon Oct 12): interest from Oct 14.
    assert interest_days(date(2026, 10, 10), date(2026, 10, 13)) == 0
    assert interest_days(date(2026, 10, 10), date(2026, 10, 14)) == 1


def test_accrual_follows_the_principal_down_as_it_is_paid():
    # 1,000 unpaid for 10 days, then 400 paid: 600 for 20 more days.
    amount = accrued_interest(principal=D(1000), reductions=[(date(2026, 10, 26), D(400))],
                              due_date=date(2026, 10, 15), as_of=date(2026, 11, 14), rate_percent=D(12))
    assert amount == D("7.23")  # (1000×10 + 600×20) × 0.12 / 365 = 7.2329
    # A payment before interest starts just lowers the base.
    assert accrued_interest(principal=D(1000), reductions=[(date(2026, 10, 1), D(1000))],
                            due_date=date(2026, 10, 15), as_of=date(2027, 1, 1), rate_percent=D(12)) == D("0.00")


def test_negative_principal_is_refused():
    with pytest.raises(ValueError, match="unpaid_principal"):
        simple_interest(unpaid_principal=D(-1), due_date=date(2026, 1, 1), as_of=date(2026, 2, 1))
