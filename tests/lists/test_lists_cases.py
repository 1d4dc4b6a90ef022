"""Case lists (permits, relief, construction, stewardship): search, status, the running clock's due date as a
filter and a sort over every matching row, an applicant's own files only, exports, constant queries."""
from __future__ import annotations

import csv
import io
from datetime import date

import pytest
import time_machine

from stormwater.cases.services import clock_extend, clock_meet


def csv_rows(resp):
    assert resp.status_code == 200
    return list(csv.reader(io.StringIO(b"".join(resp.streaming_content).decode())))


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def test_permits_by_clock_due_overdue_and_sorted(client_for, personas, town, make_permits):
    a, b, c = make_permits(3)
    clock_extend(case=b.case, kind="action", days=30, reason="applicant agreed", acting_user=None)
    clock_meet(clock=c.case.clocks.get(), on=date(2026, 3, 20), reason="decided", acting_user=None)
    staff = client_for(personas["staff"])
    with time_machine.travel(date(2026, 4, 20), tick=False):  # a's 42 days (Apr 13) have passed; b's have not
        overdue = csv_rows(staff.get("/permits/?clock=overdue&export=csv"))
        assert [r[0] for r in overdue[1:]] == [a.case.number]
        none = csv_rows(staff.get("/permits/?clock=none&export=csv"))
        assert [r[0] for r in none[1:]] == [c.case.number]
        by_due = csv_rows(staff.get("/permits/?sort=clock_due&clock=running&export=csv"))
        assert [r[0] for r in by_due[1:]] == [a.case.number, b.case.number]
        html = staff.get("/permits/?clock=overdue").content.decode()
        assert "1 permit application matches the filters" in html and "overdue" in html


def test_an_applicant_sees_only_their_files_on_the_list(client_for, personas, town, make_permits):
    mine = make_permits(2)
    theirs = make_permits(2, start=10, owner_user=personas["outsider"])
    rows = csv_rows(client_for(personas["owner"]).get("/permits/?export=csv"))
    assert {r[0] for r in rows[1:]} == {p.case.number for p in mine}
    html = client_for(personas["owner"]).get(f"/permits/?q={theirs[0].case.number}").content.decode()
    assert "0 permit applications match the filters" in html


def test_permit_list_reads_the_same_queries_at_10_and_200(client_for, personas, town, make_permits, same_queries):
    make_permits(10)
    c = client_for(personas["staff"])
    same_queries(c, ["/permits/?per_page=200", "/permits/?per_page=200&clock=running&sort=-clock_due&q=Birch"],
                 lambda: make_permits(190, start=10))
