"""Files people download: CSV and Excel of a table, and the HTTP response that carries a file.

One place for what every export (bill runs, commitments, aging, fund reports, and the jobs that make the large
files) does the same way — one streaming writer for the web responses and the background jobs alike:

- every cell of every export, the header row included, goes through ``safe_cell`` (OWASP CSV injection);
- a CSV is written row by row as the rows are read: ``csv_chunks`` (text in chunks of a few hundred rows),
  sent by ``csv_response`` or written to a file by ``csv_write`` (a job's file);
- an Excel workbook is written in openpyxl's write-only mode (``xlsx_write``, to a file or a path): a web
  response from a temporary file (``xlsx_response``), a job straight to its file; memory stays flat whatever
  the number of rows (issue 15);
- a worksheet never goes past Excel's 1,048,576-row limit: the rows continue on the next sheet ("Name (2)",
  each with the header row).
"""
from __future__ import annotations

import csv
import io
import re
import tempfile
import unicodedata
from collections.abc import Callable
from decimal import Decimal
from os import PathLike
from pathlib import Path, PurePath
from typing import IO, Iterable, Iterator, Sequence

from django.conf import settings
from django.http import FileResponse, HttpResponse, StreamingHttpResponse
from django.utils.text import get_valid_filename

CONTENT_TYPES = {
    "csv": "text/csv; charset=utf-8",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "pdf": "application/pdf",
}
# Excel's limit of rows on one worksheet (Excel specifications and limits), the header row included.
EXCEL_MAX_ROWS = 1_048_576
_CSV_CHUNK_ROWS = 500  # rows per chunk written to the client or the file


# OWASP "CSV Injection": a cell beginning with one of these is read by Excel, LibreOffice and Google Sheets as a
# formula (or, for tab and carriage return, may be shifted into one).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
PLAIN_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)")


def safe_cell(value):
    """A value as a spreadsheet cell can take it without running anything (OWASP's CSV-injection rule): text that
    starts with ``= + - @`` (or their fullwidth and small forms), a tab or a carriage return gets a leading apostrophe, which spreadsheets read as "this
    is text". Numbers, money (``Decimal`` or a plain numeric string such as ``"-12.50"``), dates and blanks are
    returned unchanged, so numeric columns stay numeric. Every CSV and Excel writer calls this for every cell."""
    if isinstance(value, str) and _formula_start(value) and not PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def _formula_start(text: str) -> bool:
    """``text`` starts with a formula starter, also in its fullwidth or small form (``＝ ＋ － ＠ ﹦ ﹢ ﹣ ﹫``: NFKC
    folds them to ``= + - @``, and spreadsheets may read them so; issue 27: ``＝`` passed through)."""
    return text.startswith(FORMULA_START) or unicodedata.normalize("NFKC", text[:1]).startswith(FORMULA_START)


def _none(n: int) -> None:
    return None


def csv_chunks(columns: Sequence[str], rows: Iterable[Sequence], *,
               each: Callable[[int], None] = _none) -> Iterator[str]:
    """The CSV text of ``columns`` and ``rows``, in chunks of a few hundred rows, as the rows come; ``each(n)``
    after the n-th row (a job's progress)."""
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow([safe_cell(c) for c in columns])
    n = 0
    for row in rows:
        w.writerow([safe_cell(v) for v in row])
        n += 1
        each(n)
        if n % _CSV_CHUNK_ROWS == 0:
            yield buf.getvalue()
            buf.seek(0)
            buf.truncate()
    yield buf.getvalue()


def csv_text(columns: Sequence[str], rows: Iterable[Sequence]) -> str:
    """The whole CSV as one string (small tables; large ones go through ``csv_response`` or ``csv_write``)."""
    return "".join(csv_chunks(columns, rows))


def csv_write(path: str | PathLike, columns: Sequence[str], rows: Iterable[Sequence], *,
              each: Callable[[int], None] = _none) -> int:
    """Write the CSV to ``path`` (UTF-8) as the rows come → the number of data rows written."""
    count = 0

    def counted(n: int) -> None:
        nonlocal count
        count = n
        each(n)

    with open(path, "w", newline="", encoding="utf-8") as f:
        for chunk in csv_chunks(columns, rows, each=counted):
            f.write(chunk)
    return count


def csv_response(columns: Sequence[str], rows: Iterable[Sequence], *, name: str) -> StreamingHttpResponse:
    """A CSV download streamed row by row: ``rows`` is consumed while the response is sent."""
    resp = StreamingHttpResponse((chunk.encode() for chunk in csv_chunks(columns, rows)),
                                 content_type=CONTENT_TYPES["csv"])
    resp["Content-Disposition"] = f'attachment; filename="{name}.csv"'
    return resp


def _sheet_title(sheet: str, k: int) -> str:
    suffix = "" if k == 1 else f" ({k})"
    return sheet[:31 - len(suffix)] + suffix  # Excel's limit on sheet names: 31 characters


def xlsx_write(out: IO[bytes] | str | PathLike, sheet: str, columns: Sequence[str], rows: Iterable[Sequence],
               money_columns: frozenset[str] | set[str] = frozenset(), *, max_rows: int = EXCEL_MAX_ROWS,
               each: Callable[[int], None] = _none) -> int:
    """Write a workbook to ``out`` (a binary file or a path) in openpyxl's write-only mode (rows go to disk as
    they come). A sheet holds at most ``max_rows`` rows with its header; the rows continue on the next sheet
    ("Name (2)" …). The cells of ``money_columns`` (strings like "12.34") become numbers, blanks stay blank;
    every other cell goes through ``safe_cell``. ``each(n)`` after the n-th row. → the number of data rows."""
    from openpyxl import Workbook  # imported lazily: only exports need it

    if max_rows < 2:
        raise ValueError("max_rows: at least 2 (the header and one row)")
    header = [safe_cell(c) for c in columns]
    money = [c in money_columns for c in columns]
    wb = Workbook(write_only=True)
    ws = wb.create_sheet(_sheet_title(sheet, 1))
    ws.append(header)
    sheets, on_sheet, total = 1, 1, 0
    for row in rows:
        if on_sheet == max_rows:
            sheets += 1
            ws = wb.create_sheet(_sheet_title(sheet, sheets))
            ws.append(header)
            on_sheet = 1
        ws.append([Decimal(v) if m and v != "" and v is not None else safe_cell(v) for m, v in zip(money, row)])
        on_sheet += 1
        total += 1
        each(total)
    wb.save(out)
    return total


def xlsx_bytes(sheet: str, columns: Sequence[str], rows: Iterable[Sequence],
               money_columns: frozenset[str] | set[str] = frozenset()) -> bytes:
    """The workbook as bytes (small tables; large ones go through ``xlsx_response`` or ``xlsx_write``)."""
    buf = io.BytesIO()
    xlsx_write(buf, sheet, columns, rows, money_columns)
    return buf.getvalue()


def xlsx_response(sheet: str, columns: Sequence[str], rows: Iterable[Sequence],
                  money_columns: frozenset[str] | set[str] = frozenset(), *, name: str,
                  each: Callable[[int], None] = _none) -> FileResponse:
    """An Excel download written to a temporary file (deleted when the response is closed) and sent from
    it in blocks: memory stays flat whatever the number of rows. ``each(n)`` after the n-th row (the progress of the
    job making it: ``web.listexports.export_progress``)."""
    tmp = tempfile.TemporaryFile(prefix="stormwater-export-", suffix=".xlsx")
    try:
        written = xlsx_write(tmp, sheet, columns, rows, money_columns, each=each)
    except BaseException:
        tmp.close()
        raise
    tmp.seek(0)
    resp = FileResponse(tmp, content_type=CONTENT_TYPES["xlsx"])
    resp["Content-Disposition"] = f'attachment; filename="{name}.xlsx"'
    resp.export_rows = written  # the rows written: the list_export job reports them (jobs/kinds/listexport.py)
    return resp


def table_response(fmt: str, *, name: str, sheet: str, columns: Sequence[str], rows: Iterable[Sequence],
                   money_columns: frozenset[str] | set[str] = frozenset(), each: Callable[[int], None] = _none):
    """A table as a streamed CSV (``fmt`` "csv") or an Excel workbook ("xlsx"; ``each`` as ``xlsx_response``)."""
    if fmt == "csv":
        return csv_response(columns, rows, name=name)
    if fmt == "xlsx":
        return xlsx_response(sheet, columns, rows, money_columns, name=name, each=each)
    raise ValueError(f"fmt: csv or xlsx, not {fmt!r}")


def download(content, *, name: str, ext: str) -> HttpResponse:
    """A file response: PDFs open in the browser, spreadsheets are saved."""
    resp = HttpResponse(content, content_type=CONTENT_TYPES[ext])
    resp["Content-Disposition"] = f'{"inline" if ext == "pdf" else "attachment"}; filename="{name}.{ext}"'
    return resp


def document_response(doc) -> FileResponse:
    """An uploaded case document (``cases.CaseDocument``) as stored: a PDF opens in the browser, anything else is
    saved (an uploaded file never renders as a page of this site); its name made header-safe. A name whose extension
    disagrees with the sniffed content (stored before uploads were checked, e.g. a PDF named ``setup.pdf.exe``) is
    never opened inline and is saved with its content's extension added (``setup.pdf.exe.pdf``)."""
    from stormwater.web.filetypes import names_agree, type_of

    name, ftype = doc.original_name, type_of(doc.content_type)
    agree = names_agree(name, doc.content_type)
    if ftype is not None and not agree:
        name = f"{name}{ftype.extensions[0]}"
    resp = FileResponse(doc.file.open("rb"), content_type=doc.content_type)
    disposition = "inline" if ftype is not None and ftype.inline and agree else "attachment"
    resp["Content-Disposition"] = f'{disposition}; filename="{get_valid_filename(name)}"'
    return resp


def paths_hidden(text: str) -> str:
    """``text`` (a library's message about a stored file, e.g. GDAL's "'/srv/…/media/gis/import-3/x.gpkg' not
    recognized …") with every path under the data folder, the media folder or the temporary folder cut to the file's
    own name: no server paths shown to users (issue 27: the GIS import page showed the full path)."""
    roots = {str(settings.DATA_DIR), str(settings.MEDIA_ROOT), tempfile.gettempdir()}
    roots |= {str(Path(r).resolve()) for r in roots}
    for root in sorted(roots, key=len, reverse=True):
        text = re.sub(re.escape(root.rstrip("/\\")) + r"(?:[/\\]([^\s'\"]*))?",
                      lambda m: PurePath(m.group(1) or "").name or "(folder)", text)
    return text
