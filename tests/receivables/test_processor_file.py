"""The online payment processor's daily file (issue 17): columns mapped by the town configuration, posted like a
lockbox file with the same duplicate-by-content rule; a resident who paid through the hand-off is posted the
next day."""
import json
from datetime import date
from decimal import Decimal as D

import pytest

from stormwater.receivables.models import Payment

PROCESSOR = ("Confirmation Number,Account Number,Amount,Payment Date,Payer\n"
             "IC-1001,SW-01-01-1,$53.16,10/05/2026,Pat Owner\n"
             "IC-1002,SW-02-01-2,\"1,000.00\",10/06/2026,Shops LLC\n")


def test_the_processor_file_posts_as_ach_with_the_towns_column_mapping(client_for, personas, billed):
    c = client_for(personas["collector"])
    r = c.post("/api/payments/batch/?format=processor", PROCESSOR, content_type="text/csv")
    assert r.status_code == 201 and r.json()["posted"] == 2, r.content
    p = Payment.objects.get(reference="IC-1002")
    assert (p.account.number, p.amount, p.received_on, p.method) == ("SW-02-01-2", D("1000.00"), date(2026, 10, 6),
                                                                      "ach")
    # The next day's file repeats yesterday's rows and adds one: only the new one posts.
    tomorrow = PROCESSOR + "IC-1003,SW-02-01-1,100.00,10/07/2026,Shops LLC\n"
    r = c.post("/api/payments/batch/?format=processor", tomorrow, content_type="text/csv")
    assert r.json()["posted"] == 1 and r.json()["skipped_rows"] == [2, 3] and "already posted" in r.json()["message"]
    assert Payment.objects.count() == 3


def test_a_processor_file_with_other_columns_or_dates_is_refused_naming_them(client_for, personas, billed, town_toml):
    c = client_for(personas["collector"])
    r = c.post("/api/payments/batch/?format=processor", "Ref,Acct,Amt,Date\nX,SW-01-01-1,1.00,10/05/2026\n",
               content_type="text/csv")
    assert r.status_code == 400 and "'Account Number' (for account)" in r.json()["error"]
    r = c.post("/api/payments/batch/?format=processor", PROCESSOR.replace("10/06/2026", "2026-10-06"),
               content_type="text/csv")
    assert r.status_code == 400 and "row 3: received_on" in r.json()["error"]
    town_toml(processor_columns=["account=Acct", "amount=Amt", "received_on=Date", "reference=Ref"],
              processor_date_format="%Y-%m-%d")
    r = c.post("/api/payments/batch/?format=processor", "Ref,Acct,Amt,Date\nX,SW-01-01-1,1.00,2026-10-05\n",
               content_type="text/csv")
    assert r.status_code == 201 and Payment.objects.get().reference == "X"
    assert c.post("/api/payments/batch/?format=nope", "x", content_type="text/csv").status_code == 400


def test_the_processor_file_from_the_collections_page(client_for, personas, billed):
    from django.core.files.uploadedfile import SimpleUploadedFile

    c = client_for(personas["collector"])
    r = c.post("/collections/", {"batch-file": SimpleUploadedFile("ic.csv", PROCESSOR.encode(), "text/csv"),
                                 "batch-kind": "processor"}, follow=True)
    assert r.status_code == 200 and "Posted 2 payments" in r.content.decode()
