"""The bad-files suite for payment files (issue 20 "Done when", with the Collector's files of issue 17): each kind of
file towns receive, through the CLI (``stormwater imports payments``) and the web (/collections/), with the named
error or the documented outcome, and nothing posted when nothing should be."""
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.utils.html import escape

from stormwater.receivables.models import Payment
from stormwater.utility.models import LedgerEntry

LOCKBOX = ("account,amount,received_on,reference\n"
           "SW-01-01-1,53.16,2026-10-05,1001\n"
           "SW-02-01-2,100.00,2026-10-06,1002\n")
NEW_ROW = "SW-02-01-1,200.00,2026-10-07,1003\n"

# name, bytes, posted first (a file already on record), expected: ("error", text) or ("ok", payments posted, text)
CASES = {
    "truncated": ("cut.csv", (LOCKBOX + NEW_ROW[:-6]).encode(), None, ("error", "row 4 (3 of 4 fields)")),
    "crlf": ("crlf.csv", LOCKBOX.replace("\n", "\r\n").encode(), None, ("ok", 2, "Posted 2 payments")),
    "utf8_bom": ("bom.csv", b"\xef\xbb\xbf" + LOCKBOX.encode(), None, ("ok", 2, "Posted 2 payments")),
    "latin1": ("latin1.csv", LOCKBOX.replace(",1002", ",Café-1002").encode("latin-1"), None,
               ("ok", 2, "read as Windows-1252")),
    "empty": ("empty.csv", b"", None, ("error", "the file is empty")),
    "header_only": ("header.csv", LOCKBOX.splitlines()[0].encode() + b"\n", None, ("error", "no data rows")),
    "excel_as_csv": ("bank.csv", b"PK\x03\x04" + b"\x00" * 300, None, ("error", "an Excel (.xlsx) workbook")),
    "duplicated_rows": ("dup.csv", (LOCKBOX + LOCKBOX.split("\n", 1)[1]).encode(), None,
                        ("error", "'1001' appears twice for account SW-01-01-1")),
    "comma_in_amount": ("comma.csv", (LOCKBOX + "SW-02-01-1,1,000.00,2026-10-07,1003\n").encode(), None,
                        ("error", "row 4 (5 fields, the header has 4)")),
    # issue 25: a row matching no account waits in suspense; the rest of the file posts
    "unknown_account": ("unknown.csv", (LOCKBOX + "SW-99-99-9,1.00,2026-10-07,1003\n").encode(), None,
                        ("ok", 2, "1 row waits in suspense")),
    "resaved_after_posting": ("resaved.csv", LOCKBOX.replace("\n", "\r\n").encode(), LOCKBOX,
                              ("ok", 0, "already posted")),
    "cumulative": ("tuesday.csv", (LOCKBOX + NEW_ROW).encode(), LOCKBOX,
                   ("ok", 1, "2 rows were already posted")),
}


def state():
    return Payment.objects.count(), LedgerEntry.objects.count()


def setup_case(tmp_path, case):
    from stormwater.receivables.lockbox import payment_batch_post

    name, content, first, _ = CASES[case]
    if first:
        payment_batch_post(filename="monday.csv", content=first.encode(), acting_user=None)
    p = tmp_path / name
    p.write_bytes(content)
    return p


@pytest.mark.parametrize("case", CASES)
def test_through_the_cli(billed, tmp_path, case, capsys):
    path = setup_case(tmp_path, case)
    expect = CASES[case][3]
    before = state()
    if expect[0] == "error":
        with pytest.raises(CommandError) as e:
            call_command("imports", "payments", str(path))
        assert path.name in str(e.value) and expect[1] in str(e.value), str(e.value)
        assert state() == before
        return
    call_command("imports", "payments", str(path))
    assert Payment.objects.count() == before[0] + expect[1]
    assert expect[2] in capsys.readouterr().err
    if case == "latin1":
        assert Payment.objects.filter(reference="Café-1002").exists()


@pytest.mark.parametrize("case", CASES)
def test_through_the_web(billed, client_for, personas, tmp_path, case):
    path = setup_case(tmp_path, case)
    expect = CASES[case][3]
    before = state()
    c = client_for(personas["collector"])
    r = c.post("/collections/", {"batch-file": SimpleUploadedFile(path.name, Path(path).read_bytes(), "text/csv"),
                                 "batch-kind": "lockbox"}, follow=True)
    assert r.status_code == (400 if case == "empty" or expect[0] == "error" else 200)  # refused: 400 (issue 26)
    html = r.content.decode()
    if case == "empty":  # the upload form itself refuses an empty file (Django's FileField): nothing is read
        assert "The submitted file is empty." in html and state() == before
        return
    if expect[0] == "error":
        assert escape(expect[1]) in html, html
        assert state() == before
        return
    assert Payment.objects.count() == before[0] + expect[1]
    assert escape(expect[2]) in html


def test_check_only_on_the_web_posts_nothing(billed, client_for, personas):
    c = client_for(personas["collector"])
    r = c.post("/collections/", {"batch-file": SimpleUploadedFile("a.csv", LOCKBOX.encode(), "text/csv"),
                                 "batch-kind": "lockbox", "batch-check_only": "on"}, follow=True)
    assert "Check only: 2 payments, $153.16, would post" in r.content.decode() and Payment.objects.count() == 0
