"""A list's downloads (``web.lists.ListPage`` inherits ``ListExports``): ``?export=csv|xlsx`` answers every
matching row in the page's order, the columns shown, each cell as a spreadsheet takes it (``plain``) and through
``web.files.safe_cell``; a CSV streams row by row, a workbook is written in openpyxl's write-only mode (split into
sheets at Excel's row limit). An Excel download of more than ``settings.LIST_EXPORT_JOB_ROWS`` rows is a job
(issue 29; ``set_large_export``, registered by the jobs app); so is an older direct Excel URL's past as many rows
(``large_export``: the same job, the same rule)."""
from __future__ import annotations

import csv
import tempfile
from datetime import date, datetime
from decimal import Decimal

from django.conf import settings as django_settings
from django.http import FileResponse, StreamingHttpResponse
from django.utils import timezone
from django.utils.html import strip_tags
from django.utils.safestring import SafeData
from django_tables2.rows import BoundRow

from stormwater.web.files import CONTENT_TYPES, safe_cell

EXPORT_FORMATS = {"csv": "CSV", "xlsx": "Excel"}
EXCEL_MAX_ROWS = 1_048_576  # Excel's rows on one worksheet (header included); more continue on a next sheet
CHUNK = 2000  # rows read from the database at a time while exporting
# An Excel download of more rows than settings.LIST_EXPORT_JOB_ROWS is made by a background job (issue 29: a
# workbook is built whole before its first byte is sent; 400k rows took 233 s, past the server's timeout). The
# jobs app registers how (``set_large_export``: web imports no domain); a CSV streams row by row and never needs it.
LIST_EXPORT_JOB_ROWS = 5000
# The request attribute saying "make the file here": set by the job that makes it (never by a browser), to its
# ``progress(done, total)``.
EXPORT_HERE = "_stormwater_export_here"
_large_export = None


def set_large_export(handler) -> None:
    """``handler(request, params, what) -> HttpResponse``: what answers an Excel download too large for a request
    (the jobs app's ``list_export`` kind: start the job with ``params`` — the download's path, query and name —
    show its page, saying ``what`` is too many, e.g. "12,000 accounts")."""
    global _large_export
    _large_export = handler


def export_job_limit() -> int:
    return getattr(django_settings, "LIST_EXPORT_JOB_ROWS", LIST_EXPORT_JOB_ROWS)


def made_here(request) -> bool:
    """The request is the ``list_export`` job making the file (never a browser's)."""
    return bool(getattr(request, EXPORT_HERE, False))


def export_progress(request):
    """``each(n)`` for the writer of a direct URL's Excel file (``web.files.xlsx_response``): in the job making it, its
    progress every CHUNK rows (the total is not counted again); in a request, nothing."""
    progress = getattr(request, EXPORT_HERE, None)
    if not callable(progress):
        return lambda n: None
    return lambda n: progress(n) if n % CHUNK == 0 else None


def large_export(request, fmt: str, rows, *, name: str, noun: str = "rows"):
    """A direct download URL's Excel file (``/collections/aging.xlsx``, a commitment's ``export.xlsx``, the cashier's
    and the fund's reports …) past ``LIST_EXPORT_JOB_ROWS`` rows: the same ``list_export`` job a list page starts, run
    on this URL (its path and query) as the person asking, and its page; else None (build it here: a small town
    still gets its file directly, and so does the job itself). ``rows``: the number of rows, or a function giving
    it (counted only for an Excel download)."""
    if fmt != "xlsx" or _large_export is None or made_here(request):
        return None
    n = rows() if callable(rows) else rows
    if n <= export_job_limit():
        return None
    return _large_export(request, {"path": request.path_info, "query": request.GET.urlencode(), "name": name},
                         f"{n:,} {noun}")


class ListExports:
    """The downloads of a list page (a mixin of ``ListPage``: it reads ``request``, ``param``, ``url``, ``count``,
    ``queryset``, ``table``, ``noun`` and ``export_name``)."""

    def export_response(self):
        """The download asked for by ``?export=csv|xlsx``, else None: every matching row in the page's order."""
        fmt = self.request.GET.get(self.param("export"))
        if fmt not in EXPORT_FORMATS:
            return None
        if fmt == "xlsx" and self.export_in_job:
            return _large_export(self.request, self.export_job_params, self.noun_count)
        name = f"{self.export_name}-{timezone.localdate():%Y-%m-%d}"
        return (self._csv(name) if fmt == "csv" else self._xlsx(name))

    @property
    def export_job_params(self) -> dict:
        """The params of the job that makes this list's Excel file (the page's form posts them; jobs/kinds)."""
        return {"path": self.request.path_info, "query": self.url(export="xlsx", page=None).partition("?")[2],
                "name": self.export_name}

    @property
    def export_in_job(self) -> bool:
        """An Excel download of more than LIST_EXPORT_JOB_ROWS rows is a job (``set_large_export``), but in the
        job itself."""
        return _large_export is not None and not made_here(self.request) and self.count > export_job_limit()

    def export_columns(self):
        return [c for c in self.table.columns.iterall() if not c.column.exclude_from_export and c.visible]

    def export_rows(self):
        """The header, then one row of plain values (numbers, dates, text) per matching record, read in chunks."""
        cols = self.export_columns()
        yield [str(c.header) for c in cols]
        for record in self.queryset.iterator(chunk_size=CHUNK):
            row = BoundRow(record, table=self.table)
            yield [plain(row.get_cell_value(c.name)) for c in cols]

    def _csv(self, name: str) -> StreamingHttpResponse:
        class _Echo:
            def write(self, value):
                return value

        w = csv.writer(_Echo())
        chunks = (w.writerow([safe_cell(v) for v in row]).encode() for row in self.export_rows())
        resp = StreamingHttpResponse(chunks, content_type=CONTENT_TYPES["csv"])
        resp["Content-Disposition"] = f'attachment; filename="{name}.csv"'
        return resp

    def _xlsx(self, name: str) -> FileResponse:
        from openpyxl import Workbook  # only exports need it

        wb = Workbook(write_only=True)
        sheet_name = self.noun[1].capitalize()[:24]
        rows = self.export_rows()
        header = [safe_cell(h) for h in next(rows)]
        ws, sheets, on_sheet = wb.create_sheet(sheet_name), 1, 1
        ws.append(header)
        progress = getattr(self.request, EXPORT_HERE, None)  # the job making it: progress(done, total)
        written = 0
        for row in rows:
            if on_sheet == EXCEL_MAX_ROWS:
                sheets += 1
                ws, on_sheet = wb.create_sheet(f"{sheet_name} ({sheets})"), 1
                ws.append(header)
            ws.append([safe_cell(v) for v in row])
            on_sheet += 1
            written += 1
            if callable(progress) and written % CHUNK == 0:
                progress(written, self.count)
        tmp = tempfile.TemporaryFile(prefix="stormwater-list-", suffix=".xlsx")
        wb.save(tmp)
        tmp.seek(0)
        resp = FileResponse(tmp, content_type=CONTENT_TYPES["xlsx"])
        resp["Content-Disposition"] = f'attachment; filename="{name}.xlsx"'
        resp.export_rows = written
        return resp


def plain(value):
    """A cell as a spreadsheet takes it: numbers, Decimals, dates and booleans as they are, text as text."""
    if isinstance(value, datetime) and timezone.is_aware(value):
        return timezone.localtime(value).replace(tzinfo=None)
    if value is None or isinstance(value, (int, float, Decimal, date, bool)):
        return value
    if isinstance(value, SafeData):  # a cell whose only form is its HTML (render_FOO without value_FOO)
        return strip_tags(value).strip()
    return str(value)
