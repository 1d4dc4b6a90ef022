"""Issue 15 "The API contract": the malformed requests that answered 500 (measured: 139 HTTP 500s from 20
crash sites) answer 400 with the field named; the CLI calculators refuse them with exit 2 and {"error": …}."""
from __future__ import annotations

import io
import json
from decimal import Decimal

import pytest

from stormwater.web.postdata import money_value

pytestmark = pytest.mark.django_db

CALCULATORS = ["fee", "split", "interest", "deadline", "runoff", "retention", "noaa-plus", "peak", "bmp"]
DIGITS_5000 = b"1" * 5000
NESTED = b"[" * 100_000 + b"]" * 100_000


def post(client, url, body: bytes | dict, *, status=400):
    data = body if isinstance(body, bytes) else json.dumps(body)
    r = client.post(url, data, content_type="application/json")
    assert r.status_code == status, (url, r.status_code, r.content[:300])
    return r.json()


def test_a_deadline_clock_given_as_a_list_is_refused_by_name(client):
    assert post(client, "/api/calc/deadline", {"clock": [], "start": "2026-09-15"})["error"].startswith("clock:")


@pytest.mark.parametrize("name", CALCULATORS)
@pytest.mark.parametrize("body, field", [
    (DIGITS_5000, "input"),                                    # past Python's int conversion limit
    (b'{"amount": ' + DIGITS_5000 + b"}", "amount"),           # the same inside a field
    (NESTED, "input"),                                         # past the recursion limit
    (b'{"x": ' + b"[" * 5000 + b"]" * 5000 + b"}", "input"),
    (b'{"amount": NaN}', "amount"), (b'{"amount": -Infinity}', "amount"), (b'{"amount": 1e999}', "amount"),
])
def test_every_calculator_refuses_huge_numbers_deep_nesting_and_non_finite_numbers(client, name, body, field):
    assert post(client, f"/api/calc/{name}", body)["error"].startswith(field + ":")


def test_a_body_over_the_size_cap_is_refused(client):
    body = b'{"property_class": "exempt", "pad": "' + b"x" * (2 * 1024 * 1024) + b'"}'
    assert post(client, "/api/calc/fee", body)["error"].startswith("input:")


def test_a_bill_run_for_minus_infinity_is_refused_by_name(client_for, personas):
    c = client_for(personas["collector"])
    assert post(c, "/api/bill-runs/", b'{"fiscal_year": -Infinity}')["error"].startswith("fiscal_year:")
    assert post(c, "/api/bill-runs/", {"fiscal_year": 10**20})["error"].startswith("fiscal_year:")
    assert post(c, "/api/bill-runs/", {"fiscal_year": 0})["error"].startswith("fiscal_year:")


@pytest.mark.parametrize("raw", ["NaN", "nan", "Infinity", "-Infinity", "sNaN", "1e999999", "1" * 40])
def test_staff_forms_refuse_non_finite_and_absurd_amounts(raw):
    with pytest.raises(ValueError, match="amount"):
        money_value(raw)
    assert money_value("$1,250.00") == Decimal("1250.00")


def test_the_ms4_report_for_year_zero_is_refused_not_a_500(client_for, personas):
    c = client_for(personas["staff"])
    for year in ("0", "-5", "99999", "10" * 30):
        assert post_get(c, f"/api/stewardship/ms4-report?year={year}")["error"].startswith("year:")
        assert c.get(f"/stewardship/ms4-report/?year={year}").status_code == 400
        assert c.get(f"/stewardship/ms4-report.csv?year={year}").status_code == 400


def post_get(client, url, status=400):
    r = client.get(url)
    assert r.status_code == status, (url, r.status_code, r.content[:300])
    return r.json()


def test_a_permit_extension_of_ten_to_the_twentieth_days_is_refused(client_for, personas, filed):
    c = client_for(personas["staff"])
    number = filed.case.number
    for days in (10**20, "100000000000000000000", 10**6):
        assert post(c, f"/api/permits/{number}/extend/", {"days": days, "reason": "x"})["error"].startswith("days:")
    r = c.post(f"/permits/{number}/extend/", {"days": str(10**20), "reason": "x"}, follow=True)
    assert r.status_code == 400 and "days" in r.content.decode()  # the page again, the error at the field
    assert not filed.case.clocks.get(kind="action").extensions.exists()


@pytest.mark.parametrize("stdin, field", [
    (DIGITS_5000.decode(), "input"), (NESTED.decode(), "input"),
    ('{"property_class": "nonresidential", "impervious_sqft": NaN}', "impervious_sqft"),
    ('{"property_class": "nonresidential", "impervious_sqft": ' + "9" * 5000 + "}", "impervious_sqft"),
])
def test_the_cli_calculators_refuse_the_same_with_exit_2(monkeypatch, capsys, stdin, field):
    from stormwater.cli import main

    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    assert main(["calc", "fee"]) == 2
    assert json.loads(capsys.readouterr().out)["error"].startswith(field + ":")
