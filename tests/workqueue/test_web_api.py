"""The work queue at the edge: the home of each role, /work-queue/, GET /api/work-queue/ (session and API token),
and the iCalendar feed (a secret, revocable link; parsed back with the icalendar library)."""
from __future__ import annotations

from datetime import date, datetime

import pytest
from django.utils.html import escape
from icalendar import Calendar

from stormwater.workqueue.models import CalendarFeed
from stormwater.workqueue.selectors import work_queue_for_user

from .conftest import EASTERN


@pytest.fixture
def busy(today, personas, make_relief, make_permits, make_construction, make_stewardship):
    make_relief(1), make_permits(1), make_construction(1), make_stewardship(1)


ROLES = ("director", "staff", "collector", "assessor", "clerk", "inspector", "consultant", "owner")


@pytest.mark.parametrize("role", ROLES)
def test_home_shows_the_roles_items_in_due_order(client_for, personas, busy, role):
    user = personas[role]
    r = client_for(user).get("/")
    assert r.status_code == 200
    html = r.content.decode()
    items = work_queue_for_user(user=user).items
    shown = [i for i in items if (user.is_staff_role or i.party != "town")][:25]
    pos = [html.find(escape(i.action)) for i in shown]
    assert all(p >= 0 for p in pos), [i.action for i, p in zip(shown, pos) if p < 0]
    if user.is_staff_role:
        assert pos == sorted(pos)  # the page keeps the queue's order: overdue first, then by due date
    assert "No parcels are linked" not in html


def test_home_of_the_inspector_is_todays_inspections(client_for, personas, busy):
    html = client_for(personas["inspector"]).get("/").content.decode()
    assert "<h1>Today's inspections</h1>" in html
    today_part = html[html.index('id="today"'):html.index('id="queue"')]
    assert "Storm inspection of the erosion controls" in today_part and "Overdue" in today_part
    assert "Final inspection" not in today_part  # Nov 18: later this week, not today
    assert "Inspections due this week, by day" in html and "<svg" in html and "<title>" in html


def test_home_of_the_consultant_shows_the_files_they_are_a_party_to(client_for, personas, busy):
    html = client_for(personas["consultant"]).get("/").content.decode()
    assert "Final inspection" in html and "Correct the violation" in html  # the design engineer's project
    assert "Next dates on your files" in html  # the permit's 42-day clock: the Town acts


def test_home_of_the_owner_shows_bills_balances_and_next_dates(client_for, personas, today, make_bills, make_relief):
    make_bills(1)
    make_relief(1)
    html = client_for(personas["owner"]).get("/").content.decode()
    assert "Your bills and balances" in html and "Pay installment 1" in html
    assert "Next dates on your files" in html and "Decide the credit application" in html


def test_home_charts_for_the_director(client_for, personas, busy, make_bills):
    make_bills(2)
    html = client_for(personas["director"]).get("/").content.decode()
    for title in ("Collected against billed, FY2027 to date", "Permit files by status",
                  "Inspections due this week, by day"):
        assert title in html
    assert "O&amp;M certifications overdue" in html
    assert html.count("<details><summary>The figures</summary>") == 3  # each chart's text equivalent


def test_work_queue_page_filters_by_source_and_overdue(client_for, personas, busy):
    c = client_for(personas["director"])
    html = c.get("/work-queue/?source=construction").content.decode()
    assert "Storm inspection" in html and "Decide the credit application" not in html
    html = c.get("/work-queue/?overdue=1").content.decode()
    assert "Storm inspection" in html and "Final inspection" not in html
    r = c.get("/work-queue/?source=nope")
    assert r.status_code == 200 and "source: expected one of" in r.content.decode()


def test_api_work_queue_json(client_for, personas, busy, client):
    assert client.get("/api/work-queue/").status_code == 401
    r = client_for(personas["inspector"]).get("/api/work-queue/")
    assert r.status_code == 200
    body = r.json()
    assert body["as_of"] == "2026-11-16" and body["count"] == len(body["items"]) == 4 and body["overdue"] == 1
    first = body["items"][0]
    assert first["kind"] == "construction.inspection.storm" and first["overdue"] is True
    assert first["due_at"].startswith("2026-11-10T10:00") and first["days_left"] == -6
    assert first["act_url"].startswith("/construction/") and first["citation"].startswith("CGP 2022 Part 4.2(b)")
    assert first["perms"] == ["construction.inspect"] and first["record"]["label"].startswith("CC-")
    r = client_for(personas["inspector"]).get("/api/work-queue/?source=nope")
    assert r.status_code == 400 and r.json()["error"].startswith("source:")
    assert client_for(personas["inspector"]).get("/api/work-queue/?source=permits").json()["count"] == 0


def test_api_work_queue_with_a_token(client, personas, busy):
    from stormwater.api.tokens import api_token_issue

    _, secret = api_token_issue(name="Finance system", role="collector", acting_user=personas["director"])
    r = client.get("/api/work-queue/", HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert r.status_code == 200
    assert {i["kind"] for i in r.json()["items"]} == {"permit.consultant_payment"}


def _events(body: bytes):
    cal = Calendar.from_ical(body)
    return [c for c in cal.walk("VEVENT")]


def test_calendar_feed_issue_fetch_reset_revoke(client_for, personas, busy, client):
    owner = personas["owner"]
    c = client_for(owner)
    r = c.post("/work-queue/calendar/", {"action": "issue"})
    html = r.content.decode()
    start = html.index("http://testserver/work-queue/calendar/")
    url = html[start:html.index('"', start)]
    path = url.removeprefix("http://testserver")
    client.logout()
    r = client.get(path)  # no session: the link is the credential
    assert r.status_code == 200 and r["Content-Type"].startswith("text/calendar")
    events = _events(r.content)
    dated = [i for i in work_queue_for_user(user=owner).items if i.due is not None]
    assert len(events) == len(dated) > 0
    uids = {str(e["UID"]) for e in events}
    assert len(uids) == len(events)
    storm = next(e for e in events if "Storm inspection" in str(e["SUMMARY"]))
    assert str(storm["SUMMARY"]).startswith("OVERDUE: ")
    assert storm.decoded("DTSTART") == datetime(2026, 11, 10, 10, tzinfo=EASTERN)  # written in UTC
    allday = next(e for e in events if "Annual O&M certification" in str(e["SUMMARY"]))
    assert allday.decoded("DTSTART") == date(2026, 11, 3) and allday.decoded("DTEND") == date(2026, 11, 4)
    assert str(allday["URL"]).startswith("http://testserver/stewardship/")
    # the same item keeps its UID from one fetch to the next (a calendar moves it rather than adding another)
    assert {str(e["UID"]) for e in _events(client.get(path).content)} == uids
    # a new link stops the old one
    c = client_for(owner)
    c.post("/work-queue/calendar/", {"action": "issue"})
    assert client.get(path).status_code == 404
    assert CalendarFeed.objects.filter(user=owner, revoked_at__isnull=True).count() == 1
    # revoke: nothing works any more; the audit log has each act
    c.post("/work-queue/calendar/", {"action": "revoke"})
    assert not CalendarFeed.objects.filter(user=owner, revoked_at__isnull=True).exists()
    from stormwater.audit.models import AuditEvent

    assert list(AuditEvent.objects.filter(action__startswith="calendar_feed.").values_list("action", flat=True)
                .order_by("id")) == ["calendar_feed.issue", "calendar_feed.issue", "calendar_feed.revoke"]


def test_calendar_feed_of_a_deactivated_account_stops(client_for, personas, client, busy):
    from stormwater.workqueue.services import calendar_feed_issue

    _, secret = calendar_feed_issue(user=personas["inspector"], acting_user=personas["inspector"])
    assert client.get(f"/work-queue/calendar/{secret}.ics").status_code == 200
    personas["inspector"].is_active = False
    personas["inspector"].save()
    assert client.get(f"/work-queue/calendar/{secret}.ics").status_code == 404
    assert client.get("/work-queue/calendar/swcal_guess.ics").status_code == 404
