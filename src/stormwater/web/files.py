"""Files people download: CSV and Excel of a table, and the HTTP response that carries a file.

One place for what every export (bill runs, commitments, aging, fund reports) does the same way.
"""
from __future__ import annotations

import csv
import io
import re
from decimal import Decimal
from typing import Iterable, Sequence

from django.http import FileResponse, HttpResponse
from django.utils.text import get_valid_filename

CONTENT_TYPES = {
    "csv": "text/csv; charset=utf-8",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "pdf": "application/pdf",
}


# OWASP "CSV Injection": a cell beginning with one of these is read by Excel, LibreOffice and Google Sheets as a
# formula (or, for tab and carriage return, may be shifted into one).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
PLAIN_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)")


def safe_cell(value):
    """A value as a spreadsheet cell can take it without running anything (OWASP's CSV-injection rule): text that
    starts with ``= + - @``, a tab or a carriage return gets a leading apostrophe, which spreadsheets read as "this
    is text". Numbers, money (``Decimal`` or a plain numeric string such as ``"-12.50"``), dates and blanks are
    returned unchanged, so numeric columns stay numeric. Every CSV and Excel writer calls this for every cell."""
    if isinstance(value, str) and value.startswith(FORMULA_START) and not PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def csv_text(columns: Sequence[str], rows: Iterable[Sequence]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow([safe_cell(c) for c in columns])
    w.writerows([safe_cell(v) for v in row] for row in rows)
    return buf.getvalue()


def xlsx_bytes(sheet: str, columns: Sequence[str], rows: Iterable[Sequence],
               money_columns: frozenset[str] | set[str] = frozenset()) -> bytes:
    """One worksheet; the cells of ``money_columns`` (strings like "12.34") become numbers, blanks stay blank; text
    goes through ``safe_cell`` (never a formula)."""
    from openpyxl import Workbook  # imported lazily: only exports need it

    wb = Workbook(write_only=True)
    ws = wb.create_sheet(sheet[:31])  # Excel's limit on sheet names
    ws.append([safe_cell(c) for c in columns])
    for row in rows:
        ws.append([Decimal(v) if c in money_columns and v != "" else safe_cell(v) for c, v in zip(columns, row)])
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


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
    from stormwater.cases.filetypes import names_agree, type_of

    name, ftype = doc.original_name, type_of(doc.content_type)
    agree = names_agree(name, doc.content_type)
    if ftype is not None and not agree:
        name = f"{name}{ftype.extensions[0]}"
    resp = FileResponse(doc.file.open("rb"), content_type=doc.content_type)
    disposition = "inline" if ftype is not None and ftype.inline and agree else "attachment"
    resp["Content-Disposition"] = f'{disposition}; filename="{get_valid_filename(name)}"'
    return resp
