"""Lockbox and processor payment files on the import pipeline (issue 20 "Every importer on the pipeline … lockbox
and processor payment files"): read with the encoding detected (never refused or replaced for an accent), the whole
file validated before anything posts — a cut-off row is refused, never posted with a blank reference —, a binary or
empty file named for what it is, row and column findings, a dry run, and an import record with the file's checksum
and its results. The posting rules stay receivables' (tests/receivables/test_lockbox.py, test_wrong_today.py)."""
import hashlib
from decimal import Decimal as D

import pytest

from stormwater.imports.models import ImportRecord
from stormwater.receivables.models import Payment, PaymentBatch
from stormwater.receivables.services import BatchRejected, payment_batch_post

LOCKBOX = ("account,amount,received_on,reference\n"
           "SW-01-01-1,53.16,2026-10-05,1001\n"
           "SW-02-01-2,100.00,2026-10-06,1002\n")
PROCESSOR = ("Confirmation Number,Account Number,Amount,Payment Date,Payer\n"
             "IC-1001,SW-01-01-1,$53.16,10/05/2026,Zoë Owner\n"
             "IC-1002,SW-02-01-2,\"1,000.00\",10/06/2026,Shops LLC\n")


def post(content: bytes, name="lockbox.csv", **kw):
    return payment_batch_post(filename=name, content=content, acting_user=None, **kw)


def test_a_cut_off_last_row_posts_nothing_and_names_the_row(billed):
    cut = LOCKBOX + "SW-02-01-1,200.00,2026-10-07"  # the reference column cut off with the file
    with pytest.raises(BatchRejected) as e:
        post(cut.encode())
    assert "row 4 (3 of 4 fields)" in str(e.value) and "truncated" in str(e.value)
    assert not Payment.objects.exists() and not PaymentBatch.objects.exists()


def test_a_latin1_lockbox_file_is_read_and_said_so(billed):
    text = LOCKBOX.replace(",1002\n", ",Café-1002\n")
    r = post(text.encode("latin-1"))
    assert r.posted == 2 and Payment.objects.filter(reference="Café-1002").exists()
    assert "Windows-1252" in r.message


def test_a_latin1_processor_file_posts(client_for, personas, billed):
    c = client_for(personas["collector"])
    r = c.post("/api/payments/batch/?format=processor", PROCESSOR.encode("latin-1"), content_type="text/csv")
    assert r.status_code == 201 and r.json()["posted"] == 2, r.content
    assert any(p["code"] == "encoding" for p in r.json()["problems"])


@pytest.mark.parametrize("content, message", [
    (b"", "the file is empty"),
    (b"account,amount,received_on,reference\n", "no data rows"),
    (b"PK\x03\x04" + b"\x00" * 200, "a zip archive or an Excel (.xlsx) workbook"),
    (b"%PDF-1.4\n" + b"x" * 200, "a PDF document"),
    (b"account,amount,amount,received_on,reference\nSW-01-01-1,1.00,1.00,2026-10-05,9\n", "names a column twice"),
    (b'account,amount,received_on,reference\nSW-01-01-1,1.00,2026-10-05,"9\n', "unterminated quote"),
])
def test_files_that_are_not_a_payment_table_are_named_for_what_they_are(billed, content, message):
    with pytest.raises(BatchRejected) as e:
        post(content, name="bank.csv")
    assert message in str(e.value) and "bank.csv" in str(e.value), str(e.value)
    assert not Payment.objects.exists()
    rec = ImportRecord.objects.get(kind="lockbox")
    assert rec.outcome == "refused" and rec.checksum == hashlib.sha256(content).hexdigest()


def test_row_findings_name_the_row_and_the_column(billed):
    bad = LOCKBOX + "SW-01-01-2,10.00,2026-10-66,1003\nSW-01-01-2,-5.00,2026-10-06,1004\n"
    with pytest.raises(BatchRejected) as e:
        post(bad.encode())
    problems = e.value.json_detail()["problems"]
    assert [p["ids"] for p in problems] == [["row 4 (received_on)"], ["row 5 (amount)"]]
    assert e.value.json_detail()["rows"][0].startswith("row 4: received_on")  # the existing key stays


def test_every_payment_file_leaves_an_import_record(billed):
    content = LOCKBOX.encode()
    post(content)
    rec = ImportRecord.objects.get(kind="lockbox")
    assert rec.outcome == "applied" and rec.checksum == hashlib.sha256(content).hexdigest()
    assert rec.counts == {"rows": 2, "posted": 2, "skipped": 0, "total": "153.16"} and rec.content_checksum
    post(content, name="copy.csv")  # the same bytes
    post(LOCKBOX.replace("\n", "\r\n").encode(), name="crlf.csv")  # the same content, other bytes
    recs = ImportRecord.objects.filter(kind="lockbox").order_by("id")
    assert [r.outcome for r in recs] == ["applied", "unchanged", "unchanged"]
    assert len({r.content_checksum for r in recs}) == 1


def test_a_dry_run_lists_what_would_post_and_posts_nothing(billed):
    post(LOCKBOX.encode())
    tuesday = LOCKBOX + "SW-02-01-1,200.00,2026-10-07,1003\n"
    r = post(tuesday.encode(), dry_run=True)
    assert r.posted == 1 and r.total == D("200.00") and r.skipped == (2, 3) and r.batch is None
    assert "would post" in r.message
    assert Payment.objects.count() == 2 and ImportRecord.objects.filter(kind="lockbox").count() == 1


def test_the_processor_file_is_recorded_with_its_own_checksum(client_for, personas, billed):
    c = client_for(personas["collector"])
    c.post("/api/payments/batch/?format=processor", PROCESSOR, content_type="text/csv")
    rec = ImportRecord.objects.get(kind="processor_payments")
    assert rec.outcome == "applied" and rec.checksum == hashlib.sha256(PROCESSOR.encode()).hexdigest()
    r = c.post("/api/payments/batch/?format=processor&dry_run=1", PROCESSOR, content_type="text/csv")
    assert r.status_code == 200 and r.json()["dry_run"] is True and r.json()["posted"] == 0
