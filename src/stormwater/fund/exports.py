"""CSV and Excel of the fund reports (the pattern of utility/exports.py)."""
from __future__ import annotations

import csv
import io
from decimal import Decimal

from stormwater.rules.money import fmt

RECEIPT_COLUMNS = ["period", "start", "end", "receipts", "payment_entries", "reversal_entries"]
RVB_COLUMNS = ["fiscal_year", "as_of", "source", "budgeted", "actual", "percent", "note"]
MONEY_COLUMNS = {"receipts", "budgeted", "actual"}


def receipt_rows(periods):
    for p in periods:
        yield [p.label, p.start.isoformat(), p.end.isoformat(), fmt(p.receipts), p.payments, p.reversals]


def rvb_rows(rvb):
    for r in rvb.rows:
        yield [f"FY{rvb.fiscal_year}", rvb.as_of.isoformat(), r.source, fmt(r.budgeted),
               "" if r.actual is None else fmt(r.actual), "" if r.percent is None else str(r.percent), r.note]
    yield [f"FY{rvb.fiscal_year}", rvb.as_of.isoformat(), "Total", fmt(rvb.budgeted_total), fmt(rvb.actual_total),
           "", f"budget ${fmt(rvb.summary.total)}"]


def to_csv(columns, rows) -> str:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(columns)
    w.writerows(rows)
    return buf.getvalue()


def to_xlsx(sheet: str, columns, rows) -> bytes:
    from openpyxl import Workbook

    wb = Workbook(write_only=True)
    ws = wb.create_sheet(sheet[:31])
    ws.append(columns)
    for row in rows:
        ws.append([Decimal(v) if c in MONEY_COLUMNS and v != "" else v for c, v in zip(columns, row)])
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()
