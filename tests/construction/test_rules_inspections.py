"""rules.inspections (pure): CGP 2022 Part 4 next-due at its edges, stabilization, report fields, permit year."""
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from stormwater.rules.inspections import (Frequency, Frozen, Storm, certification_due, next_inspection_due,
                                          notice_is_timely, permit_year, report_missing_fields, stabilization_due)

E = ZoneInfo("America/New_York")
LAST = datetime(2026, 5, 1, 10, 0, tzinfo=E)  # a Friday


def test_option_a_every_7_days_ignores_storms():
    d = next_inspection_due(frequency=Frequency.EVERY_7_DAYS, last_inspection_at=LAST,
                            storms=[Storm(LAST + timedelta(hours=5), rain_in=2.0)])
    assert d.due_on == date(2026, 5, 8) and d.storm is None and "4.2(a)" in d.citation


def test_option_b_14_days_and_within_24_hours_of_a_quarter_inch():
    assert next_inspection_due(frequency="14day_storm", last_inspection_at=LAST).due_on == date(2026, 5, 15)
    # 0.24 in does not trigger; 0.25 in does, due 24 hours after the storm ends
    assert next_inspection_due(frequency="14day_storm", last_inspection_at=LAST,
                               storms=[Storm(LAST + timedelta(days=3), rain_in=0.24)]).due_on == date(2026, 5, 15)
    s = Storm(datetime(2026, 5, 4, 18, 0, tzinfo=E), rain_in=0.25)
    d = next_inspection_due(frequency="14day_storm", last_inspection_at=LAST, storms=[s])
    assert d.due_at == datetime(2026, 5, 5, 18, 0, tzinfo=E) and d.storm == s


def test_snow_trigger_is_3_25_inches():
    s1 = Storm(LAST + timedelta(days=2), snow_in=3.24)
    s2 = Storm(LAST + timedelta(days=3), snow_in=3.25)
    assert next_inspection_due(frequency="14day_storm", last_inspection_at=LAST, storms=[s1]).storm is None
    assert next_inspection_due(frequency="14day_storm", last_inspection_at=LAST, storms=[s1, s2]).storm == s2


def test_a_storm_before_the_last_inspection_is_already_covered():
    s = Storm(LAST - timedelta(hours=1), rain_in=1.0)
    assert next_inspection_due(frequency="14day_storm", last_inspection_at=LAST, storms=[s]).storm is None


def test_sensitive_waters_force_7_days_and_storms_whatever_was_chosen():
    s = Storm(LAST + timedelta(days=1), rain_in=0.5)
    d = next_inspection_due(frequency=Frequency.EVERY_7_DAYS, last_inspection_at=LAST, sensitive_waters=True, storms=[s])
    assert d.storm == s and "4.3.1" in d.citation
    assert next_inspection_due(frequency="14day_storm", last_inspection_at=LAST, sensitive_waters=True).due_on == \
        date(2026, 5, 8)


def test_stabilized_areas_twice_in_the_first_month_then_monthly():
    d = next_inspection_due(frequency="7day", last_inspection_at=LAST, stabilized_on=date(2026, 4, 20))
    assert d.interval_days == 14 and d.due_on == date(2026, 5, 15)
    later = datetime(2026, 5, 25, 10, tzinfo=E)  # 35 days after stabilization
    assert next_inspection_due(frequency="7day", last_inspection_at=later,
                               stabilized_on=date(2026, 4, 20)).due_on == date(2026, 6, 24)
    # storms no longer trigger for an ordinary stabilized site; a sensitive-water site keeps the trigger
    s = Storm(later + timedelta(days=1), rain_in=1.0)
    assert next_inspection_due(frequency="14day_storm", last_inspection_at=later, stabilized_on=date(2026, 4, 20),
                               storms=[s]).storm is None
    assert next_inspection_due(frequency="14day_storm", last_inspection_at=later, stabilized_on=date(2026, 4, 20),
                               storms=[s], sensitive_waters=True).storm == s


def test_frozen_conditions():
    d = next_inspection_due(frequency="7day", last_inspection_at=LAST, frozen=Frozen.SUSPENDED,
                            storms=[Storm(LAST + timedelta(days=1), rain_in=1.0)])
    assert d.due_at is None and "4.4.3(a)" in d.citation
    assert next_inspection_due(frequency="7day", last_inspection_at=LAST, frozen="continuing").due_on == date(2026, 5, 31)
    assert next_inspection_due(frequency="7day", last_inspection_at=LAST, frozen="suspended",
                               sensitive_waters=True).due_on == date(2026, 5, 31)


def test_negative_rain_is_an_error():
    with pytest.raises(ValueError):
        next_inspection_due(frequency="7day", last_inspection_at=LAST, storms=[Storm(LAST, rain_in=-1)])


def test_stabilization_within_seven_days_not_rolled():
    assert stabilization_due(date(2026, 5, 4)) == date(2026, 5, 11)
    assert stabilization_due(date(2026, 7, 28)) == date(2026, 8, 4)
    assert stabilization_due(date(2026, 5, 2)) == date(2026, 5, 9)  # a Saturday stays a Saturday


def test_24_hour_notice_edges():
    at = datetime(2026, 5, 12, 10, tzinfo=E)
    assert notice_is_timely(noticed_at=at - timedelta(hours=24), inspection_at=at)
    assert not notice_is_timely(noticed_at=at - timedelta(hours=23, minutes=59), inspection_at=at)


@pytest.mark.parametrize("field,label", [
    ("inspected_on", "[a] the inspection date"), ("location", "[a] the location"),
    ("inspector_name", "[b] name of inspector"), ("inspector_credentials", "[b] inspector's credentials"),
    ("kind", "[c] type of inspection"), ("last_inspection", "[d] date of last inspection"),
    ("weather", "[e] weather"), ("precipitation_24h_in", "[f] accumulated precipitation"),
    ("evaluation", "[g] evaluation")])
def test_each_missing_report_field_is_named(field, label):
    full = {"inspected_on": date(2026, 5, 1), "location": "x", "inspector_name": "x", "inspector_credentials": "x",
            "kind": "pre_bury", "last_inspection": "none", "weather": "x", "precipitation_24h_in": 0,
            "evaluation": "compliant"}
    assert report_missing_fields(full) == []
    missing = report_missing_fields({**full, field: "  " if field != "precipitation_24h_in" else None})
    assert len(missing) == 1 and label in missing[0] and missing[0].startswith("§ 380-16 C(4)(f)[1]")


def test_corrective_steps_required_only_with_violations():
    base = {"inspected_on": 1, "location": "x", "inspector_name": "x", "inspector_credentials": "x", "kind": "k",
            "last_inspection": "none", "weather": "x", "precipitation_24h_in": 0}
    assert report_missing_fields({**base, "evaluation": "compliant"}) == []
    assert "[h]" in report_missing_fields({**base, "evaluation": "violations"})[0]


def test_permit_year_and_certification_anniversaries():
    assert permit_year(2027) == (date(2026, 7, 1), date(2027, 6, 30))
    with pytest.raises(ValueError):
        permit_year(1999)
    assert certification_due(date(2024, 2, 29), 1) == date(2025, 2, 28)
    assert certification_due(date(2026, 9, 11), 3) == date(2029, 9, 11)
