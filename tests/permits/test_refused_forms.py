"""Issue 16 "Forms" (done when: "a refused staff form keeps every typed value and marks the field"): each of the
permit file's hand-written forms, refused (a date that is not one, an amount that is not one, a required text left
blank, a rule of Ch. 380 the values break), answers with the file page again (400): nothing recorded, every value
as it was typed, the refused input marked and described, the summary linking to it (``web.postdata.refused``)."""
from datetime import date
from decimal import Decimal as D

import pytest

from refusedforms import assert_refused
from stormwater.cases.models import CaseEvent
from stormwater.permits import services as sv
from stormwater.permits.models import AccountEntry

from .test_pages import advance


def _open_waiver(app, p):
    sv.waiver_request(application=app, requirement="Paper copies", justification="PDF only", acting_user=p["owner"])
    w = app.waivers.get()
    sv.waiver_public_comment(waiver=w, from_on=date(2026, 3, 9), note="posted", acting_user=p["director"])
    return {"waiver": w.case.number}


def _abutters(app, p):
    sv.abutters_set(application=app, text="Ann Abbot\n2 Elm St", certified_on=date(2026, 3, 1),
                    acting_user=p["owner"])


# name: (state, who, url tail, posted, refused input, setup)
CASES = {
    "fees_paid": ("draft", "staff", "fees-paid", {"paid_on": "2026-02-30", "receipt": "R-17"}, "paid_on", None),
    "incomplete": ("filed", "staff", "incomplete", {"cure_by": "2026-03-01", "note": "Test pits"}, "cure_by", None),
    "extend": ("filed", "staff", "extend", {"days": "0", "reason": "agreed with the applicant"}, "days", None),
    "info_request": ("under_review", "staff", "info-request", {"items": "  "}, "items", None),
    "consultant_select": ("under_review", "director", "consultant",
                          {"name": "Pat Doe", "firm": "Doe Eng", "degree": "", "years_of_practice": "1",
                           "services": "Drainage review", "fee": "900", "notice_on": "2026-03-02", "username": ""},
                          "degree", None),
    "consultant_appeal": ("consultant_fee_due", "clerk", "consultant/appeal",
                          {"received_on": "2026-12-31", "ground": "conflict", "statement": "The firm works for us"},
                          "received_on", None),
    "appeal_decide": ("consultant_appeal", "clerk", "consultant/appeal/decide",
                      {"decided_on": "03/09/2026", "outcome": "disqualified", "note": "Board vote 3-0"},
                      "decided_on", None),
    "start_record": ("approved_conditions", "owner", "start", {"started_on": "yesterday"}, "started_on", None),
    "start_extend": ("approved_conditions", "director", "start/extend", {"days": "ten", "reason": "Winter"},
                     "days", None),
    "abutters": ("draft", "owner", "abutters", {"certified_on": "2026-03-01", "abutters": "  "}, "abutters", None),
    "abutters_mailed": ("draft", "owner", "abutters/mailed", {"mailed_on": "2026-3-xx"}, "mailed_on", _abutters),
    "account_entry": ("under_review", "collector", "account",
                      {"kind": "deposit", "amount": "NaN", "on": "2026-03-02", "reference": "R-1", "payee": "",
                       "successor": "1"}, "amount", None),
    "additional_fee": ("approved_conditions", "director", "consultant/additional-fee",
                       {"amount": "0", "reason": "More test pits to review"}, "amount", None),
    "expenditure": ("approved_conditions", "director", "account/expenditure",
                    {"amount": "99999", "payee": "Pat", "memo": "Invoice 7"}, "amount", None),
    "waiver_act": ("under_review", "director", "waivers/{waiver}/act",
                   {"action": "grant", "note": "Allowed", "a1": "1"}, "a1", _open_waiver),
    "waiver_request": ("under_review", "owner", "waivers",
                       {"requirement": "Paper copies", "justification": " "}, "justification", None),
    "party_link": ("filed", "owner", "people", {"who": "nobody-here", "role": "contractor"}, "who", None),
}


def _recorded(app):
    return (CaseEvent.objects.count(), AccountEntry.objects.count(), app.abutters.count(), app.waivers.count(),
            app.case.parties.count(), app.case.documents.count())


@pytest.mark.parametrize("name", CASES)
def test_refused_form_keeps_every_value_and_marks_the_field(name, draft, personas, at, client_for):
    state, who, tail, posted, refused, setup = CASES[name]
    advance(draft, personas, at, state)
    extra = setup(draft, personas) if setup else None
    number = draft.case.number
    url = f"/permits/{number}/{tail.format(**(extra or {}))}/"
    before = _recorded(draft)
    r = client_for(personas[who]).post(url, posted)
    assert_refused(r, url, posted, refused)
    draft.refresh_from_db()
    assert _recorded(draft) == before  # nothing recorded
    assert draft.fees_paid_on is None or name != "fees_paid"


def test_upload_without_a_file_keeps_the_title_and_says_at_the_file_input(draft, personas, at, client_for):
    at(date(2026, 3, 2))
    url = f"/permits/{draft.case.number}/upload/"
    posted = {"tag": "info_response", "title": "Revised drainage report"}
    n = draft.case.documents.count()
    r = client_for(personas["owner"]).post(url, posted)
    assert_refused(r, url, posted, "file")
    assert "Choose a file to upload." in r.content.decode() and draft.case.documents.count() == n


def test_an_upload_refused_for_its_file_asks_for_it_again(draft, personas, at, client_for):
    from django.core.files.uploadedfile import SimpleUploadedFile
    at(date(2026, 3, 2))
    url = f"/permits/{draft.case.number}/upload/"
    r = client_for(personas["owner"]).post(url, {"tag": "info_response", "title": "Notes",
                                                  "file": SimpleUploadedFile("notes.exe", b"MZ\x90\x00binary")})
    assert_refused(r, url, {"tag": "info_response", "title": "Notes"}, "file")
    assert "Choose the file again." in r.content.decode()


def test_a_rule_hearing_with_too_little_notice_is_refused_at_the_notice_date(personas, client_for, db):
    from stormwater.permits.models import RuleHearing
    url = "/permits/rule-hearings/"
    posted = {"title": "Amend the fee schedule", "summary": "New technical review fees.", "newspaper": "The Reminder",
              "advertised_on": "2026-04-28", "hearing_at": "2026-05-01T19:00", "location": "Town Hall"}
    r = client_for(personas["director"]).post(url, posted)
    assert_refused(r, url, posted, "advertised_on")
    assert not RuleHearing.objects.exists()


def test_a_segmentation_finding_that_is_neither_choice_is_refused_at_it(draft, personas, at, client_for):
    advance(draft, personas, at, "filed")
    type(draft).objects.filter(pk=draft.pk).update(segmentation_flagged=True)
    url = f"/permits/{draft.case.number}/segmentation/"
    posted = {"finding": "both", "reason": "Same owner, lots 3 and 4, one road"}
    r = client_for(personas["director"]).post(url, posted)
    assert_refused(r, url, posted, "finding", skip=("finding",))  # no such option to choose again
    draft.refresh_from_db()
    assert draft.segmentation_finding == ""
