"""Issue 30: a storm deadline across the daylight-saving change is printed with its zone (EST/EDT), in one form on
the construction file's page and the inspector's field pages, with a note when 24 elapsed hours (CGP 2022 Part
4.2(b), 4.3.1) moved the deadline's wall-clock time away from the storm end's."""
from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal as D
from zoneinfo import ZoneInfo

from stormwater.construction import services as cs
from stormwater.rules.inspections import Storm, next_inspection_due

from .conftest import dt, report

E = ZoneInfo("America/New_York")
NOTE = "24 elapsed hours: the clocks changed (EST to EDT), so the deadline reads 12:00 AM, not 11:00 PM"


def test_the_due_carries_the_zone_and_a_note_when_the_clock_time_moved():
    d = next_inspection_due(frequency="14day_storm", last_inspection_at=datetime(2026, 3, 2, 10, tzinfo=E),
                            storms=[Storm(datetime(2026, 3, 7, 23, tzinfo=E), rain_in=0.5)])
    assert d.due_at == datetime(2026, 3, 9, 0, tzinfo=E)
    assert "ending 2026-03-07 23:00 EST" in d.reason and NOTE in d.note
    same = next_inspection_due(frequency="14day_storm", last_inspection_at=datetime(2026, 7, 1, 10, tzinfo=E),
                               storms=[Storm(datetime(2026, 7, 5, 18, tzinfo=E), rain_in=0.5)])
    assert same.note == ""


def test_file_page_and_field_pages_print_the_deadline_and_the_storm_end_alike(project, personas, at, client_for):
    at(date(2027, 3, 8), 11)
    cs.inspection_report_file(project=project, report=report("erosion_pre_start", dt(2027, 3, 8, 10)),
                              acting_user=personas["inspector"])
    at(date(2027, 3, 14), 8)
    cs.rain_event_record(project=project, ended_at=dt(2027, 3, 13, 23), rain_in=D("0.40"), source="gauge",
                         acting_user=personas["staff"])
    c = client_for(personas["inspector"])
    deadline, ended = "Mon, Mar 15, 2027, 12:00 AM EDT", "Mar 13, 2027, 11:00 PM EST"
    note = "24 elapsed hours: the clocks changed (EST to EDT), so the deadline reads 12:00 AM, not 11:00 PM"
    for url in (f"/construction/{project.case.number}/", "/field/today/", "/field/week/"):
        page = " ".join(c.get(url).content.decode().split())
        assert deadline in page, url
        assert f"ending {ended}" in page, url
        assert note in page, url
        assert "2027-03-13" not in page, url
