"""Issue 18, wrong today: the routine CGP schedule after a storm inspection, the pending storm shown beside it,
local times, the 24-hour storm window across both daylight-saving weekends, and the report form keeping
"First inspection" after a refusal.

EPA CGP 2022 Part 4.2(b): "once every 14 calendar days AND within 24 hours of the occurrence of" a 0.25 in storm —
two obligations; meeting the storm one does not move the routine one."""
from datetime import date, datetime, timedelta, timezone as dt_timezone
from decimal import Decimal as D
from zoneinfo import ZoneInfo

import pytest

from stormwater.construction import selectors
from stormwater.construction import services as cs
from stormwater.rules.inspections import Storm, inspections_due, next_inspection_due, storm_deadline

from .conftest import dt, report

E = ZoneInfo("America/New_York")
UTC = dt_timezone.utc


@pytest.fixture
def july(project, personas, at):
    """14-day + storm option: routine inspection 07-01 10:00; 0.30 in of rain in the 24 h ending 07-05 18:00."""
    at(date(2026, 7, 1), 11)
    cs.inspection_report_file(project=project, report=report("erosion_pre_start", dt(2026, 7, 1, 10)),
                              acting_user=personas["inspector"])
    at(date(2026, 7, 5), 19)
    storm = cs.rain_event_record(project=project, ended_at=dt(2026, 7, 5, 18), rain_in=D("0.30"), source="DPW gauge",
                                 acting_user=personas["staff"])
    return project, storm


def test_the_storm_inspection_does_not_move_the_routine_schedule(july, personas, at):
    project, storm = july
    at(date(2026, 7, 6), 11)
    cs.inspection_report_file(project=project, report=report(
        "erosion_storm", dt(2026, 7, 6, 10), last_inspection=date(2026, 7, 1), precipitation_24h_in=D("0.30"),
        storm_id=storm.pk), acting_user=personas["inspector"])
    due = selectors.next_due(project)
    assert due.due_on == date(2026, 7, 15), due          # 14 days from 07-01, not from the storm inspection (07-20)
    assert due.storm is None and "4.2(b)" in due.citation


def test_while_the_storm_inspection_is_pending_the_routine_date_is_shown_too(july, client_for, personas, at):
    project, _ = july
    at(date(2026, 7, 5), 20)
    dues = selectors.dues(project)
    assert [d.kind for d in dues] == ["storm", "routine"]
    assert dues[0].due_at == datetime(2026, 7, 6, 18, tzinfo=E) and dues[1].due_on == date(2026, 7, 15)
    page = client_for(personas["inspector"]).get(f"/construction/{project.case.number}/").content.decode()
    assert "Mon, Jul 6, 2026, 6:00 PM" in page and "Wed, Jul 15, 2026" in page


def test_the_storm_time_prints_in_local_time(july, client_for, personas, at):
    project, _ = july
    at(date(2026, 7, 5), 20)
    due = selectors.next_due(project)
    assert "ending 2026-07-05 18:00" in due.reason      # EDT, as recorded — not 22:00 (UTC)
    assert due.due_at.utcoffset() == timedelta(hours=-4)
    page = client_for(personas["inspector"]).get(f"/construction/{project.case.number}/").content.decode()
    # issue 30: in words with its zone, as the field pages print it (the reason's ISO is for the API and the CLI)
    assert "ending Jul 5, 2026, 6:00 PM EDT" in page and "Jul 5, 2026, 10:00 PM" not in page
    j = client_for(personas["inspector"]).get(f"/api/construction/{project.case.number}/").json()
    assert j["next_inspection"]["due_at"] == "2026-07-06T18:00:00-04:00"
    assert [d["due_at"] for d in j["inspections_due"]] == ["2026-07-06T18:00:00-04:00", "2026-07-15T23:59:59-04:00"]
    assert j["inspections"][0]["at"] == "2026-07-01T10:00:00-04:00"


# --- the 24-hour window across daylight-saving time: 24 elapsed hours (CGP 2022 Part 4.2 "within 24 hours") ------

def test_spring_forward_the_window_is_24_elapsed_hours():
    """2026-03-08 02:00 EST → 03:00 EDT. A storm ending Sat 10:00 EST is inspected by Sun 11:00 EDT (24 h later;
    the wall clock shows 11:00 because an hour was skipped), not Sun 10:00 EDT (only 23 hours)."""
    ended = datetime(2026, 3, 7, 10, tzinfo=E)
    assert storm_deadline(ended) == datetime(2026, 3, 8, 11, tzinfo=E)
    assert storm_deadline(ended) - ended == timedelta(hours=24) or \
        (storm_deadline(ended).astimezone(UTC) - ended.astimezone(UTC)) == timedelta(hours=24)
    d = next_inspection_due(frequency="14day_storm", last_inspection_at=datetime(2026, 3, 2, 10, tzinfo=E),
                            storms=[Storm(ended, rain_in=0.5)])
    assert d.due_at == datetime(2026, 3, 8, 11, tzinfo=E) and d.due_at.utcoffset() == timedelta(hours=-4)
    assert "24 elapsed hours" in d.citation


def test_fall_back_the_window_is_24_elapsed_hours():
    """2026-11-01 02:00 EDT → 01:00 EST. A storm ending Sat 10:00 EDT is inspected by Sun 09:00 EST (24 h later),
    not Sun 10:00 EST (25 hours)."""
    ended = datetime(2026, 10, 31, 10, tzinfo=E)
    assert storm_deadline(ended) == datetime(2026, 11, 1, 9, tzinfo=E)
    assert storm_deadline(ended).astimezone(UTC) - ended.astimezone(UTC) == timedelta(hours=24)
    d = next_inspection_due(frequency="14day_storm", last_inspection_at=datetime(2026, 10, 26, 10, tzinfo=E),
                            storms=[Storm(ended, rain_in=0.5)])
    assert d.due_at == datetime(2026, 11, 1, 9, tzinfo=E) and d.due_at.utcoffset() == timedelta(hours=-5)


def test_the_same_deadline_whatever_zone_the_storm_is_given_in():
    ended = datetime(2026, 3, 7, 15, tzinfo=UTC)  # 10:00 EST
    last = datetime(2026, 3, 2, 10, tzinfo=E)
    d = next_inspection_due(frequency="14day_storm", last_inspection_at=last, storms=[Storm(ended, rain_in=0.5)])
    assert d.due_at == datetime(2026, 3, 8, 11, tzinfo=E) and d.due_at.tzinfo == E
    assert "ending 2026-03-07 10:00" in d.reason


def test_a_naive_storm_time_is_refused():
    with pytest.raises(ValueError):
        storm_deadline(datetime(2026, 3, 7, 10))


def test_dst_through_the_database(project, personas, at):
    """Stored in UTC, read back and shown in local time: the same deadlines through the selector. (DST began
    2027-03-14; the permit was issued 2026-04-10, and no inspection may be dated before it: issue 30.)"""
    at(date(2027, 3, 8), 11)
    cs.inspection_report_file(project=project, report=report("erosion_pre_start", dt(2027, 3, 8, 10)),
                              acting_user=personas["inspector"])
    at(date(2027, 3, 13), 12)  # rainfall is recorded after it fell (issue 18)
    cs.rain_event_record(project=project, ended_at=dt(2027, 3, 13, 10), rain_in=D("0.40"), source="gauge",
                         acting_user=personas["staff"])
    d = selectors.next_due(project)
    assert d.due_at == datetime(2027, 3, 14, 11, tzinfo=E) and "ending 2027-03-13 10:00" in d.reason


# --- which inspection satisfies what ------------------------------------------------------------------------------

def test_a_routine_inspection_after_the_storm_covers_it_and_restarts_the_routine_count():
    last = datetime(2026, 7, 1, 10, tzinfo=E)
    s = Storm(datetime(2026, 7, 5, 18, tzinfo=E), rain_in=0.3)
    # pending: storm by 07-06 18:00 and routine 07-15
    dues = inspections_due(frequency="14day_storm", last_routine_at=last, storms=[s])
    assert [(d.kind, d.due_at.date()) for d in dues] == [("storm", date(2026, 7, 6)), ("routine", date(2026, 7, 15))]
    # a routine inspection on 07-06 covers the storm too, and the next routine one is 14 days after it
    routine2 = datetime(2026, 7, 6, 9, tzinfo=E)
    dues = inspections_due(frequency="14day_storm", last_routine_at=routine2, storms=[s])
    assert [(d.kind, d.due_at.date()) for d in dues] == [("routine", date(2026, 7, 20))]
    # a storm inspection on 07-06 covers the storm only
    dues = inspections_due(frequency="14day_storm", last_routine_at=last, last_inspection_at=routine2, storms=[s])
    assert [(d.kind, d.due_at.date()) for d in dues] == [("routine", date(2026, 7, 15))]
    # a second storm after the storm inspection is owed again
    s2 = Storm(datetime(2026, 7, 9, 6, tzinfo=E), rain_in=1.1)
    dues = inspections_due(frequency="14day_storm", last_routine_at=last, last_inspection_at=routine2, storms=[s, s2])
    assert [(d.kind, d.due_at) for d in dues] == [("storm", datetime(2026, 7, 10, 6, tzinfo=E)),
                                                  ("routine", datetime(2026, 7, 15, 23, 59, 59, tzinfo=E))]


def test_the_report_form_keeps_first_inspection_after_a_refusal(project, client_for, personas, at):
    at(date(2026, 4, 21), 11)
    c = client_for(personas["inspector"])
    r = c.post(f"/construction/{project.case.number}/report/", {
        "kind": "erosion_pre_start", "inspected_at": "2026-04-21T10:00", "location": "whole site",
        "inspector_name": "Ivy Inspector", "inspector_credentials": "CPESC #1234", "first_inspection": "on",
        "weather": "", "precipitation_24h_in": "0", "evaluation": "compliant"})
    html = r.content.decode()
    assert r.status_code == 400 and "[e] weather at time of inspection" in html
    import re
    box = re.search(r'<input[^>]*name="first_inspection"[^>]*>', html).group(0)
    assert "checked" in box
