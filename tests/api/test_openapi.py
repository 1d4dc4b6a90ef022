"""Issue 15 "The API contract": an OpenAPI 3.1 document at /api/openapi.json describing every URL under
/api/ (a URL missing from it fails here), valid by openapi-spec-validator, and its readable reference page."""
from __future__ import annotations

import re

import pytest
from django.urls import resolve
from openapi_spec_validator import validate

from stormwater.api.endpoints import ENDPOINTS
from stormwater.api.openapi import api_patterns, openapi_document


def test_every_url_under_api_is_in_the_document():
    doc = openapi_document()
    documented = {op["operationId"].split("_calc_engineering")[0] if "_calc_engineering" in op["operationId"]
                  else op["operationId"] for ops in doc["paths"].values() for op in ops.values()}
    names = {p.name for _, p in api_patterns()}
    assert names - {"api_calc_engineering"} <= documented, sorted(names - documented)
    assert doc["x-undocumented"] == []
    # A regex URL lists its alternatives: every one is documented, and every documented path resolves to it.
    for route, p in api_patterns():
        if route.startswith("^"):
            alternatives = re.search(r"\(\?P<\w+>([^)]+)\)", route).group(1).split("|")
            paths = set(ENDPOINTS[p.name])
            assert paths == {"/" + route.lstrip("^").split("(")[0] + a for a in alternatives}


def test_every_documented_path_is_a_url_and_nothing_stale_is_kept():
    names = {p.name for _, p in api_patterns()}
    assert set(ENDPOINTS) <= names, sorted(set(ENDPOINTS) - names)
    for path, ops in openapi_document()["paths"].items():
        concrete = re.sub(r"\{[^}]+\}", "1", path)
        assert resolve(concrete).url_name in names, path


def test_the_document_is_valid_openapi_3_1():
    doc = openapi_document()
    assert doc["openapi"] == "3.1.0"
    validate(doc)  # openapi-spec-validator: raises on the first error


def test_public_operations_need_no_auth_and_guarded_ones_say_their_permission():
    paths = openapi_document()["paths"]
    fee = paths["/api/calc/fee"]["post"]
    assert fee["security"] == [] and "401" not in fee["responses"]
    run = paths["/api/bill-runs/"]["post"]
    assert {"bearerToken": []} in run["security"] and "`billing.run`" in run["description"]
    assert "collector" in run["description"] and "owner" not in run["description"].split("roles")[1]
    assert run["requestBody"]["content"]["application/json"]["schema"]["properties"]["fiscal_year"]["maximum"] == 2100


@pytest.mark.django_db
def test_the_document_and_its_reference_are_served_to_anyone(client):
    r = client.get("/api/openapi.json")
    assert r.status_code == 200 and r["Content-Type"] == "application/json"
    assert r.json()["info"]["title"] == openapi_document()["info"]["title"]
    page = client.get("/api/docs/")
    assert page.status_code == 200 and "Content-Security-Policy" in page
    html = page.content.decode()
    for path in openapi_document()["paths"]:
        assert f"<code>{path}</code>" in html, path
    # Server-rendered, nothing from a CDN: the only scripts are the site's own (base.html: the double-submit guard,
    # forms.js, and the menu and table boxes, site.js).
    scripts = re.findall(r"<script[^>]*>", html)
    assert scripts and all('src="/static/stormwater/' in s for s in scripts), scripts
    assert "https://" not in html
    assert "fiscal_year" in html and "2,000 to 2,100" in html
