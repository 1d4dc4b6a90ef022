"""Exports of a bill run for the Collector: CSV and Excel, one row per installment."""
from __future__ import annotations

from stormwater.web.files import csv_response, xlsx_response

from .models import Installment

COLUMNS = ["bill_number", "account", "parcel_id", "address", "owner_name", "mailing_address", "property_class",
           "impervious_sqft", "erus", "share_percent", "annual_amount", "installment", "installment_amount",
           "issue_date", "due_date"]


def run_rows(run):
    qs = (Installment.objects.filter(bill__run=run)
          .select_related("bill", "bill__account", "bill__parcel").order_by("bill__number", "seq"))
    for i in qs.iterator(chunk_size=2000):
        b = i.bill
        yield [b.number, b.account.number, b.parcel.parcel_id, b.parcel.address, b.owner_name,
               b.mailing_address.replace("\n", ", "), b.property_class, str(b.impervious_sqft), b.erus,
               str(b.share_percent) if b.share_percent is not None else "", str(b.amount), i.seq, str(i.amount),
               i.issue_date.isoformat(), i.due_date.isoformat()]


MONEY_COLUMNS = frozenset({"impervious_sqft", "share_percent", "annual_amount", "installment_amount"})


def run_response(run, fmt: str, *, name: str):
    """The run as a download that streams (issue 15): CSV row by row as the installments are read, Excel
    written in write-only mode to a temporary file and split across sheets at Excel's row limit."""
    if fmt == "csv":
        return csv_response(COLUMNS, run_rows(run), name=name)
    return xlsx_response(run.period_label, COLUMNS, run_rows(run), MONEY_COLUMNS, name=name)
