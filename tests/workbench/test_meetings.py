"""The pre-application meeting (§ 380-10 A): scheduling, attendees (other boards invited), notes, the
Town's LID design checklist filled in with the applicant, and the link to the permit file."""
from __future__ import annotations

import re
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from stormwater.workbench import catalog, selectors
from stormwater.workbench import services as wb
from stormwater.workbench.models import LidChecklistAnswer

pytestmark = pytest.mark.django_db
ET = ZoneInfo("America/New_York")


def test_a_meeting_through_the_web(client_for, personas, reviewing):
    c = client_for(personas["staff"])
    r = c.post("/pre-application/new/", {"applicant_name": "Olivia Owner", "applicant_username": "owner",
                                         "site_address": "1 Elm St", "concept": "Eight lots, one new road",
                                         "scheduled_at": "2026-02-03T10:00", "location": "DPW"})
    m = selectors.meetings_for_user(personas["staff"]).get()
    assert r.url == f"/pre-application/{m.pk}/" and m.applicant == personas["owner"]
    c.post(f"/pre-application/{m.pk}/attendees/", {"name": "Pat Planner", "organization": "Planning Board",
                                                   "invited_board": "on"})
    c.post(f"/pre-application/{m.pk}/attendees/", {"name": "Eve Engineer", "organization": "applicant's engineer"})
    lid = catalog.LID_DESIGN_CHECKLIST
    r = c.post(f"/pre-application/{m.pk}/lid/", {f"a-{lid[0].key}": "incorporated",
                                                 f"a-{lid[4].key}": "not_feasible"})
    assert r.status_code == 400 and "not feasible" in r.content.decode()  # a reason and mitigation are needed
    assert not LidChecklistAnswer.objects.exists()
    c.post(f"/pre-application/{m.pk}/lid/", {f"a-{lid[0].key}": "incorporated", f"a-{lid[4].key}": "not_feasible",
                                             f"n-{lid[4].key}": "road grade set by the subdivision rules; "
                                                                "clearing limited to the ROW"})
    c.post(f"/pre-application/{m.pk}/record/", {"state": "held", "notes": "Keep the wooded swale; test pits first.",
                                                "case": reviewing.case.number})
    m.refresh_from_db()
    assert m.state == "held" and m.case == reviewing.case and "wooded swale" in m.notes
    assert [(a.name, a.invited_board) for a in m.attendees.all()] == [("Pat Planner", True), ("Eve Engineer", False)]
    answers = dict((e.para, a) for e, a in selectors.lid_answers(m))
    assert answers[lid[0].para].answer == "incorporated" and answers[lid[4].para].answer == "not_feasible"
    assert answers[lid[1].para] is None
    assert reviewing.case.events.filter(kind="pre_application").exists()
    page = client_for(personas["owner"]).get(f"/pre-application/{m.pk}/").content.decode()
    assert "Pat Planner" in page and "Planning Board" in page and "§ 380-11 B(4)(b)[5]" in page


def test_answers_keep_their_history_and_a_cancelled_meeting_takes_none(personas):
    m = wb.meeting_schedule(applicant_name="A", site_address="2 Oak St", acting_user=personas["staff"],
                            scheduled_at=datetime(2026, 2, 3, 10, tzinfo=ET))
    p = catalog.LID_DESIGN_CHECKLIST[2].para
    wb.lid_answers_record(meeting=m, answers=[{"para": p, "answer": "partly"}], acting_user=personas["staff"])
    wb.lid_answers_record(meeting=m, answers=[{"para": p, "answer": "incorporated"}], acting_user=personas["staff"])
    assert LidChecklistAnswer.objects.filter(meeting=m, para=p).count() == 2
    assert dict((e.para, a) for e, a in selectors.lid_answers(m))[p].answer == "incorporated"
    with pytest.raises(ValueError):
        wb.lid_answers_record(meeting=m, answers=[{"para": "380-12 A(3)(a)", "answer": "partly"}],
                              acting_user=personas["staff"])
    wb.meeting_record(meeting=m, state="cancelled", acting_user=personas["staff"])
    with pytest.raises(ValueError):
        wb.lid_answers_record(meeting=m, answers=[{"para": p, "answer": "partly"}], acting_user=personas["staff"])


def test_an_attendee_without_a_name_is_refused_keeping_what_was_typed(client_for, personas, reviewing):
    """Issue 16 "Forms": the attendee form used to answer with a flash at the top and empty boxes."""
    c = client_for(personas["staff"])
    c.post("/pre-application/new/", {"applicant_name": "Olivia Owner", "site_address": "1 Elm St",
                                     "concept": "Eight lots", "scheduled_at": "2026-02-03T10:00", "location": "DPW"})
    m = selectors.meetings_for_user(personas["staff"]).get()
    r = c.post(f"/pre-application/{m.pk}/attendees/", {"name": " ", "organization": "Conservation Commission",
                                                       "invited_board": "on"})
    html = r.content.decode()
    assert r.status_code == 400 and not m.attendees.exists()
    assert 'class="error-summary"' in html and 'href="#id_attendee-name"' in html
    assert "Enter the attendee&#x27;s name." in html and 'value="Conservation Commission"' in html
    assert 'name="invited_board" id="id_attendee-invited_board" checked' in html


def test_a_refused_meeting_comes_back_with_what_was_typed_and_the_error_at_the_time(client_for, personas, reviewing):
    """Issue 16 "Forms": a time that is not one was a redirect with a message at the top and the form blank."""
    c = client_for(personas["staff"])
    r = c.post("/pre-application/new/", {"applicant_name": "Olivia Owner", "site_address": "1 Elm St",
                                         "concept": "Eight lots", "scheduled_at": "31/02/2026", "location": "DPW"})
    assert r.status_code == 400 and not selectors.meetings_for_user(personas["staff"]).exists()
    page = r.content.decode()
    assert 'value="Olivia Owner"' in page and 'value="1 Elm St"' in page and re.search(r">\s*Eight lots</textarea>", page)
    assert 'aria-invalid="true"' in page and 'id="id_scheduled_at_error"' in page and 'href="#id_scheduled_at"' in page
