"""What every JSON endpoint shares (web/jsonapi.py): the body, typed fields whose errors name the
field, and refusals answered as JSON with the right status."""
from __future__ import annotations

import json
from datetime import date
from decimal import Decimal

import pytest
from django.core.exceptions import PermissionDenied
from django.http import Http404, JsonResponse
from django.test import RequestFactory

from stormwater.web.jsonapi import (BadInput, api_errors, date_field, decimal_field, int_field, json_object,
                                    only_fields, text_field)


def post(body: bytes):
    return RequestFactory().post("/x", data=body, content_type="application/json")


@pytest.mark.parametrize("body, message", [
    (b"{not json", "input: not valid JSON"),
    (b"[1, 2]", "input: expected one JSON object"),
    (b"\xff", "input: not valid JSON"),
])
def test_a_body_that_is_not_one_object_is_refused(body, message):
    with pytest.raises(BadInput, match=message):
        json_object(post(body))


def test_an_empty_body_is_an_empty_object():
    assert json_object(post(b"")) == {}


def test_fields_are_typed_and_errors_name_them():
    b = {"on": "2026-12-02", "n": "7", "amount": "12.50", "note": "x", "flag": True, "blank": ""}
    assert date_field(b, "on") == date(2026, 12, 2)
    assert date_field(b, "missing", None) is None and date_field(b, "blank", date(2027, 1, 1)) == date(2027, 1, 1)
    assert int_field(b, "n") == 7 and int_field(b, "missing", 3) == 3
    assert decimal_field(b, "amount") == Decimal("12.50") and decimal_field(b, "missing") is None
    assert text_field(b, "note") == "x" and text_field(b, "missing") == ""
    for call, message in [(lambda: date_field(b, "missing"), "missing: required (YYYY-MM-DD)"),
                          (lambda: date_field({"on": "12/2/2026"}, "on"), "on: '12/2/2026' is not a date"),
                          (lambda: int_field(b, "flag"), "flag: True is not a whole number"),
                          (lambda: int_field({"n": "1.5"}, "n"), "n: '1.5' is not a whole number"),
                          (lambda: int_field(b, "missing"), "missing: required, a whole number"),
                          (lambda: decimal_field({"a": "NaN"}, "a"), "a: 'NaN' is not a finite number"),
                          (lambda: decimal_field({"a": "ten"}, "a"), "a: 'ten' is not a number"),
                          (lambda: decimal_field(b, "missing", required=True), "missing: required"),
                          (lambda: text_field({"t": 5}, "t"), "t: must be text"),
                          (lambda: text_field(b, "blank", required=True), "blank: required"),
                          (lambda: only_fields(b, {"on"}), "unknown fields: amount, blank, flag, n, note")]:
        with pytest.raises(BadInput) as e:
            call()
        assert str(e.value).startswith(message)


class Refused(Exception):
    pass


class WithRows(ValueError):
    def json_detail(self):
        return {"rows": ["line 2: bad"]}


@pytest.mark.parametrize("exc, status, body", [
    (BadInput("amount: required"), 400, {"error": "amount: required"}),
    (Refused("not now"), 400, {"error": "not now"}),
    (WithRows("file refused"), 400, {"error": "file refused", "rows": ["line 2: bad"]}),
    (PermissionDenied("not yours"), 403, {"error": "not yours"}),
    (Http404(), 404, {"error": "not found"}),
])
def test_refusals_become_json_with_their_status(exc, status, body):
    @api_errors(Refused)
    def view(request):
        raise exc

    r = view(post(b"{}"))
    assert r.status_code == status and json.loads(r.content) == body


def test_other_errors_are_not_swallowed():
    @api_errors()
    def view(request):
        raise KeyError("a bug")

    with pytest.raises(KeyError):
        view(post(b"{}"))
    assert isinstance(api_errors()(lambda r: JsonResponse({}))(post(b"{}")), JsonResponse)
