"""rules.clocks: every clock shape of Ch. 380 with frozen dates (pure, no database)."""
from datetime import date

import pytest

from stormwater.rules.clocks import (Extension, Standing, Toll, Unit, clock_standing, clock_state, days_left,
                                     interval_is_at_least, length_to_date)


def test_42_days_from_filing_on_a_weekday():
    # § 380-10 I(2): final action within 42 days of the date of filing. Filed Mon 2026-03-02 → Mon 04-13.
    s = clock_state(start=date(2026, 3, 2), length=42)
    assert s.due == date(2026, 4, 13) and s.tolled_days == 0 and not s.stopped


def test_a_last_day_on_patriots_day_rolls_to_the_next_business_day():
    # Filed Mon 2027-03-08: 42 days → Mon 2027-04-19, Patriots' Day → Tue 04-20 (MGL c.4 §9).
    s = clock_state(start=date(2027, 3, 8), length=42)
    assert s.unrolled_due == date(2027, 4, 19) and s.due == date(2027, 4, 20)


def test_a_last_day_on_saturday_before_columbus_day_rolls_to_tuesday():
    s = clock_state(start=date(2026, 8, 29), length=42)  # → Sat 2026-10-10, Mon 10-12 Columbus Day
    assert s.unrolled_due == date(2026, 10, 10) and s.due == date(2026, 10, 13)


def test_roll_can_be_turned_off():
    assert clock_state(start=date(2026, 8, 29), length=42, roll=False).due == date(2026, 10, 10)


def test_tolling_while_incomplete_adds_the_stopped_days_including_both_ends():
    # Incomplete on 03-05, items received 03-16: 12 days stopped (both ends count as stopped days).
    s = clock_state(start=date(2026, 3, 2), length=42, tolls=[Toll(date(2026, 3, 5), date(2026, 3, 16), "incomplete")])
    assert s.tolled_days == 12 and s.due == date(2026, 4, 27)  # 04-25 is a Saturday → Mon 04-27


def test_an_open_toll_stops_the_clock_with_the_days_that_remain():
    s = clock_state(start=date(2026, 3, 2), length=42, tolls=[Toll(date(2026, 3, 5), None, "information outstanding")])
    assert s.due is None and s.stopped and s.stopped_since == date(2026, 3, 5) and s.remaining_when_stopped == 40
    assert clock_standing(s, today=date(2026, 6, 1)) is Standing.STOPPED and days_left(s, today=date(2026, 6, 1)) is None


def test_two_tolls_and_an_agreed_extension_each_count():
    s = clock_state(start=date(2026, 3, 2), length=42,
                    tolls=[Toll(date(2026, 3, 5), date(2026, 3, 9)), Toll(date(2026, 3, 20), date(2026, 3, 21))],
                    extensions=[Extension(14, "agreed with the applicant")])
    assert s.tolled_days == 7 and s.extended_by == 14
    assert s.unrolled_due == date(2026, 5, 4) and s.due == date(2026, 5, 4)


def test_overlapping_tolls_do_not_double_count():
    s = clock_state(start=date(2026, 3, 2), length=42,
                    tolls=[Toll(date(2026, 3, 5), date(2026, 3, 10)), Toll(date(2026, 3, 8), date(2026, 3, 12))])
    assert s.tolled_days == 8


def test_a_toll_after_the_due_date_does_not_move_it():
    s = clock_state(start=date(2026, 3, 2), length=5, tolls=[Toll(date(2026, 3, 20), None)])
    assert s.due == date(2026, 3, 9) and not s.stopped


def test_five_day_withdrawal_window_rolls_forward():
    # § 380-10 G(2)(c): no consultant cost if withdrawn within five days of the notice. Notice Wed 11-04-2026
    # → Mon 11-09; notice Fri 2026-11-06 → Wed 11-11 is Veterans Day → Thu 11-12.
    assert clock_state(start=date(2026, 11, 4), length=5).due == date(2026, 11, 9)
    assert clock_state(start=date(2026, 11, 6), length=5).due == date(2026, 11, 12)


def test_ten_business_days_to_pay_skip_thanksgiving():
    # § 380-10 G(2)(d): 10 business days of the request. Request Fri 2026-11-20: 23,24,25,(26 Thanksgiving),27,
    # 30, Dec 1,2,3,4 → Fri 12-04... count: 23,24,25,27,30,1,2,3,4,7 → Mon 12-07.
    s = clock_state(start=date(2026, 11, 20), length=10, unit=Unit.BUSINESS)
    assert s.due == date(2026, 12, 7)


def test_an_appeal_stops_the_payment_countdown_which_resumes_the_first_business_day_after_the_decision():
    # Request Mon 2026-03-02; business days 03,04 count; appeal filed Thu 03-05, decided Fri 03-13.
    # Countdown resumes Mon 03-16 (first business day after): 8 more business days → Wed 03-25.
    s = clock_state(start=date(2026, 3, 2), length=10, unit=Unit.BUSINESS,
                    tolls=[Toll(date(2026, 3, 5), date(2026, 3, 13), "consultant appeal")])
    assert s.due == date(2026, 3, 25) and s.tolled_days == 7
    pending = clock_state(start=date(2026, 3, 2), length=10, unit=Unit.BUSINESS,
                          tolls=[Toll(date(2026, 3, 5), None, "consultant appeal")])
    assert pending.due is None and pending.remaining_when_stopped == 8


def test_the_appeal_extends_the_action_clock_by_its_duration():
    # § 380-10 G(2)(e): time limits extended by the duration of the appeal (9 days: 03-05..03-13).
    base = clock_state(start=date(2026, 3, 2), length=42).due
    s = clock_state(start=date(2026, 3, 2), length=42, tolls=[Toll(date(2026, 3, 5), date(2026, 3, 13))])
    assert s.tolled_days == 9 and (s.unrolled_due - base).days == 9


def test_thirty_day_refund_clock():
    # § 380-10 G(2)(f): balance returned within 30 days. Closed Fri 2026-06-05 → Sun 07-05 → Mon 07-06 (07-03 obs.)
    assert clock_state(start=date(2026, 6, 5), length=30).due == date(2026, 7, 6)


def test_standing_as_of_a_day():
    s = clock_state(start=date(2026, 3, 2), length=42)
    assert clock_standing(s, today=date(2026, 4, 12)) is Standing.RUNNING
    assert clock_standing(s, today=date(2026, 4, 13)) is Standing.DUE_TODAY
    assert clock_standing(s, today=date(2026, 4, 14)) is Standing.OVERDUE
    assert clock_standing(s, today=date(2026, 4, 14), met_on=date(2026, 4, 1)) is Standing.MET
    assert days_left(s, today=date(2026, 4, 10)) == 3
    # A window (a right that lapses, e.g. withdrawal without consultant cost) is never "overdue".
    assert clock_standing(s, today=date(2026, 4, 14), window=True) is Standing.LAPSED


def test_bad_input_is_refused():
    with pytest.raises(ValueError):
        clock_state(start=date(2026, 3, 2), length=-1)
    with pytest.raises(ValueError):
        clock_state(start=date(2026, 3, 2), length=4, tolls=[Toll(date(2026, 3, 5), date(2026, 3, 4))])
    with pytest.raises(ValueError):
        clock_state(start=date(2026, 3, 2), length=4, extensions=[Extension(-5)])
    with pytest.raises(ValueError):
        length_to_date(date(2026, 3, 2), date(2026, 3, 1))


def test_helpers():
    assert length_to_date(date(2026, 3, 2), date(2026, 3, 16)) == 14
    # Rule-making: hearing advertised at least seven days before (§ 380-7).
    assert interval_is_at_least(date(2026, 3, 2), date(2026, 3, 9), 7)
    assert not interval_is_at_least(date(2026, 3, 3), date(2026, 3, 9), 7)
