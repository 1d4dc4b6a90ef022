"""The shared calendar: MGL c.4 §9 roll-forward with Massachusetts holidays from the holidays library."""
from datetime import date

from stormwater.rules.calendar import (add_business_days, add_calendar_days, add_months, holiday_name,
                                       is_business_day, roll_forward)


def test_massachusetts_holidays_include_patriots_day_and_columbus_day():
    assert "Patriots" in holiday_name(date(2027, 4, 19))
    assert holiday_name(date(2026, 10, 12)) is not None
    assert not is_business_day(date(2026, 12, 25)) and is_business_day(date(2026, 12, 2))


def test_a_last_day_on_a_weekend_before_a_holiday_rolls_to_the_next_business_day():
    assert roll_forward(date(2026, 10, 10)) == date(2026, 10, 13)  # Sat → (Sun, Columbus Day) → Tue
    assert roll_forward(date(2026, 10, 14)) == date(2026, 10, 14)


def test_thirty_calendar_days_then_roll():
    assert add_calendar_days(date(2026, 9, 10), 30) == date(2026, 10, 13)  # Oct 10 is a Saturday
    assert add_calendar_days(date(2026, 9, 15), 30) == date(2026, 10, 15)
    assert add_calendar_days(date(2026, 9, 10), 30, roll=False) == date(2026, 10, 10)


def test_business_days_skip_weekends_and_holidays():
    assert add_business_days(date(2026, 11, 25), 2) == date(2026, 11, 30)  # Thanksgiving Thu 26th


def test_add_months_clamps_to_month_end():
    assert add_months(date(2026, 8, 31), 6) == date(2027, 2, 28)
    assert add_months(date(2026, 9, 15), 3) == date(2026, 12, 15)


def test_a_no_later_than_date_on_a_weekend_or_holiday_rolls_back_to_the_previous_business_day():
    from stormwater.rules.calendar import roll_back

    assert roll_back(date(2026, 10, 12)) == date(2026, 10, 9)   # Columbus Day Mon → Fri (past the weekend)
    assert roll_back(date(2026, 10, 11)) == date(2026, 10, 9)   # Sun → Fri
    assert roll_back(date(2026, 10, 13)) == date(2026, 10, 13)  # a business day stays
    assert roll_back(date(2027, 1, 1)) == date(2026, 12, 31)    # New Year's Day → the year before
