"""The water/sewer account import (issue 20 "Wrong today: there is no import at all"): parcel id ↔ account, by CLI,
web page and API, through the pipeline (whole file checked first; a bad file changes nothing; the same file again
changes nothing; a blank cell never blanks an account)."""
from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command

from stormwater.imports.models import ImportRecord
from stormwater.parcels.models import Parcel

pytestmark = pytest.mark.django_db


def accounts():
    return dict(Parcel.objects.values_list("parcel_id", "water_sewer_account"))


@pytest.fixture
def acct_file(tmp_path, assessed):
    f = tmp_path / "accounts.csv"
    f.write_text("parcel_id,water_sewer_account\nP-1,W000101\nP-2,W000102\n")
    return f


def test_the_cli_ties_parcels_to_accounts_and_a_second_run_changes_nothing(acct_file, capsys):
    call_command("imports", "water-sewer", str(acct_file), "--dry-run")
    assert accounts() == {"P-1": "", "P-2": "", "P-3": ""}
    out = json.loads(capsys.readouterr().out)
    assert out["parcels_changed"] == 2 and out["changes"][0] == {"parcel_id": "P-1", "from": "", "to": "W000101"}
    call_command("imports", "water-sewer", str(acct_file))
    assert accounts() == {"P-1": "W000101", "P-2": "W000102", "P-3": ""}
    call_command("imports", "water-sewer", str(acct_file))
    assert list(ImportRecord.objects.filter(kind="water_sewer_accounts").order_by("id")
                .values_list("outcome", flat=True)) == ["applied", "unchanged"]


@pytest.mark.parametrize("content, match", [
    ("parcel_id,water_sewer_account\nP-1,W1\nP-99,W2\n", r"row 3 \(parcel_id\): P-99"),
    ("parcel_id,water_sewer_account\nP-1,W1\nP-1,W2\n", r"row 3 \(water_sewer_account\): P-1 is W2 here and W1 on row 2"),
    ("parcel,acct\nP-1,W1\n", r"no column parcel_id or water_sewer_account"),
    ("parcel_id,water_sewer_account\nP-1,W1\nP-2", r"row 3 \(1 of 2 fields\)"),
    ("parcel_id,water_sewer_account\nP-1," + "W" * 41 + "\n", r"row 2 \(water_sewer_account\)"),
    ("", r"the file is empty"),
])
def test_a_bad_file_is_refused_naming_row_and_column_and_changes_nothing(assessed, tmp_path, content, match):
    Parcel.objects.filter(parcel_id="P-1").update(water_sewer_account="W-OLD")
    f = tmp_path / "bad.csv"
    f.write_text(content)
    with pytest.raises(CommandError, match=match):
        call_command("imports", "water-sewer", str(f))
    assert accounts()["P-1"] == "W-OLD"
    assert ImportRecord.objects.get(kind="water_sewer_accounts").outcome == "refused"


def test_a_blank_account_never_blanks_one_on_record(assessed, tmp_path):
    Parcel.objects.filter(parcel_id="P-1").update(water_sewer_account="W-OLD")
    f = tmp_path / "a.csv"
    f.write_bytes("PARCEL_ID;ACCOUNT\r\nP-1;\r\nP-2;W-Ü2\r\n".encode("latin-1"))
    call_command("imports", "water-sewer", str(f))
    assert accounts()["P-1"] == "W-OLD" and accounts()["P-2"] == "W-Ü2"


def test_the_web_page_checks_then_applies_what_it_checked(acct_file, personas, client_for):
    c = client_for(personas["assessor"])
    assert c.get("/imports/water-sewer/").status_code == 200
    with acct_file.open("rb") as f:
        r = c.post("/imports/water-sewer/", {"file": f})
    page = r.content.decode()
    assert r.status_code == 200 and "W000101" in page and "Apply these 2 change(s)" in page
    assert accounts()["P-1"] == ""
    checksum = r.context["checksum"]
    r = c.post("/imports/water-sewer/", {"checksum": checksum, "name": "accounts.csv", "action": "apply"})
    assert r.status_code == 302 and accounts()["P-1"] == "W000101"
    home = c.get("/imports/").content.decode()
    assert "accounts.csv" in home and "Applied" in home


def test_the_web_page_shows_a_refused_file_and_never_500s(assessed, personas, client_for, tmp_path):
    c = client_for(personas["assessor"])
    f = tmp_path / "parcels.gpkg.csv"
    f.write_bytes(b"SQLite format 3\x00" + b"\x00" * 100)
    with f.open("rb") as fh:
        r = c.post("/imports/water-sewer/", {"file": fh})
    assert r.status_code == 400 and "this is a GeoPackage or SQLite database" in r.content.decode()
    r = c.post("/imports/water-sewer/", {"checksum": "../../etc/passwd", "action": "apply"})
    assert r.status_code == 400 and "Choose the CSV file" in r.content.decode()
    # issue 16 "Forms": the error is tied to the file input, which says to choose the file again
    page = r.content.decode()
    assert 'id="file_error"' in page and 'aria-invalid="true" aria-describedby="file_error"' in page
    assert "Choose the file again" in page


def test_the_api_dry_run_apply_and_refusal(acct_file, personas, client_for):
    c = client_for(personas["staff"])
    r = c.post("/api/imports/water-sewer/?dry_run=1", data=acct_file.read_bytes(), content_type="text/csv",
               HTTP_X_FILENAME="accounts.csv")
    assert r.status_code == 200 and r.json()["parcels_changed"] == 2 and accounts()["P-1"] == ""
    with acct_file.open("rb") as f:
        r = c.post("/api/imports/water-sewer/", {"file": f})
    assert r.status_code == 201 and r.json()["outcome"] == "applied" and accounts()["P-1"] == "W000101"
    r = c.post("/api/imports/water-sewer/", data=b"parcel_id,water_sewer_account\nP-77,W\n", content_type="text/csv")
    assert r.status_code == 400 and "P-77" in r.json()["error"]
    assert r.json()["problems"][0]["ids"] == ["row 2 (parcel_id): P-77"]


def test_who_may_import_accounts(assessed, personas, client_for):
    for who, code in (("owner", 403), ("clerk", 403), ("inspector", 403), ("assessor", 200), ("staff", 200)):
        assert client_for(personas[who]).get("/imports/water-sewer/").status_code == code, who
