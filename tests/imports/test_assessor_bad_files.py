"""Assessor records through the one import pipeline (issue 20 "Wrong today: Assessor records"): every bad file is
refused with a message naming the file, the row and the column, through the CLI and the web, and nothing in the
database changes; a partial file never blanks a fact it did not carry; the same content imported again changes
nothing."""
from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.management import CommandError, call_command

from stormwater.imports.models import ImportRecord
from stormwater.parcels.models import Owner, Parcel

from .conftest import GOOD_ASSESSOR

pytestmark = pytest.mark.django_db

MAP = ["--map", "parcel_id=PID", "--map", "address=ADDR", "--map", "owner_name=OWNER",
       "--map", "owner_address=OWN_ST,OWN_CITY", "--map", "land_use_code=LUC", "--map", "dwelling_units=UNITS",
       "--map", "lot_size=LOT", "--lot-unit", "sqft"]


def cli(path, *extra, mapping=MAP):
    call_command("gis", "assessor", str(path), *mapping, *extra)


def snapshot():
    return sorted(Parcel.objects.values_list("parcel_id", "address", "owner__name", "land_use_code", "dwelling_units",
                                            "lot_sqft")), Owner.objects.count()


@pytest.fixture
def town(good_assessor):
    cli(good_assessor)
    return snapshot()


def refused(path, match, *, mapping=MAP):
    with pytest.raises(CommandError, match=match):
        cli(path, mapping=mapping)


def test_a_truncated_csv_is_refused_naming_the_cut_off_row_and_changes_nothing(town, tmp_path):
    cut = tmp_path / "cut.csv"
    cut.write_text(GOOD_ASSESSOR[: GOOD_ASSESSOR.index("P-3,5 Test St,Ann Able") + len("P-3,5 Test St,Ann Able")])
    refused(cut, r"cut\.csv.*row 4 \(3 of 8 fields\)")
    assert snapshot() == town
    assert ImportRecord.objects.filter(outcome="refused", source__contains="cut.csv").exists()


def test_a_file_missing_the_mapped_columns_is_refused_and_wipes_nothing(town, tmp_path):
    thin = tmp_path / "thin.csv"
    thin.write_text("PID,ADDR,LUC\nP-1,1 Test St,101\n")
    refused(thin, r"thin\.csv.*not in the file.*OWNER.*LOT")
    assert snapshot() == town


def test_a_latin1_file_keeps_its_accents(db, tmp_path):
    f = tmp_path / "latin1.csv"
    f.write_bytes("PID,ADDR,LUC\nP-9,9 Café St,101\n".encode("latin-1"))
    cli(f, mapping=["--map", "parcel_id=PID", "--map", "address=ADDR", "--map", "land_use_code=LUC"])
    assert Parcel.objects.get(parcel_id="P-9").address == "9 Café St"


@pytest.mark.parametrize("row, match", [
    ("P-1,1 Test St,Ann Able,1 Test St,x,101,1,-5000", r"row 2 \(LOT\).*-5000"),
    ("P-1,1 Test St,Ann Able,1 Test St,x,101,1000000000,10000", r"row 2 \(UNITS\).*1000000000"),
    ("P-1,1 Test St,Ann Able,1 Test St,x,101,1,1e400", r"row 2 \(LOT\).*1e400"),
    ("P-1,1 Test St,Ann Able,1 Test St,x,101,1,NaN", r"row 2 \(LOT\).*NaN"),
])
def test_impossible_numbers_are_refused_naming_row_and_column(town, tmp_path, row, match):
    f = tmp_path / "bad.csv"
    f.write_text(GOOD_ASSESSOR.splitlines()[0] + "\n" + row + "\n")
    refused(f, match)
    assert snapshot() == town


@pytest.mark.parametrize("content, match", [
    (b"", r"empty\.csv: the file is empty"),
    (b"PID,ADDR,OWNER,OWN_ST,OWN_CITY,LUC,UNITS,LOT\n", r"empty\.csv: the file has a header row and no data rows"),
    (b"SQLite format 3\x00" + b"\x00" * 200, r"empty\.csv: this is a GeoPackage or SQLite database, not a text file"),
    (b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n", r"empty\.csv: this is a PDF document"),
])
def test_empty_and_binary_files_named_csv_are_refused(town, tmp_path, content, match):
    f = tmp_path / "empty.csv"
    f.write_bytes(content)
    refused(f, match)
    assert snapshot() == town


def test_a_corrupt_xlsx_is_a_clear_error_not_a_traceback(town, tmp_path):
    f = tmp_path / "book.xlsx"
    f.write_bytes(b"PK\x03\x04 this is not really a workbook")
    refused(f, r"book\.xlsx: not a readable Excel workbook")
    assert snapshot() == town


def test_a_partial_file_never_blanks_facts_it_did_not_carry(town, tmp_path):
    f = tmp_path / "partial.csv"
    f.write_text("PID,ADDR,LUC,UNITS\nP-1,1 Test Street,101,\n")  # no owner, no lot; units cell blank
    cli(f, mapping=["--map", "parcel_id=PID", "--map", "address=ADDR", "--map", "land_use_code=LUC",
                    "--map", "dwelling_units=UNITS"])
    p1 = Parcel.objects.get(parcel_id="P-1")
    assert (p1.address, p1.owner.name, p1.dwelling_units, p1.lot_sqft) == ("1 Test Street", "Ann Able", 1,
                                                                           Decimal("10000.00"))


def test_the_same_content_re_saved_changes_nothing_and_is_recognised(town, tmp_path):
    resaved = tmp_path / "resaved.csv"
    resaved.write_bytes(b"\xef\xbb\xbf" + GOOD_ASSESSOR.replace("\n", "\r\n").encode())
    cli(resaved)
    assert snapshot() == town
    first, again = ImportRecord.objects.filter(kind="assessor").order_by("id")
    assert first.outcome == "applied" and again.outcome == "unchanged"
    assert again.content_checksum == first.content_checksum and again.checksum != first.checksum


def test_the_web_page_shows_the_error_for_a_corrupt_workbook_and_never_500s(personas, client_for, tmp_path, run_worker):
    from stormwater.gis.models import GisImport

    c = client_for(personas["assessor"])
    f = tmp_path / "book.xlsx"
    f.write_bytes(b"PK\x03\x04 this is not really a workbook")
    with f.open("rb") as fh:
        c.post("/gis/imports/new/", {"kind": "assessor", "files": fh})
    gi = GisImport.objects.get()
    r = c.get(f"/gis/imports/{gi.pk}/")
    assert r.status_code == 200 and "book.xlsx: not a readable Excel workbook" in r.content.decode()
    assert c.get("/gis/").status_code == 200


def test_the_web_check_of_a_truncated_file_fails_naming_the_row(personas, client_for, tmp_path, run_worker, town):
    from stormwater.gis.models import GisImport

    c = client_for(personas["assessor"])
    cut = tmp_path / "cut.csv"
    cut.write_text(GOOD_ASSESSOR[:-12])
    with cut.open("rb") as fh:
        c.post("/gis/imports/new/", {"kind": "assessor", "files": fh})
    gi = GisImport.objects.get()
    c.post(f"/gis/imports/{gi.pk}/", {"source": "cut.csv|", "map_parcel_id": "PID", "map_address": "ADDR",
                                      "map_owner_name": "OWNER", "map_land_use_code": "LUC", "lot_unit": "sqft",
                                      "map_dwelling_units": "UNITS", "map_lot_size": "LOT"})
    run_worker()
    gi.refresh_from_db()
    assert gi.status == "failed" and "row 4" in gi.report["error"]
    page = c.get(f"/gis/imports/{gi.pk}/").content.decode()
    assert "row 4" in page
    assert snapshot() == town
