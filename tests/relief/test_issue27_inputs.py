"""Issue 27: ``"statement": {…}`` (or a list, a number) in a credit or abatement application was
``'dict' object has no attribute 'strip'``, a 500. The API now answers 400 naming the field; nothing is filed."""
from __future__ import annotations

import pytest

from stormwater.cases.models import Case

from .test_web_api import paid  # noqa: F401  (the fixture: a paid house bill)


@pytest.mark.parametrize("statement", [{"a": 1}, ["Rain garden."], 12, True])
def test_a_credit_application_refuses_a_statement_that_is_not_text(client_for, personas, town, policy, statement):
    cases = Case.objects.count()
    r = client_for(personas["owner"]).post("/api/relief/credits", {"parcel_id": "01-01-1", "credit": "BMP",
                                                                    "statement": statement},
                                           content_type="application/json")
    assert r.status_code == 400 and r.json()["error"].startswith("statement:")
    assert Case.objects.count() == cases


@pytest.mark.parametrize("statement", [{"a": 1}, ["x"]])
def test_an_abatement_application_refuses_a_statement_that_is_not_text(client_for, personas, paid, statement):
    cases = Case.objects.count()
    r = client_for(personas["owner"]).post("/api/relief/abatements", {
        "bill": paid.number, "grounds": ["area"], "statement": statement, "amount": "1"},
        content_type="application/json")
    assert r.status_code == 400 and r.json()["error"].startswith("statement:")
    assert Case.objects.count() == cases


@pytest.mark.parametrize("why", [{"a": 1}, ["x"]])
def test_a_relief_act_refuses_a_field_that_is_not_a_form_value(client_for, personas, town, policy, why):
    o = client_for(personas["owner"])
    n = o.post("/api/relief/credits", {"parcel_id": "01-01-1", "credit": "BMP", "statement": "Rain garden."},
               content_type="application/json").json()["number"]
    r = o.post(f"/api/relief/{n}/withdraw", {"why": why}, content_type="application/json")
    assert r.status_code == 400 and r.json()["error"].startswith("why:")
    assert Case.objects.get(number=n).status == "filed"
