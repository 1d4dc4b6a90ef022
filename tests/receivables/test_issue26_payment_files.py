"""Issue 26 "Every file a town sends", payment files (each written failing first): a file cut inside its last value
posts nothing and says so, and the complete file sent again posts each payment once; a payment dated before the
books open is refused. Nothing in the database changes (tests/dbunchanged.py)."""
import pytest
from dbunchanged import nothing_changed

from stormwater.imports.models import ImportRecord
from stormwater.receivables.models import Payment
from stormwater.receivables.processor import processor_file_post
from stormwater.receivables.services import BatchRejected, payment_batch_post

LOCKBOX = ("account,amount,received_on,reference\n"
           "SW-01-01-1,53.16,2026-10-05,REL-1001\n"
           "SW-02-01-2,100.00,2026-10-06,REL-1002\n"
           "SW-02-01-1,20.00,2026-10-07,REL-1003\n")
PROCESSOR = ("Confirmation Number,Account Number,Amount,Payment Date,Payer\n"
             "IC-1001,SW-01-01-1,$53.16,10/05/2026,Zoë Owner\n"
             "IC-1002,SW-02-01-2,\"1,000.00\",10/06/2026,Shops LLC\n"
             "IC-1003,SW-02-01-1,$20.00,10/07/2026,Carol Cole\n")


def post(content: bytes, name="lockbox.csv", **kw):
    return payment_batch_post(filename=name, content=content, acting_user=None, **kw)


def test_a_lockbox_file_cut_inside_its_last_reference_posts_nothing_and_the_complete_file_posts_once(billed):
    cut = LOCKBOX[:-3]  # "REL-10", no final newline
    with nothing_changed(), pytest.raises(BatchRejected) as e:
        post(cut.encode())
    msg = str(e.value)
    assert "lockbox.csv" in msg and "row 4 (reference)" in msg and "'REL-10'" in msg and "cut off" in msg, msg
    assert ImportRecord.objects.get(kind="lockbox").outcome == "refused"
    assert post(LOCKBOX.encode(), name="lockbox-resent.csv").posted == 3
    assert post(LOCKBOX.encode().replace(b"\n", b"\r\n"), name="again.csv").posted == 0
    assert sorted(Payment.objects.values_list("reference", flat=True)) == ["REL-1001", "REL-1002", "REL-1003"]


def test_a_processor_file_whose_last_line_is_cut_posts_nothing(billed):
    cut = PROCESSOR[:PROCESSOR.rindex(",C") + 2]
    with nothing_changed(), pytest.raises(BatchRejected) as e:
        processor_file_post(filename="settle.csv", content=cut.encode(), acting_user=None)
    assert "settle.csv" in str(e.value) and "row 4 (Payer)" in str(e.value), str(e.value)
    assert processor_file_post(filename="settle.csv", content=PROCESSOR.encode(), acting_user=None).posted == 3


@pytest.mark.parametrize("content", [
    LOCKBOX.rstrip("\n"),                                        # complete, only the final newline missing
    LOCKBOX + "SW-01-01-1,7.00,2026-10-08,REL-1004",             # the same, four rows
    LOCKBOX.replace("REL-100", "") + "SW-01-01-1,5.00,2026-10-08,9",  # check numbers of any length: 1, 2, 3, 9
])
def test_a_complete_file_without_a_final_newline_posts(billed, content):
    assert post(content.encode()).posted == content.count("\n")


def test_an_amount_cut_to_fewer_decimal_places_is_a_cut_file(billed):
    text = "account,reference,received_on,amount\nSW-01-01-1,1,2026-10-05,53.16\nSW-02-01-2,2,2026-10-06,100.00\n"
    with nothing_changed(), pytest.raises(BatchRejected, match=r"row 4 \(amount\).*1 decimal places"):
        post((text + "SW-02-01-1,3,2026-10-07,120.5").encode())
    assert post((text + "SW-02-01-1,3,2026-10-07,5.00").encode()).posted == 3  # short, but whole


def test_a_payment_dated_before_the_oldest_fiscal_year_billed_is_refused(billed):
    bad = LOCKBOX.replace("2026-10-06", "1999-10-06")
    with nothing_changed(), pytest.raises(BatchRejected) as e:
        post(bad.encode())
    assert "row 3: received_on: 1999-10-06 is before the books open (2026-07-01, the first day of FY2027" in str(e.value)
    assert e.value.json_detail()["problems"][0]["ids"] == ["row 3 (received_on)"]
    assert post(LOCKBOX.replace("2026-10-06", "2026-07-01").encode()).posted == 3  # the first day of FY2027 is open


def test_the_cashier_cannot_receive_a_payment_before_the_books_open(billed):
    from datetime import date

    from stormwater.receivables.services import CollectionError, payment_post
    from stormwater.utility.models import Account

    with nothing_changed(), pytest.raises(CollectionError, match="before the books open"):
        payment_post(account=Account.objects.get(number="SW-01-01-1"), amount="10.00", received_on=date(1999, 1, 4),
                     acting_user=None)


def test_the_collectors_upload_page_answers_a_refused_file_with_400(billed, client_for, personas):
    from django.core.files.uploadedfile import SimpleUploadedFile

    c = client_for(personas["collector"])
    with nothing_changed():
        r = c.post("/collections/", {"batch-file": SimpleUploadedFile("cut.csv", LOCKBOX[:-3].encode(), "text/csv"),
                                     "batch-kind": "lockbox"})
    assert r.status_code == 400 and "row 4 (reference)" in r.content.decode()
