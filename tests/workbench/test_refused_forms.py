"""Issue 16 "Forms" (done when: "a refused staff form keeps every typed value and marks the field"): the workbench's
hand-written forms (an item's finding, its waiver, raising items, the decision) and the pre-application meeting's
(its record, the LID checklist), refused, answer with their page again (400): nothing recorded, every value as
typed, the refused input marked and described, the summary linking to it (``web.postdata.refused``)."""
from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest

from refusedforms import assert_refused
from stormwater.cases.models import CaseEvent
from stormwater.permits.models import InformationRequest, Waiver
from stormwater.workbench import catalog
from stormwater.workbench import services as wb
from stormwater.workbench.models import ItemFinding, LidChecklistAnswer

pytestmark = pytest.mark.django_db
ET = ZoneInfo("America/New_York")
A = "380-12 A(3)(c)[6]"
KEY = next(e.key for e in catalog.BY_KEY.values() if e.is_item and e.para == A)


def _recorded():
    return (CaseEvent.objects.count(), ItemFinding.objects.count(), InformationRequest.objects.count(),
            Waiver.objects.count(), LidChecklistAnswer.objects.count())


def test_a_finding_refused_keeps_every_value_and_marks_the_field(reviewing, personas, at, client_for):
    at(date(2026, 3, 9))
    url = f"/permits/{reviewing.case.number}/workbench/items/{KEY}/record/"
    posted = {f"f-{A}": "deficient", f"doc-{A}": "", f"page-{A}": "C-3", f"comment-{A}": "",
              f"reason-{A}": "", f"condition-{A}": "Test pits before the basin is built"}
    before = _recorded()
    r = client_for(personas["staff"]).post(url, posted)
    assert_refused(r, url, posted, f"comment-{A}")
    assert _recorded() == before


def test_raising_no_item_marks_the_choice(reviewing, personas, at, client_for):
    at(date(2026, 3, 9))
    wb.item_findings_record(application=reviewing, acting_user=personas["staff"],
                            findings=[{"para": A, "finding": "not_provided"}])
    url = f"/permits/{reviewing.case.number}/workbench/raise/"
    before = _recorded()
    r = client_for(personas["staff"]).post(url, {})
    assert_refused(r, url, {}, "item")
    assert _recorded() == before


def test_a_waiver_without_its_explanation_is_refused_at_it(reviewing, personas, at, client_for):
    url = f"/permits/{reviewing.case.number}/workbench/waiver/"
    before = _recorded()
    r = client_for(personas["owner"]).post(url, {"key": KEY, "justification": "  "})
    assert_refused(r, url, {"key": KEY, "justification": "  "}, "justification", hidden={"key": KEY})
    assert _recorded() == before


def test_the_decision_refused_comes_back_bound(reviewing, personas, at, client_for):
    url = f"/permits/{reviewing.case.number}/workbench/decide/"
    posted = {"kind": "approve_conditions", "findings": "", "standards": ["380-12"],
              "conditions": "Silt fence at the toe of slope", "order_of_conditions": "DEP 123-456"}
    before = _recorded()
    r = client_for(personas["director"]).post(url, posted)
    assert_refused(r, url, posted, "findings", skip=("standards",))
    assert _recorded() == before


@pytest.fixture
def meeting(personas):
    return wb.meeting_schedule(applicant_name="Olivia Owner", site_address="1 Elm St", acting_user=personas["staff"],
                               scheduled_at=datetime(2026, 2, 3, 10, tzinfo=ET))


def test_a_meeting_record_naming_no_file_keeps_the_notes(meeting, personas, client_for):
    url = f"/pre-application/{meeting.pk}/record/"
    posted = {"state": "held", "notes": "Keep the wooded swale; test pits first.", "case": "SWP-2099-0001"}
    r = client_for(personas["staff"]).post(url, posted)
    assert_refused(r, url, posted, "case")
    meeting.refresh_from_db()
    assert meeting.notes == "" and meeting.case is None


def test_the_lid_checklist_refused_keeps_the_answers(meeting, personas, client_for):
    lid = catalog.LID_DESIGN_CHECKLIST
    url = f"/pre-application/{meeting.pk}/lid/"
    posted = {f"a-{lid[0].key}": "incorporated", f"n-{lid[0].key}": "Rain gardens at each lot",
              f"a-{lid[4].key}": "not_feasible", f"n-{lid[4].key}": ""}
    before = _recorded()
    r = client_for(personas["staff"]).post(url, posted)
    assert_refused(r, url, posted, f"n-{lid[4].key}")
    assert _recorded() == before


def test_a_new_meeting_refused_keeps_what_was_typed(personas, client_for):
    from stormwater.workbench.models import PreApplicationMeeting
    url = "/pre-application/new/"
    posted = {"applicant_name": "Olivia Owner", "applicant_email": "olivia@", "applicant_username": "",
              "site_address": "1 Elm St", "concept": "Eight lots and a road", "scheduled_at": "2026-02-03T10:00",
              "location": "DPW, 170 Dwight Road"}
    r = client_for(personas["staff"]).post(url, posted)
    assert_refused(r, url, posted, "applicant_email")
    assert not PreApplicationMeeting.objects.exists()
