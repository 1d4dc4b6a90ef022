"""Deficient or missing items become one information request on the permit file in one step
(§ 380-10 E), and are cleared when the applicant's response is recorded."""
from __future__ import annotations

from datetime import date

import pytest

from stormwater.cases.services import TransitionError
from stormwater.permits import services as sv
from stormwater.permits.models import InformationRequest
from stormwater.workbench import selectors
from stormwater.workbench import services as wb
from stormwater.workbench.models import RaisedItem

from .conftest import pdf_text

pytestmark = pytest.mark.django_db

A = "380-12 A(3)(c)[6]"
B = "380-12 A(3)(g)[9]"


@pytest.fixture
def two_deficient(reviewing, personas, at):
    at(date(2026, 3, 9))
    wb.item_findings_record(application=reviewing, acting_user=personas["staff"], findings=[
        {"para": A, "finding": "deficient", "comment": "no groundwater elevation at infiltration basin 2"},
        {"para": B, "finding": "not_provided"},
        {"para": "380-12 A(3)(a)", "finding": "provided"}])
    return reviewing


def test_two_items_become_one_request_listing_each_with_its_paragraph(two_deficient, personas, at):
    app = two_deficient
    req = wb.items_raise_information_request(application=app, paras=[A, B], acting_user=personas["staff"])
    assert InformationRequest.objects.filter(application=app).count() == 1
    assert req.items.splitlines() == [
        "§ 380-12 A(3)(c)[6] — Estimated seasonal high groundwater elevation (November to April) in areas to be used "
        "for stormwater retention, detention, or infiltration; — no groundwater elevation at infiltration basin 2",
        "§ 380-12 A(3)(g)[9] — Culvert capacities; — not provided"]
    app.case.refresh_from_db()
    assert app.case.status == "info_requested"
    letter = pdf_text(req.document.file.read())
    assert "§ 380-12 A(3)(c)[6]" in letter and "§ 380-12 A(3)(g)[9]" in letter and "§ 380-10 E" in letter
    assert set(RaisedItem.objects.values_list("para", flat=True)) == {A, B}
    st = selectors.item_states(app)
    assert st[A].state == st[B].state == selectors.REQUESTED
    g = selectors.workbench_for(app)["glance"]
    assert (g.open_deficiencies, g.requested, g.requests_outstanding) == (0, 2, 1)
    assert g.clock.due is None  # the 42 days stand still while the information is outstanding (§ 380-10 I(2))


def test_the_applicants_response_clears_them(two_deficient, personas, at):
    app = two_deficient
    wb.items_raise_information_request(application=app, paras=[A, B], acting_user=personas["staff"])
    at(date(2026, 3, 16))
    sv.permit_information_received(application=app, response="Sheets C-3A and D-2 attached",
                                   acting_user=personas["owner"])
    st = selectors.item_states(app)
    assert st[A].state == st[B].state == selectors.CLEARED
    assert st[A].label == "Cleared by the response of Mar 16, 2026"
    g = selectors.workbench_for(app)["glance"]
    assert (g.open_deficiencies, g.requested, g.requests_outstanding) == (0, 0, 0)
    # The reviewer may still find the answer wanting: a new finding opens the item again.
    wb.item_finding_record(application=app, para=A, finding="deficient", comment="C-3A shows April only",
                           acting_user=personas["staff"])
    assert selectors.item_states(app)[A].state == "deficient"


def test_only_deficient_or_missing_items_awaiting_a_request_are_raised(two_deficient, personas):
    for paras in (["380-12 A(3)(a)"], ["380-12 A(3)(b)"], []):
        with pytest.raises(ValueError):
            wb.items_raise_information_request(application=two_deficient, paras=paras, acting_user=personas["staff"])
    wb.items_raise_information_request(application=two_deficient, paras=[A], acting_user=personas["staff"])
    with pytest.raises(ValueError):  # already requested
        wb.items_raise_information_request(application=two_deficient, paras=[A], acting_user=personas["staff"])
    with pytest.raises(TransitionError):  # one request at a time: the file is waiting on the applicant
        wb.items_raise_information_request(application=two_deficient, paras=[B], acting_user=personas["staff"])
    assert RaisedItem.objects.count() == 1
