"""Case lists (permits, relief, construction, stewardship): search, status, the running clock's due date as a
filter and a sort over every matching row, an applicant's own files only, exports, constant queries."""
from __future__ import annotations

import csv
import io
from datetime import date

import pytest

from stormwater.cases.services import clock_extend, clock_meet


def csv_rows(resp):
    assert resp.status_code == 200
    return list(csv.reader(io.StringIO(b"".join(resp.streaming_content).decode())))


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def test_permits_by_clock_due_overdue_and_sorted(client_for, personas, town, make_permits, at):
    a, b, c = make_permits(3)
    clock_extend(case=b.case, kind="action", days=30, reason="applicant agreed", acting_user=None)
    clock_meet(clock=c.case.clocks.get(), on=date(2026, 3, 20), reason="decided", acting_user=None)
    staff = client_for(personas["staff"])
    at(date(2026, 4, 20))  # a's 42 days (Apr 13) have passed; b's have not
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


@pytest.fixture
def make_relief(db, personas):
    """make_relief(n, applicant=owner) → n credit cases, each with a 30-day decision clock from Mar 2, 2026."""
    from stormwater.cases.services import case_open, clock_start
    from stormwater.relief import workflow as wf

    def _make(n, applicant=None):
        out = []
        for i in range(n):
            case = case_open(kind=wf.CREDIT, title=f"Credit for rain garden {i}", acting_user=None,
                             applicant=applicant or personas["owner"], year=2026)
            clock_start(case=case, kind=wf.CREDIT_DECISION, label="Director decides", citation="credits ¶D",
                        start=date(2026, 3, 2 + i % 20), length=30, acting_user=None)
            out.append(case)
        return out
    return _make


def test_relief_cases_list_clock_filter_and_the_owner_sees_only_theirs(client_for, personas, make_relief, at):
    mine = make_relief(3)
    theirs = make_relief(2, applicant=personas["outsider"])
    staff = client_for(personas["staff"])
    at(date(2026, 4, 2))  # Mar 2 + 30 = Apr 1 has passed; Mar 3 + 30 = Apr 2 is today
    overdue = csv_rows(staff.get("/relief/?clock=overdue&export=csv"))
    assert {r[0] for r in overdue[1:]} == {mine[0].number, theirs[0].number}
    today = csv_rows(staff.get("/relief/?clock=today&export=csv"))
    assert {r[0] for r in today[1:]} == {mine[1].number, theirs[1].number}
    html = staff.get("/relief/").content.decode()
    assert "Work queue" in html and "5 cases" in html
    owner = client_for(personas["owner"])
    rows = csv_rows(owner.get("/relief/?export=csv"))
    assert {r[0] for r in rows[1:]} == {c.number for c in mine}
    assert theirs[0].number not in owner.get("/relief/").content.decode()


def test_relief_list_reads_the_same_queries_at_10_and_200(client_for, personas, make_relief, same_queries):
    make_relief(10)
    same_queries(client_for(personas["owner"]), ["/relief/?per_page=200", "/relief/?clock=running&sort=clock_due"],
                 lambda: make_relief(190))
    make_relief(10, applicant=personas["outsider"])
    same_queries(client_for(personas["staff"]), ["/relief/?per_page=200&q=rain"],
                 lambda: make_relief(190, applicant=personas["outsider"]))


def test_construction_files_by_next_inspection(client_for, personas, town, make_projects, at):
    from datetime import datetime
    from zoneinfo import ZoneInfo

    late, = make_projects(1)
    soon, = make_projects(1, start=5, inspected=datetime(2026, 4, 18, 10, tzinfo=ZoneInfo("America/New_York")))
    at(date(2026, 4, 21))  # 7 days after Apr 13 has passed; 7 days after Apr 18 has not
    staff = client_for(personas["inspector"])
    rows = csv_rows(staff.get("/construction/?inspection=overdue&export=csv"))
    assert [r[0] for r in rows[1:]] == [late.case.number]
    rows = csv_rows(staff.get("/construction/?inspection=scheduled&sort=inspection_due&export=csv"))
    assert [r[0] for r in rows[1:]] == [late.case.number, soon.case.number]
    html = staff.get("/construction/").content.decode()
    assert "2 construction files" in html and "overdue" in html
    assert late.case.number not in client_for(personas["outsider"]).get("/construction/").content.decode()


def test_construction_list_reads_the_same_queries_at_10_and_200(client_for, personas, town, make_projects,
                                                                 same_queries, at):
    at(date(2026, 5, 1))
    make_projects(10)
    same_queries(client_for(personas["inspector"]), ["/construction/?per_page=200",
                                                     "/construction/?inspection=overdue&sort=-inspection_due"],
                 lambda: make_projects(190, start=10))
