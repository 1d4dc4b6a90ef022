"""The import pipeline by API (issue 20): assessor records with a mapping (dry run, apply, a refused file with
every finding), and the list of import records."""
from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from stormwater.parcels.models import Parcel

from .conftest import GOOD_ASSESSOR

pytestmark = pytest.mark.django_db

MAPPING = json.dumps({"parcel_id": ["PID"], "address": "ADDR", "owner_name": "OWNER",
                      "owner_address": ["OWN_ST", "OWN_CITY"], "land_use_code": "LUC", "dwelling_units": "UNITS",
                      "lot_size": "LOT", "_lot_unit": "sqft"})


def post(c, content, *, name="assessor.csv", mapping=MAPPING, q=""):
    data = {"file": SimpleUploadedFile(name, content)}
    if mapping is not None:
        data["mapping"] = mapping
    return c.post(f"/api/imports/assessor/{q}", data)


def test_assessor_records_by_api(personas, client_for):
    c = client_for(personas["assessor"])
    r = post(c, GOOD_ASSESSOR.encode(), q="?dry_run=1")
    assert r.status_code == 200 and r.json()["created"] == 3 and Parcel.objects.count() == 0
    r = post(c, GOOD_ASSESSOR.encode())
    assert r.status_code == 201 and Parcel.objects.count() == 3
    r = post(c, GOOD_ASSESSOR.encode())
    assert r.status_code == 200 and r.json()["unchanged"] == 3
    r = post(c, GOOD_ASSESSOR[:-12].encode(), name="cut.csv")
    assert r.status_code == 400 and "row 4" in r.json()["error"]
    assert r.json()["problems"][0]["ids"] == ["row 4 (5 of 8 fields)"]
    r = c.get("/api/imports/?kind=assessor")
    assert [i["outcome"] for i in r.json()["imports"]] == ["refused", "unchanged", "applied"]


@pytest.mark.parametrize("mapping, match", [
    ("[1, 2]", "mapping: a JSON object"),
    ('{"nope": ["X"]}', "mapping.nope: not a target"),
    ('{"parcel_id": [1]}', "mapping.parcel_id: a column name"),
    ('{"_lot_unit": "furlongs"}', "mapping._lot_unit"),
    ("{", ""),
])
def test_a_bad_mapping_is_a_400_naming_it(personas, client_for, mapping, match):
    r = post(client_for(personas["assessor"]), GOOD_ASSESSOR.encode(), mapping=mapping)
    assert r.status_code == 400 and match in r.json()["error"]


def test_who_may_use_the_import_api(personas, client_for):
    assert post(client_for(personas["owner"]), GOOD_ASSESSOR.encode()).status_code == 403
    assert client_for(personas["clerk"]).get("/api/imports/").status_code == 403
    assert client_for(personas["staff"]).get("/api/imports/?limit=0").status_code == 400
