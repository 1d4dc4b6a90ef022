"""Exports stream and never pass Excel's row limit (issue 15: the bill-run workbook of 100,000 parcels took
61 s in memory, the water/sewer CSV peaked at 2.07 GB, and above ~262,000 parcels the XLSX writer made
a sheet Excel cannot open)."""
import csv
import inspect
import io

import pytest
from openpyxl import load_workbook

from stormwater.web import files


def test_a_workbook_continues_on_a_new_sheet_at_the_row_limit():
    rows = [[f"r{i}", f"{i}.50"] for i in range(11)]
    buf = io.BytesIO()
    written = files.xlsx_write(buf, "Aging as of 2026-12-31 (long name)", ["account", "total"], iter(rows),
                               {"total"}, max_rows=5)
    wb = load_workbook(io.BytesIO(buf.getvalue()))
    assert written == 11
    assert [ws.title for ws in wb.worksheets] == ["Aging as of 2026-12-31 (long na", "Aging as of 2026-12-31 (lon (2)",
                                                  "Aging as of 2026-12-31 (lon (3)"]
    sheets = [list(ws.iter_rows(values_only=True)) for ws in wb.worksheets]
    assert [len(s) for s in sheets] == [5, 5, 4] and all(s[0] == ("account", "total") for s in sheets)
    assert [r for s in sheets for r in s[1:]] == [(f"r{i}", i + 0.5) for i in range(11)]


def test_the_sheet_limit_is_excels():
    assert files.EXCEL_MAX_ROWS == 1_048_576
    assert inspect.signature(files.xlsx_write).parameters["max_rows"].default == files.EXCEL_MAX_ROWS


def test_a_csv_download_reads_its_rows_while_it_is_sent():
    read = []

    def rows():
        for i in range(2000):
            read.append(i)
            yield [i, f"name {i}"]

    resp = files.csv_response(["n", "name"], rows(), name="x")
    assert resp.streaming and read == []  # nothing read before the response is sent
    chunks = iter(resp.streaming_content)
    first = next(chunks).decode()
    assert first.startswith("n,name\r\n0,name 0\r\n") and len(read) < 2000
    rest = b"".join(chunks).decode()
    assert len((first + rest).splitlines()) == 2001 and read == list(range(2000))


def test_every_cell_goes_through_safe_cell(monkeypatch, tmp_path):
    """Every writer — the web downloads and the jobs' files (csv_write, xlsx_write to a path) — calls the one
    per-cell function, the header included; money cells become numbers."""
    monkeypatch.setattr(files, "safe_cell", lambda v: f"<{v}>" if isinstance(v, str) else v)
    assert files.csv_text(["a"], [["x"], [1]]) == "<a>\r\n<x>\r\n1\r\n"
    assert b"".join(files.csv_response(["a"], [["x"]], name="n").streaming_content) == b"<a>\r\n<x>\r\n"
    seen = []
    assert files.csv_write(tmp_path / "f.csv", ["a"], [["x"], [1]], each=seen.append) == 2 and seen == [1, 2]
    assert (tmp_path / "f.csv").read_bytes() == b"<a>\r\n<x>\r\n1\r\n"
    wb = load_workbook(io.BytesIO(files.xlsx_bytes("s", ["a", "m"], [["x", "1.00"]], {"m"})))
    assert list(wb.active.iter_rows(values_only=True)) == [("<a>", "<m>"), ("<x>", 1)]
    assert files.xlsx_write(tmp_path / "f.xlsx", "s", ["a"], [["x"]]) == 1
    assert list(load_workbook(tmp_path / "f.xlsx").active.iter_rows(values_only=True)) == [("<a>",), ("<x>",)]


def test_the_jobs_write_with_the_same_writer():
    """One streaming writer (issue 15): the bill run's export jobs import it from web/files.py."""
    from stormwater.jobs.kinds import exports as export_kinds

    assert export_kinds.csv_write is files.csv_write and export_kinds.xlsx_write is files.xlsx_write


@pytest.mark.parametrize("text", ["＝HYPERLINK(\"http://x.example\")", "＋1+2", "－1+2", "＠SUM(A1)", "﹦1+1", "﹢1",
                                  "﹣1", "﹫A1"])
def test_fullwidth_and_small_formula_starters_are_neutralised_too(text):
    """Issue 27: fullwidth ＝ passed through exports; spreadsheets (Excel with East Asian input, LibreOffice's
    autocorrect) may read the fullwidth and small forms of = + - @ as the ASCII ones (NFKC folds them)."""
    from stormwater.web.files import csv_text, safe_cell

    assert safe_cell(text) == "'" + text
    assert list(csv.reader(io.StringIO(csv_text(["name"], [[text]]))))[1] == ["'" + text]


@pytest.mark.parametrize("value", ["Ｌongmeadow", "＃5", "12.50", "-12.50", "１２"])
def test_other_fullwidth_text_and_plain_numbers_are_written_as_they_are(value):
    from stormwater.web.files import safe_cell

    assert safe_cell(value) == value
