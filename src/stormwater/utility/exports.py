"""Exports of a bill run for the Collector: CSV and Excel, one row per installment."""
from __future__ import annotations

from stormwater.web.files import csv_response, xlsx_response

from .models import Installment

COLUMNS = ["bill_number", "account", "parcel_id", "address", "owner_name", "mailing_address", "property_class",
           "impervious_sqft", "erus", "share_percent", "annual_amount", "installment", "installment_amount",
           "issue_date", "due_date"]


def run_rows(run):
    """One row per installment, read as plain values in chunks (no model objects: a bill carries its long
    explanation, which no export needs) — a 400,000-row run streams with flat memory."""
    qs = (Installment.objects.filter(bill__run=run).order_by("bill__number", "seq")
          .values_list("bill__number", "bill__account__number", "bill__parcel__parcel_id", "bill__parcel__address",
                       "bill__owner_name", "bill__mailing_address", "bill__property_class", "bill__impervious_sqft",
                       "bill__erus", "bill__share_percent", "bill__amount", "seq", "amount", "issue_date", "due_date"))
    for (number, account, pid, address, owner, mailing, cls, imp, erus, share, annual, seq, amount, issued,
         due) in qs.iterator(chunk_size=2000):
        yield [number, account, pid, address, owner, mailing.replace("\n", ", "), cls, str(imp), erus,
               str(share) if share is not None else "", str(annual), seq, str(amount), issued.isoformat(),
               due.isoformat()]


MONEY_COLUMNS = frozenset({"impervious_sqft", "share_percent", "annual_amount", "installment_amount"})


def run_row_count(run) -> int:
    """The rows of the run's export: one per installment."""
    return Installment.objects.filter(bill__run=run).count()


def run_response(run, fmt: str, *, name: str):
    """The run as a download that streams (issue 15): CSV row by row as the installments are read, Excel
    written in write-only mode to a temporary file and split across sheets at Excel's row limit."""
    if fmt == "csv":
        return csv_response(COLUMNS, run_rows(run), name=name)
    return xlsx_response(run.period_label, COLUMNS, run_rows(run), MONEY_COLUMNS, name=name)
