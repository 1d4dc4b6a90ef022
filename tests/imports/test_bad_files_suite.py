"""The bad-files suite (issue 20 "Done when"): each kind of file towns receive, through the CLI and through the web
(upload → check as a job → import), with the named error or the documented outcome, and nothing changed in the
database when nothing should."""
from __future__ import annotations

import zipfile
from decimal import Decimal

import pytest
from django.core.management import CommandError, call_command

from stormwater.parcels.models import Owner, Parcel

from .conftest import GOOD_ASSESSOR

pytestmark = pytest.mark.django_db

MAP = {"parcel_id": "PID", "address": "ADDR", "owner_name": "OWNER", "owner_address": ["OWN_ST", "OWN_CITY"],
       "land_use_code": "LUC", "dwelling_units": "UNITS", "lot_size": "LOT"}
CUT = GOOD_ASSESSOR[:-12]
CUMULATIVE = GOOD_ASSESSOR + "P-4,7 Test St,Bo Baker,7 Test St,\"Longmeadow, MA 01106\",101,1,9000\n"


def xlsx_with_title_rows(path):
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["Town of Longmeadow — FY2027 assessment"])
    ws.merge_cells("A1:H1")
    ws.append([])
    for line in GOOD_ASSESSOR.strip().splitlines():
        import csv

        ws.append(next(csv.reader([line])))
    wb.save(path)


def xlsx_with_merged_header(path):
    """A two-row header joined by merged cells, as assessors' offices lay them out: "Parcel id", "Address", "Use",
    "Units" and "Lot" merged down over both rows; "Owner" merged across its three parts (Name, Street, City); and
    the owner of P-1 merged down over its row only (a merged data cell reads in every cell it covers)."""
    import csv

    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["Parcel id", "Address", "Owner", None, None, "Use", "Units", "Lot"])
    ws.append([None, None, "Name", "Street", "City", None, None, None])
    for col in "ABFGH":
        ws.merge_cells(f"{col}1:{col}2")
    ws.merge_cells("C1:E1")
    for line in GOOD_ASSESSOR.strip().splitlines()[1:]:
        ws.append(next(csv.reader([line])))
    wb.save(path)


MERGED_MAP = {"parcel_id": "Parcel id", "address": "Address", "owner_name": "Owner Name",
              "owner_address": ["Owner Street", "Owner City"], "land_use_code": "Use", "dwelling_units": "Units",
              "lot_size": "Lot"}


def xlsx_with_a_column_twice(path):
    import csv

    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    for i, line in enumerate(GOOD_ASSESSOR.strip().splitlines()):
        row = next(csv.reader([line]))
        ws.append(row + (["LUC"] if i == 0 else ["999"]))  # "LUC" twice: which one is the use code?
    wb.save(path)


# name, bytes (or a writer), expected: ("error", text in the message) or ("ok", {parcel_id: address}, created count)
# [, the mapping when not MAP]
CASES = {
    "truncated": ("cut.csv", CUT.encode(), ("error", "row 4 (5 of 8 fields)")),
    "crlf": ("crlf.csv", GOOD_ASSESSOR.replace("\n", "\r\n").encode(), ("ok", 0)),
    "utf8_bom": ("bom.csv", b"\xef\xbb\xbf" + GOOD_ASSESSOR.encode(), ("ok", 0)),
    "latin1": ("latin1.csv", GOOD_ASSESSOR.replace("1 Test St,Ann", "1 Café St,Ann").encode("latin-1"), ("ok", 0)),
    "excel_title_rows": ("book.xlsx", xlsx_with_title_rows, ("ok", 0)),
    "excel_merged_header": ("merged.xlsx", xlsx_with_merged_header, ("ok", 0), MERGED_MAP),
    "excel_column_twice": ("twice.xlsx", xlsx_with_a_column_twice, ("error", "the header names a column twice: LUC")),
    "empty": ("empty.csv", b"", ("error", "the file is empty")),
    "header_only": ("header.csv", GOOD_ASSESSOR.splitlines()[0].encode() + b"\n", ("error", "no data rows")),
    "duplicated": ("dup.csv", (GOOD_ASSESSOR + GOOD_ASSESSOR.split("\n", 1)[1]).encode(), ("ok", 0)),
    "cumulative": ("cumulative.csv", CUMULATIVE.encode(), ("ok", 1)),
    "geopackage_named_csv": ("parcels.csv", b"SQLite format 3\x00" + b"\x00" * 500, ("error", "GeoPackage")),
    "corrupt_xlsx": ("broken.xlsx", b"PK\x03\x04" + b"\x00" * 100, ("error", "not a readable Excel workbook")),
    "negative_lot": ("neg.csv", GOOD_ASSESSOR.replace(",10000\nP-2", ",-10000\nP-2").encode(), ("error", "row 2 (LOT)")),
    "huge_lot": ("huge.csv", GOOD_ASSESSOR.replace(",10000\nP-2", ",1e400\nP-2").encode(), ("error", "row 2 (LOT)")),
    "huge_units": ("units.csv", GOOD_ASSESSOR.replace(",101,1,10000", ",101,1000000000,10000").encode(),
                   ("error", "row 2 (UNITS): 1000000000")),
    "missing_columns": ("partial.csv", "PID,ADDR,OWNER,OWN_ST,OWN_CITY,LUC\nP-1,1 Test St,Ann Able,1 Test St,x,101\n"
                        .encode(), ("error", "columns mapped but not in the file")),
}


def write(tmp_path, name, content):
    p = tmp_path / name
    if callable(content):
        content(p)
    else:
        p.write_bytes(content)
    return p


def state():
    return sorted(Parcel.objects.values_list("parcel_id", "address", "owner__name", "land_use_code", "dwelling_units",
                                            "lot_sqft")), Owner.objects.count()


@pytest.mark.parametrize("case", CASES)
def test_through_the_cli(assessed, tmp_path, case):
    name, content, expect, *mapping = CASES[case]
    before = state()
    path = write(tmp_path, name, content)
    args = ["gis", "assessor", str(path)]
    for k, v in (mapping[0] if mapping else MAP).items():
        args += ["--map", f"{k}={','.join(v) if isinstance(v, list) else v}"]
    if expect[0] == "error":
        with pytest.raises(CommandError) as e:
            call_command(*args)
        assert name in str(e.value) and expect[1] in str(e.value)
        assert state() == before
    else:
        call_command(*args)
        assert Parcel.objects.count() == 3 + expect[1]
        _check_outcome(case, before)


def _check_outcome(case, before):
    p1 = Parcel.objects.get(parcel_id="P-1")
    assert p1.address == ("1 Café St" if case == "latin1" else "1 Test St")
    assert (p1.owner.name, p1.dwelling_units, p1.lot_sqft) == ("Ann Able", 1, Decimal("10000.00"))
    if case not in ("latin1", "cumulative"):
        assert state() == before


@pytest.mark.parametrize("case", CASES)
def test_through_the_web(assessed, personas, client_for, run_worker, tmp_path, case):
    from stormwater.gis.models import GisImport

    name, content, expect, *mapping = CASES[case]
    before = state()
    path = write(tmp_path, name, content)
    c = client_for(personas["assessor"])
    with path.open("rb") as f:
        r = c.post("/gis/imports/new/", {"kind": "assessor", "files": f})
    if case == "empty":  # the upload form itself refuses an empty file (Django's FileField): nothing is stored
        assert r.status_code == 400 and "The submitted file is empty." in r.content.decode()
        assert not GisImport.objects.exists() and state() == before
        return
    assert r.status_code == 302
    gi = GisImport.objects.get()
    page = c.get(f"/gis/imports/{gi.pk}/")
    assert page.status_code == 200
    post = {"source": f"{name}|", "lot_unit": "sqft"} | {f"map_{k}": v for k, v in (mapping[0] if mapping else MAP).items()}
    assert c.post(f"/gis/imports/{gi.pk}/", post).status_code == 302
    run_worker()
    gi.refresh_from_db()
    page = c.get(f"/gis/imports/{gi.pk}/").content.decode()
    if expect[0] == "error":
        assert gi.status == "failed" and expect[1] in gi.report["error"]
        from django.utils.html import escape

        assert escape(expect[1]) in page
        assert state() == before
    else:
        assert gi.status == "checked", gi.report
        assert c.post(f"/gis/imports/{gi.pk}/commit/").status_code == 302
        run_worker()
        gi.refresh_from_db()
        assert gi.status == "imported" and gi.report["created"] == expect[1]
        _check_outcome(case, before)


# GIS layers through the web: upload → map → check (a job) → the page shows the named error (nothing can be imported)
# or, for good layers, what the survey does to the bill.
LAYER_CASES = {
    "metres_as_feet": ({"scale": 0.3048}, "10.76× smaller than the Assessors"),
    "degrees_as_feet": ({"scale": 0.0001, "origin": (-725800.0, 420500.0)}, "look like degrees"),
    "empty_impervious": ({"buildings": False}, "no features with area"),
    "empty_parcels": ({"parcels": False}, "no features with area (parcel polygons)"),
    "parcels_as_impervious": ({"parcel_copy": [(0, 0, 100, 100), (100, 0, 200, 100)]}, "polygons match the parcels"),
    "good": ({}, None),
}


@pytest.mark.parametrize("case", LAYER_CASES)
def test_gis_layers_through_the_web(assessed, personas, client_for, run_worker, tmp_path, case):
    from django.utils.html import escape

    from stormwater.gis.models import GisImport
    from stormwater.gis.selectors import upload_sources
    from stormwater.parcels.models import ImperviousSurvey

    from .conftest import write_town

    kw, message = LAYER_CASES[case]
    gpkg = write_town(tmp_path / "town.gpkg", **kw)
    c = client_for(personas["staff"])
    with gpkg.open("rb") as f:
        assert c.post("/gis/imports/new/", {"kind": "layers", "files": f}).status_code == 302
    gi = GisImport.objects.get()
    names = [s["layer"] for s in upload_sources(gi) if s["geometry_type"]]
    post = {"parcels": "town.gpkg|parcels", "id_field": "PID", "name": "Web survey", "surveyed_on": "2026-05-01"}
    for i, n in enumerate(names):
        post[f"role_{i}"] = {"row": "right_of_way", "parcels": ""}.get(n, "impervious")
        post[f"name_{i}"] = n
    assert c.post(f"/gis/imports/{gi.pk}/", post).status_code == 302
    run_worker()
    gi.refresh_from_db()
    page = c.get(f"/gis/imports/{gi.pk}/")
    assert page.status_code == 200
    html = page.content.decode()
    if message is None:
        assert gi.status == "checked" and "What this survey does to the bill" in html
        assert gi.report["comparison"]["parcels_impervious_changed"] == 2
    else:
        assert gi.status == "failed" and message in gi.report["error"] and escape(message) in html
        assert "3. Import" not in html
    assert ImperviousSurvey.objects.count() == 0


def test_a_merged_header_is_read_as_one_row_of_names_and_said_so(tmp_path):
    from stormwater.gis.assessor import read_source

    t = read_source(str(write(tmp_path, "merged.xlsx", xlsx_with_merged_header)))
    assert t.columns == ["Parcel id", "Address", "Owner Name", "Owner Street", "Owner City", "Use", "Units", "Lot"]
    assert t.row_numbers == [3, 4, 5] and t.rows[0]["Owner Name"] == "Ann Able"
    merged = next(p for p in t.problems if p.code == "merged_header")
    assert merged.severity == "info" and "rows 1–2 are one header" in merged.message
    assert merged.ids == ["Owner Name", "Owner Street", "Owner City"]


def test_a_merged_data_cell_reads_in_every_row_it_covers(tmp_path):
    import openpyxl

    from stormwater.gis.assessor import read_source

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["PID", "ADDR", "OWNER", "LUC"])
    ws.append(["C-1", "9 Condo Way #1", "Condo Trust", "102"])
    ws.append(["C-1", "9 Condo Way #2", None, "102"])
    ws.merge_cells("C2:C3")
    wb.save(tmp_path / "condo.xlsx")
    t = read_source(str(tmp_path / "condo.xlsx"))
    assert [r["OWNER"] for r in t.rows] == ["Condo Trust", "Condo Trust"]


def _unreadable(kind, tmp_path):
    from .conftest import write_town

    good = write_town(tmp_path / "good.gpkg")
    if kind == "truncated_gpkg":
        p = write_town(tmp_path / "town.gpkg")
        p.write_bytes(p.read_bytes()[:3000])
        return p
    if kind == "truncated_geojson":
        import geopandas as gpd

        p = tmp_path / "town.geojson"
        gpd.read_file(good, layer="parcels").to_file(p, driver="GeoJSON")
        p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 2])
        return p
    if kind == "pdf_named_gpkg":
        p = tmp_path / "town.gpkg"
        p.write_bytes(b"%PDF-1.4\n" + b"x" * 2000)
        return p
    import zipfile  # a corrupt File Geodatabase, zipped as towns send them

    p = tmp_path / "town.zip"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("Town.gdb/a00000001.gdbtable", b"\x00garbage" * 50)
        z.writestr("Town.gdb/gdb", b"\x05\x00")
    return p


@pytest.mark.parametrize("kind, name", [("truncated_gpkg", "town.gpkg"), ("truncated_geojson", "town.geojson"),
                                        ("pdf_named_gpkg", "town.gpkg"), ("corrupt_fgdb", "Town.gdb")])
def test_unreadable_gis_files_through_the_web(assessed, personas, client_for, tmp_path, kind, name):
    """Upload → the mapping page names the file and says it cannot be read (never a 500, never vanishing); there is
    no layer to choose, so nothing can be imported; nothing changed."""
    from stormwater.gis.models import GisImport
    from stormwater.parcels.models import ImperviousSurvey, ParcelImpervious

    path = _unreadable(kind, tmp_path)
    before = state()
    c = client_for(personas["staff"])
    with path.open("rb") as f:
        assert c.post("/gis/imports/new/", {"kind": "layers", "files": f}).status_code == 302
    gi = GisImport.objects.get()
    page = c.get(f"/gis/imports/{gi.pk}/")
    html = page.content.decode()
    assert page.status_code == 200 and f"{name}: the file cannot be read as GIS data" in html
    assert ImperviousSurvey.objects.count() == 0 and ParcelImpervious.objects.count() == 0 and state() == before


def test_a_sheet_merging_millions_of_rows_is_refused_not_expanded(tmp_path):
    import openpyxl

    from stormwater.gis.assessor import read_source
    from stormwater.imports.pipeline import ImportRefused

    from openpyxl.utils import get_column_letter

    wb = openpyxl.Workbook()
    wb.active.append(["PID", "ADDR", "LUC"])
    wb.save(tmp_path / "plain.xlsx")
    # The 399 merged ranges written into the sheet's XML as Excel writes them (openpyxl's merge_cells would build
    # the 2 million covered cells in memory first: a minute and a half of the test's own making).
    refs = "".join(f'<mergeCell ref="{get_column_letter(c)}3:{get_column_letter(c)}5000"/>' for c in range(1, 400))
    with zipfile.ZipFile(tmp_path / "plain.xlsx") as src, zipfile.ZipFile(tmp_path / "merged.xlsx", "w") as out:
        for item in src.infolist():
            data = src.read(item)
            if item.filename == "xl/worksheets/sheet1.xml":
                data = data.replace(b"</sheetData>", f'</sheetData><mergeCells count="399">{refs}</mergeCells>'
                                    .encode(), 1)
                assert b"<mergeCells" in data
            out.writestr(item, data)
    with pytest.raises(ImportRefused, match=r"399 merged ranges over 1,994,202 rows"):
        read_source(str(tmp_path / "merged.xlsx"))
