"""Issue 27: an amendment's ``signed_by`` taken raw as party ids — "abc" was a ValueError, a 20-digit number an
OverflowError (SQLite), each a 500. Now refused at the field: the site's page again, status 400, nothing recorded."""
from __future__ import annotations

import pytest

from stormwater.cases.models import CaseEvent


@pytest.mark.parametrize("value", ["abc", "99999999999999999999999", "9223372036854775808", "¹", "-1"])
def test_an_amendment_refuses_an_odd_signer_id_at_the_field(client_for, personas, recorded, site, value):
    plan = site.plans.get()
    events = CaseEvent.objects.count()
    r = client_for(personas["staff"]).post(f"/stewardship/{site.case.number}/plan/{plan.pk}/amend/", {
        "description": "Sweep the forebay quarterly", "signed_by": [value], "effective_on": "2026-05-20"})
    assert r.status_code == 400 and "is not one of the records offered" in r.content.decode()
    assert CaseEvent.objects.count() == events


@pytest.mark.parametrize("value", ["abc", "99999999999999999999999"])
def test_an_easement_recording_refuses_an_odd_easement_id(client_for, personas, site, value):
    r = client_for(personas["staff"]).post(f"/stewardship/{site.case.number}/easements/", {
        "action": "record", "easement": value, "book": "25000", "page": "1", "recorded_on": "2026-05-01"})
    assert r.status_code in (302, 400)
    page = r.content.decode() if r.status_code == 400 else client_for(personas["staff"]).get(r.url).content.decode()
    assert "is not one of the records offered" in page
