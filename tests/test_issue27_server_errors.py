"""Issue 27, "56 server errors from 8 code sites": the sites outside one app's own test folder (jobs' start form,
the GIS API's survey parameter, the rate model API, the API's methods). Each failed with a 500 before the fix;
the construction, stewardship and relief sites are in those apps' test_issue27_inputs.py."""
from __future__ import annotations

import pytest


@pytest.mark.parametrize("nxt", ["None", "javascript:alert(1)", "nowhere", ""])
def test_a_job_start_with_an_odd_next_goes_back_to_the_job_list_not_a_500(client_for, personas, nxt):
    r = client_for(personas["staff"]).post("/jobs/start/no_such_kind/", {"next": nxt})
    assert r.status_code == 302 and r.url == "/jobs/"


@pytest.mark.parametrize("survey", ["¹", "٣", "99999999999999999999999", "abc", "0"])
def test_the_parcel_geojson_refuses_an_odd_survey_number_by_name(client_for, personas, town, survey):
    r = client_for(personas["staff"]).get("/api/gis/parcels/01-01-1/geojson", {"survey": survey})
    assert r.status_code in (400, 404), r.content
    if r.status_code == 400:
        assert r.json()["error"].startswith("survey:")


def test_the_parcel_geojson_still_reads_a_survey_number(client_for, personas, town):
    r = client_for(personas["staff"]).get("/api/gis/parcels/01-01-1/geojson", {"survey": town["survey"].pk})
    assert r.status_code == 200


@pytest.mark.parametrize("rate", ["abc", "1e999", [95], {"x": 1}, "0", "-5", "1000", True, "NaN", "-0"])
def test_the_rate_model_api_refuses_a_malformed_collection_rate_by_name(client_for, personas, resolution, rate):
    r = client_for(personas["staff"]).post(
        "/api/fund/rate-model", {"fiscal_year": 2027, "base_as_of": "2026-07-01", "collection_rate_percent": rate},
        content_type="application/json")
    assert r.status_code == 400, r.content
    assert r.json()["error"].startswith("collection_rate_percent:")


@pytest.mark.parametrize("method", ["TRACE", "CONNECT", "PROPFIND"])
def test_an_api_endpoint_answers_an_undeclared_method_with_405(client_for, personas, town, method):
    c = client_for(personas["staff"])
    r = c.generic(method, "/api/gis/parcels/01-01-1/geojson")  # a GET view with no method guard of its own
    assert r.status_code == 405 and r["Allow"] == "GET, HEAD"
    assert c.head("/api/gis/parcels/01-01-1/geojson").status_code == 200
