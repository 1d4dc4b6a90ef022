"""Rows of the fund reports for CSV and Excel (written by stormwater.web.files)."""
from __future__ import annotations

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
