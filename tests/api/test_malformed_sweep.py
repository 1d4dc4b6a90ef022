"""Issue 15, the hand-written malformed-input sweep: every URL under /api/ and every staff form post gets
malformed bodies, fields and parameters — NaN, infinities, 30+-digit numbers, wrong types, impossible dates,
deep nesting — and answers 4xx (never 500). Field names come from the OpenAPI document for the API and from
each form view's own source for the pages, so a new field is swept without editing this file."""
from __future__ import annotations

import inspect
import json
import re
from datetime import date

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from stormwater.api.openapi import openapi_document

pytestmark = pytest.mark.django_db

BAD_JSON_VALUES = [None, [], {}, "NaN", True, 10**20, -(10**20), "9" * 40, 1e308, "2026-02-30", "x" * 2000, -1]
BAD_BODIES = [b"NaN", b'{"a": -Infinity}', b"[" * 50 + b"]" * 50, b"9" * 5000, b"[]", b'"text"', b"{bad",
              b"\xff\xfe", b"null"]
BAD_FORM_VALUES = ["NaN", "9" * 40, "2026-02-30", "-1e999999"]
BAD_QUERY_VALUES = ["NaN", "0", "-1", "9" * 40, "2026-02-30", "[]"]


@pytest.fixture
def world(town, resolution, personas, filed):
    from stormwater.utility.models import Bill
    from stormwater.utility.services import bill_run_issue, fiscal_year

    label, start, end = fiscal_year(2027)
    bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2026, 9, 15),
                   acting_user=None)
    return {"parcel_id": "01-01-1", "number": filed.case.number, "bill": Bill.objects.first().number}


def _fill(path: str, world: dict) -> str:
    """A documented or routed path with its parameters set to records that exist (else 1)."""
    values = {"parcel_id": world["parcel_id"], "number": world["number"], "key": "swmp", "action": "withdraw"}
    if path.startswith("/api/bills/"):
        values["number"] = world["bill"]
    return re.sub(r"\{(\w+)\}|<(?:\w+:)?(\w+)>", lambda m: values.get(m[1] or m[2], "1"), path)


class Sweep:
    """Collects every 5xx (so one run lists every crash site, not only the first)."""

    def __init__(self):
        self.failures = []

    def __call__(self, r, what):
        if r.status_code >= 500:
            self.failures.append((what, r.status_code))

    def done(self):
        assert self.failures == [], "\n".join(repr(f)[:300] for f in self.failures[:60])


def test_every_api_operation_refuses_malformed_bodies_fields_and_parameters(client_for, personas, world):
    c = client_for(personas["director"])
    c.raise_request_exception = False  # a crash is a 500 to count, not an exception that stops the sweep
    _check = Sweep()
    for path, ops in openapi_document()["paths"].items():
        url = _fill(path, world)
        for method, op in ops.items():
            for p in op.get("parameters", ()):
                if p["in"] == "query":
                    for v in BAD_QUERY_VALUES:
                        _check(getattr(c, method)(f"{url}?{p['name']}={v}"), (method, url, p["name"], v))
            if method != "post":
                continue
            for body in BAD_BODIES:
                _check(c.post(url, body, content_type="application/json"), (url, body[:20]))
            schema = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {})
            for name in schema.get("properties", {}):
                for v in BAD_JSON_VALUES:
                    r = c.post(url, json.dumps({name: v}), content_type="application/json")
                    _check(r, (url, name, v))
                    if r.status_code == 400:
                        assert "error" in r.json(), (url, name, v)
    _check.done()


def _form_posts():
    """(route, view function) of every page view that reads posted fields, found in its own source."""
    def walk(patterns, prefix=""):
        for p in patterns:
            if isinstance(p, URLResolver):
                yield from walk(p.url_patterns, prefix + str(p.pattern))
            elif isinstance(p, URLPattern):
                yield prefix + str(p.pattern), p.callback
    for route, cb in walk(get_resolver().url_patterns):
        if route.startswith(("api/", "^api/")) or route.startswith("^"):
            continue
        fn = inspect.unwrap(cb)
        try:
            src = inspect.getsource(fn)
        except (OSError, TypeError):
            continue
        names = set(re.findall(r"""(?:POST|\bf|\bp|data)(?:\.get\(|\[)["'](\w+)["']""", src))
        if names and "POST" in src or "request.POST" in src:
            yield route, sorted(names)


def test_every_staff_form_refuses_malformed_values(client_for, personas, world):
    c = client_for(personas["director"])
    c.raise_request_exception = False  # a crash is a 500 to count, not an exception that stops the sweep
    _check = Sweep()
    posts = list(_form_posts())
    assert len(posts) > 50  # the sweep found the forms (a regression in the finder must not pass silently)
    for route, names in posts:
        url = "/" + _fill(route, world)
        for v in BAD_FORM_VALUES:
            _check(c.post(url, {n: v for n in names}), (url, v))
            for n in names:
                _check(c.post(url, {n: v}), (url, n, v))
    _check.done()
