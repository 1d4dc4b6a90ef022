"""The association's instrument on the page, in the API and from a file (Ch. 295 Art. IV ¶G; issue 17)."""
import io
import json
from datetime import date

import pytest
from django.core.management import CommandError, call_command

from stormwater.imports.models import ImportRecord
from stormwater.parcels.models import AssociationInstrument, InstrumentShare, Owner, Parcel

URL = "/api/parcels/04-01-1/association/"


@pytest.fixture
def units(town):
    out = []
    for sfx in ("A", "B", "101"):
        o = Owner.objects.create(name=f"Unit {sfx} Owner", mailing_address="x")
        out.append(Parcel.objects.create(parcel_id=f"04-01-1-{sfx}", address=f"{sfx} Condo Way", owner=o,
                                         land_use_code="102", dwelling_units=1))
    return out


def body(**kw):
    return {"reference": "Book 24001 Page 12", "recorded_on": "2026-11-20", "effective_on": "2027-07-01",
            "shares": [{"unit_parcel_id": "04-01-1-A", "share_percent": "50"},
                       {"unit_parcel_id": "04-01-1-B", "share_percent": 30},
                       {"unit_parcel_id": "04-01-1-101", "share_percent": "20.0000"}]} | kw


def test_api_records_an_instrument_and_shows_it_with_the_history(client_for, personas, units):
    c = client_for(personas["staff"])
    r = c.post(URL + "?dry_run=1", body(), content_type="application/json")
    assert r.status_code == 200 and r.json()["dry_run"] and r.json()["total_percent"] == "100.0000"
    assert AssociationInstrument.objects.count() == 1
    r = c.post(URL, body(), content_type="application/json")
    assert r.status_code == 201, r.content
    out = r.json()
    assert out["recorded"] and out["instrument"]["shares"][0] == {
        "unit": "101", "unit_parcel_id": "04-01-1-101", "owner": "Unit 101 Owner", "share_percent": "20.0000"}
    assert [i["reference"] for i in out["instruments"]] == ["Book 24001 Page 12", "Book 1 Page 2"]
    assert out["in_force"]["reference"] == "Book 1 Page 2"  # the new one governs bills from 2027-07-01
    later = c.get(URL + "?on=2027-07-01").json()
    assert later["in_force"]["reference"] == "Book 24001 Page 12" and later["in_force"]["in_force"]
    # The same instrument again: recorded once.
    r = c.post(URL, body(), content_type="application/json")
    assert r.status_code == 200 and not r.json()["recorded"] and AssociationInstrument.objects.count() == 2


@pytest.mark.parametrize("bad, says", [
    ({"shares": "x"}, "shares: required"), ({"shares": [1]}, "shares[0]: expected an object"),
    ({"shares": [{"unit_parcel_id": None, "share_percent": 1}]}, "shares[0].unit_parcel_id"),
    ({"recorded_on": "12/03/2026"}, "recorded_on: '12/03/2026' is not a date"),
    ({"reference": 5}, "reference: expected text"),
])
def test_api_bad_bodies_are_400_naming_the_field(client_for, personas, units, bad, says):
    r = client_for(personas["staff"]).post(URL, body(**bad), content_type="application/json")
    assert r.status_code == 400 and says in r.json()["error"]


def test_api_refusals_name_the_row_and_field_and_change_nothing(client_for, personas, units):
    shares = [{"unit_parcel_id": "04-01-1-A", "share_percent": "50"},
              {"unit_parcel_id": "04-01-1", "share_percent": "49"}]
    r = client_for(personas["staff"]).post(URL, body(shares=shares), content_type="application/json")
    assert r.status_code == 400
    probs = r.json()["problems"]
    assert {"row": 2, "field": "unit_parcel_id",
            "message": "04-01-1 is the association's master parcel, not a unit"} in probs
    assert AssociationInstrument.objects.count() == 1 and InstrumentShare.objects.count() == 3


def csv_file(tmp_path, text, name="units.csv"):
    p = tmp_path / name
    p.write_bytes(text.encode("utf-8"))
    return p


def test_cli_imports_the_shares_through_the_pipeline_with_a_dry_run_first(units, tmp_path):
    f = csv_file(tmp_path, "unit_parcel_id,share_percent\r\n04-01-1-A,50\r\n04-01-1-B,30\r\n04-01-1-101,20\r\n")
    args = ["association", "import", str(f), "--parcel", "04-01-1", "--reference", "Doc. 2026-0099",
            "--recorded-on", "2026-11-20"]
    out = io.StringIO()
    call_command(*args, "--dry-run", stdout=out)
    res = json.loads(out.getvalue())
    assert res["dry_run"] and [s["unit_parcel_id"] for s in res["shares"]] == ["04-01-1-A", "04-01-1-B", "04-01-1-101"]
    assert AssociationInstrument.objects.count() == 1 and not ImportRecord.objects.exists()
    out = io.StringIO()
    call_command(*args, stdout=out)
    res = json.loads(out.getvalue())
    assert res["outcome"] == "applied" and res["effective_on"] == "2026-11-20"
    rec = ImportRecord.objects.get(kind="association_instrument")
    assert rec.outcome == "applied" and rec.counts == {"units": 3, "instruments_created": 1}
    call_command(*args, stdout=io.StringIO())  # the same file again: nothing recorded twice
    assert AssociationInstrument.objects.count() == 2
    assert ImportRecord.objects.filter(kind="association_instrument").latest("id").outcome == "unchanged"
    out = io.StringIO()
    call_command("association", "show", "--parcel", "04-01-1", stdout=out)
    assert json.loads(out.getvalue())["in_force"]["reference"] == "Doc. 2026-0099"


@pytest.mark.parametrize("text, says", [
    ("unit,share\n04-01-1-A,100\n", "no column unit_parcel_id or share_percent"),
    ("unit_parcel_id,share_percent\n04-01-1-A,60\n04-01-1-B,30\n", "the shares total 90 %"),
    ("unit_parcel_id,share_percent\n04-01-1-A,60\n04-01-1-A,40\n",
     "row 3 (unit_parcel_id): 04-01-1-A is already on row 2"),
    ("unit_parcel_id,share_percent\n04-01-1-A,sixty\n04-01-1-B,40\n", "row 2 (share_percent)"),
    ("unit_parcel_id,share_percent\n04-01-1-A,60\n04-01-1-B\n", "fewer fields than the header"),
])
def test_cli_refuses_a_bad_file_naming_row_and_column_and_changes_nothing(units, tmp_path, text, says):
    f = csv_file(tmp_path, text)
    err = io.StringIO()
    with pytest.raises(CommandError) as e:
        call_command("association", "import", str(f), "--parcel", "04-01-1", "--reference", "Doc. 1",
                     "--recorded-on", "2026-11-20", stderr=err)
    assert says in str(e.value) + err.getvalue()
    assert AssociationInstrument.objects.count() == 1
    assert ImportRecord.objects.get(kind="association_instrument").outcome == "refused"


def test_the_page_checks_then_records_typed_rows(client_for, personas, units, resolution):
    c = client_for(personas["staff"])
    page = c.get("/parcels/04-01-1/").content.decode()
    assert "Association instrument" in page and "Book 1 Page 2" in page and "Record new instrument" in page
    form = {"reference": "Book 24001 Page 12", "recorded_on": "2026-11-20", "effective_on": "",
            "shares": "unit_parcel_id,share_percent\n04-01-1-A, 50\n04-01-1-B\t30\n\n04-01-1-101; 20\n",
            "action": "check"}
    r = c.post("/parcels/04-01-1/association/", form)
    assert r.status_code == 200 and "Checked: nothing recorded yet" in r.content.decode()
    assert AssociationInstrument.objects.count() == 1
    r = c.post("/parcels/04-01-1/association/", form | {"shares": "04-01-1-A, 50\n04-01-1-B, 45\n"})
    assert r.status_code == 400 and "the shares total 95 %" in r.content.decode()
    r = c.post("/parcels/04-01-1/association/", form | {"shares": "04-01-1-A, 50\n04-01-1, 50\n"})
    assert "row 2 unit_parcel_id: 04-01-1 is the association" in r.content.decode()
    r = c.post("/parcels/04-01-1/association/", form | {"action": "record"}, follow=True)
    assert "Instrument Book 24001 Page 12 recorded: 3 units" in r.content.decode()
    inst = AssociationInstrument.objects.latest("id")
    assert inst.effective_on == date(2026, 11, 20) and inst.created_by == personas["staff"]
    # The unit's own parcel page says it is billed through the master parcel, for its share of the master's fee
    # (3 ERUs × $53.16 = $159.48, allocated 79.74 / 47.84 / 31.90 as the bill run does).
    unit_page = c.get("/parcels/04-01-1-101/").content.decode()
    assert "billed through the master parcel" in unit_page and "$31.90 a year" in unit_page
    assert "20.0% of the fee of the master parcel" in unit_page


def test_the_page_checks_then_records_an_uploaded_file(client_for, personas, units, settings, tmp_path):
    from django.core.files.uploadedfile import SimpleUploadedFile

    c = client_for(personas["assessor"])
    data = b"unit_parcel_id,share_percent\n04-01-1-A,50\n04-01-1-B,30\n04-01-1-101,20\n"
    form = {"reference": "Doc. 2026-0099", "recorded_on": "2026-11-20", "action": "check",
            "file": SimpleUploadedFile("units.csv", data, content_type="text/csv")}
    r = c.post("/parcels/04-01-1/association/", form)
    page = r.content.decode()
    assert r.status_code == 200 and "Checked: nothing recorded yet" in page and 'name="checksum"' in page
    assert AssociationInstrument.objects.count() == 1
    import hashlib
    checksum = hashlib.sha256(data).hexdigest()
    r = c.post("/parcels/04-01-1/association/", {"reference": "Doc. 2026-0099", "recorded_on": "2026-11-20",
                                                 "action": "record", "checksum": checksum, "source": "units.csv"},
               follow=True)
    assert "recorded from units.csv" in r.content.decode()
    assert ImportRecord.objects.get(kind="association_instrument").outcome == "applied"
    bad = {"reference": "Doc. 1", "recorded_on": "2026-11-20", "action": "check",
           "file": SimpleUploadedFile("units.csv", b"unit_parcel_id,share_percent\n04-01-1-A,99\n")}
    r = c.post("/parcels/04-01-1/association/", bad)
    assert r.status_code == 400 and "the shares total 99 %" in r.content.decode()
