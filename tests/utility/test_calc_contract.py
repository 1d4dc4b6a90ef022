"""The calculator contract: `stormwater calc fee|split` (stdin JSON → stdout JSON) and POST /api/calc/*."""
import json
import os
import subprocess
import sys

import pytest

CASES = [
    ({"property_class": "nonresidential", "impervious_sqft": 200000, "eru_sqft": 3400, "rate_per_eru": "53.16",
      "installments": 4},
     {"erus": 59, "annual_fee": "2828.11", "installments": ["707.03", "707.03", "707.03", "707.02"]}),
    ({"property_class": "small_residential", "impervious_sqft": 2500, "small_residential_rate": "53.16"},
     {"annual_fee": "53.16", "blocks": []}),
    ({"property_class": "exempt", "impervious_sqft": 90000}, {"erus": 0, "annual_fee": "0.00"}),
    ({"property_class": "large_residential", "impervious_sqft": "38500", "eru_sqft": "3400", "rate_per_eru": 53.16,
      "credit_percent": 50}, {"erus": 11, "annual_fee": "289.72"}),
]

BAD = [
    ({"impervious_sqft": 5}, "property_class"),
    ({"property_class": "castle", "impervious_sqft": 5}, "property_class"),
    ({"property_class": "nonresidential"}, "impervious_sqft"),
    ({"property_class": "nonresidential", "impervious_sqft": -1}, "impervious_sqft"),
    ({"property_class": "nonresidential", "impervious_sqft": "lots"}, "impervious_sqft"),
    ({"property_class": "nonresidential", "impervious_sqft": 5, "eru_sqft": 0}, "eru_sqft"),
    ({"property_class": "nonresidential", "impervious_sqft": 5, "installments": 6}, "installments"),
    ({"property_class": "nonresidential", "impervious_sqft": 5, "installments": 2.5}, "installments"),
    ({"property_class": "nonresidential", "impervious_sqft": 5, "credit_percent": 101}, "credit_percent"),
    ({"property_class": "nonresidential", "impervious_sqft": 5, "colour": "red"}, "colour"),
    ([1, 2], "input"),
]


def cli(args, payload, tmp_path):
    env = {**os.environ, "STORMWATER_DATA_DIR": str(tmp_path)}
    env.pop("DATABASE_URL", None)
    data = payload if isinstance(payload, str) else json.dumps(payload)
    r = subprocess.run([sys.executable, "-m", "stormwater", "calc", *args], input=data, capture_output=True,
                       text=True, env=env, timeout=120)
    return r.returncode, r.stdout, r.stderr


@pytest.mark.parametrize("payload,expected", CASES)
def test_cli_calc_fee(payload, expected, tmp_path):
    code, out, err = cli(["fee"], payload, tmp_path)
    assert code == 0, err
    got = json.loads(out)
    for k, v in expected.items():
        assert got[k] == v
    assert isinstance(got["erus"], int) and isinstance(got["explanation"], str)
    if got["blocks"]:
        assert sum(float(b["amount"]) for b in got["blocks"]) == pytest.approx(
            float(got["annual_fee"]) + float(got["credit_amount"]))


@pytest.mark.parametrize("payload,field", BAD)
def test_cli_bad_input_exits_2_with_the_field_named_and_no_traceback(payload, field, tmp_path):
    code, out, err = cli(["fee"], payload, tmp_path)
    assert code == 2
    assert field in json.loads(out)["error"]
    assert "Traceback" not in out + err


def test_cli_invalid_json_is_exit_2(tmp_path):
    code, out, err = cli(["fee"], "{not json", tmp_path)
    assert code == 2 and "not valid JSON" in json.loads(out)["error"] and "Traceback" not in err


def test_cli_missing_rates_come_from_the_default_town_configuration_without_a_database(tmp_path):
    code, out, _ = cli(["fee"], {"property_class": "nonresidential", "impervious_sqft": 3400}, tmp_path)
    got = json.loads(out)
    assert code == 0 and got["annual_fee"] == "53.16" and "demo values" in got["explanation"]
    assert not (tmp_path / "stormwater.sqlite3").exists()


def test_cli_calc_split_sums_to_the_cent(tmp_path):
    code, out, _ = cli(["split"], {"amount": "1000.00", "shares": [{"unit": "1", "percent": "33.3333"},
                                                                   {"unit": "2", "percent": "33.3333"},
                                                                   {"unit": "3", "percent": "33.3334"}]}, tmp_path)
    got = json.loads(out)
    assert code == 0 and [s["amount"] for s in got["shares"]] == ["333.33", "333.33", "333.34"]
    assert [s["unit"] for s in got["shares"]] == ["1", "2", "3"]


@pytest.mark.parametrize("payload,field", [
    ({"amount": "10.00", "shares": [{"unit": "1", "percent": 60}, {"unit": "2", "percent": 30}]}, "total 100"),
    ({"shares": [{"unit": "1", "percent": 100}]}, "amount"),
    ({"amount": "10.00", "shares": []}, "shares"),
    ({"amount": "10.00", "shares": [{"unit": "1"}]}, "shares[0]"),
    ({"amount": "10.00", "shares": [{"unit": "1", "percent": -5}, {"unit": "2", "percent": 105}]}, "shares[0].percent"),
])
def test_cli_split_errors(payload, field, tmp_path):
    code, out, _ = cli(["split"], payload, tmp_path)
    assert code == 2 and field in json.loads(out)["error"]


@pytest.mark.django_db
@pytest.mark.parametrize("payload,expected", CASES)
def test_api_calc_fee_serves_the_same_computation(client, payload, expected, tmp_path):
    r = client.post("/api/calc/fee", json.dumps(payload), content_type="application/json")
    assert r.status_code == 200
    code, out, _ = cli(["fee"], payload, tmp_path)
    assert r.json()["annual_fee"] == json.loads(out)["annual_fee"]
    for k, v in expected.items():
        assert r.json()[k] == v


@pytest.mark.django_db
@pytest.mark.parametrize("payload,field", BAD)
def test_api_calc_fee_bad_input_is_400_naming_the_field(client, payload, field):
    r = client.post("/api/calc/fee", json.dumps(payload), content_type="application/json")
    assert r.status_code == 400 and field in r.json()["error"]


@pytest.mark.django_db
def test_api_calc_split(client):
    r = client.post("/api/calc/split", json.dumps({"amount": "0.05", "shares": [{"unit": "A", "percent": 50},
                                                                               {"unit": "B", "percent": 50}]}),
                    content_type="application/json")
    assert r.status_code == 200 and [s["amount"] for s in r.json()["shares"]] == ["0.03", "0.02"]


@pytest.mark.django_db
def test_api_calc_uses_the_resolution_in_force_today(client, resolution):
    r = client.post("/api/calc/fee", json.dumps({"property_class": "nonresidential", "impervious_sqft": 3400}),
                    content_type="application/json")
    assert r.json()["installments"] == ["26.58", "26.58"]  # the fixture resolution bills twice a year


@pytest.mark.parametrize("payload,interest,days", [
    ({"unpaid_principal": "1000.00", "due_date": "2026-10-15", "as_of": "2026-10-15"}, "0.00", 0),
    ({"unpaid_principal": "1000.00", "due_date": "2026-10-15", "as_of": "2026-10-16"}, "0.33", 1),
    ({"unpaid_principal": 1000, "due_date": "2026-10-10", "as_of": "2026-11-13"}, "10.19", 31),  # Sat → Tue Oct 13
    ({"unpaid_principal": "1000.00", "due_date": "2026-10-15", "as_of": "2027-10-15"}, "120.00", 365),
])
def test_cli_and_api_calc_interest(payload, interest, days, tmp_path, client, db):
    code, out, _ = cli(["interest"], payload, tmp_path)
    got = json.loads(out)
    assert code == 0 and (got["interest"], got["days"]) == (interest, days)
    r = client.post("/api/calc/interest", json.dumps(payload), content_type="application/json")
    assert r.status_code == 200 and (r.json()["interest"], r.json()["days"]) == (interest, days)


@pytest.mark.parametrize("payload,field", [
    ({"due_date": "2026-10-15", "as_of": "2026-10-16"}, "unpaid_principal"),
    ({"unpaid_principal": -1, "due_date": "2026-10-15", "as_of": "2026-10-16"}, "unpaid_principal"),
    ({"unpaid_principal": 1, "due_date": "15/10/2026", "as_of": "2026-10-16"}, "due_date"),
    ({"unpaid_principal": 1, "due_date": "2026-10-15"}, "as_of"),
])
def test_calc_interest_bad_input(payload, field, tmp_path):
    code, out, err = cli(["interest"], payload, tmp_path)
    assert code == 2 and field in json.loads(out)["error"] and "Traceback" not in err
