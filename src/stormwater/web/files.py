"""Files people download: CSV and Excel of a table, and the HTTP response that carries a file.

One place for what every export (bill runs, commitments, aging, fund reports) does the same way.
"""
from __future__ import annotations

import csv
import io
from decimal import Decimal
from typing import Iterable, Sequence

from django.http import FileResponse, HttpResponse
from django.utils.text import get_valid_filename

CONTENT_TYPES = {
    "csv": "text/csv; charset=utf-8",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "pdf": "application/pdf",
}


def csv_text(columns: Sequence[str], rows: Iterable[Sequence]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(columns)
    w.writerows(rows)
    return buf.getvalue()


def xlsx_bytes(sheet: str, columns: Sequence[str], rows: Iterable[Sequence],
               money_columns: frozenset[str] | set[str] = frozenset()) -> bytes:
    """One worksheet; the cells of ``money_columns`` (strings like "12.34") become numbers, blanks stay blank."""
    from openpyxl import Workbook  # imported lazily: only exports need it

    wb = Workbook(write_only=True)
    ws = wb.create_sheet(sheet[:31])  # Excel's limit on sheet names
    ws.append(list(columns))
    for row in rows:
        ws.append([Decimal(v) if c in money_columns and v != "" else v for c, v in zip(columns, row)])
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def download(content, *, name: str, ext: str) -> HttpResponse:
    """A file response: PDFs open in the browser, spreadsheets are saved."""
    resp = HttpResponse(content, content_type=CONTENT_TYPES[ext])
    resp["Content-Disposition"] = f'{"inline" if ext == "pdf" else "attachment"}; filename="{name}.{ext}"'
    return resp


def document_response(doc) -> FileResponse:
    """An uploaded case document (``cases.CaseDocument``) as stored: a PDF opens in the browser, anything
    else is saved (an uploaded file never renders as a page of this site); its name made header-safe."""
    resp = FileResponse(doc.file.open("rb"), content_type=doc.content_type)
    disposition = "inline" if doc.content_type == "application/pdf" else "attachment"
    resp["Content-Disposition"] = f'{disposition}; filename="{get_valid_filename(doc.original_name)}"'
    return resp
