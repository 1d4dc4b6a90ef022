"""``stormwater books check`` (issue 25): clean on sound books, a trial balance by fund and account, and every break
listed with a non-zero exit on a hand-corrupted copy — a ledger row posted past the services with the wrong bucket,
a bill run's stored total edited by raw SQL; the daily sweep keeps the result and a break shows on the Director's and
the Collector's home (not on a DPW staff member's)."""
from __future__ import annotations

import io
import json
from datetime import date
from decimal import Decimal as D

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from stormwater.receivables.bookcheck import check_books
from stormwater.receivables.models import BooksCheck
from stormwater.receivables.services import payment_post
from stormwater.utility.models import Account, BillRun, Component, EntryKind, LedgerEntry


def _check(*args) -> tuple[int, str]:
    """(exit status, what it printed) of ``stormwater books check ARGS``."""
    out = io.StringIO()
    try:
        call_command("books", "check", *args, stdout=out)
        return 0, out.getvalue()
    except CommandError as e:
        assert "break(s) in the books" in str(e)
        return e.returncode, out.getvalue()


@pytest.fixture
def books(billed):
    house = Account.objects.get(parcel=billed["house"], unit=None)
    payment_post(account=house, amount=D("30.00"), received_on=date(2026, 10, 1), reference="101", acting_user=None)
    return house


def test_sound_books_are_clean_with_a_trial_balance_by_fund_and_account(books):
    code, out = _check("--json", "--as-of", "2027-05-01")
    assert code == 0
    rep = json.loads(out)
    assert rep["clean"] is True and rep["breaks"] == []
    tb = {(t["fund"], t["account"]): t for t in rep["trial_balance"]}
    # The receivable (6100-123400): every bill charged, less the $30 received (cash 6100-104000).
    assert tb[("6100", "104000")]["debit"] == "30.00"
    assert D(tb[("6100", "123400")]["credit"]) == D("30.00")
    assert rep["trial_balance_total"]["debit"] == rep["trial_balance_total"]["credit"]
    code, text = _check("--as-of", "2027-05-01")
    assert code == 0 and "Trial balance by fund and account" in text and "Clean" in text


def test_a_ledger_row_past_the_services_and_an_edited_run_total_are_each_listed(books):
    # A payment's line posted by hand to the interest bucket with nothing owed there (the bucket goes below zero),
    # and the run's stored total raised by raw SQL (the bill run is not append-only: its state changes).
    inst = books.bills.get().installments.get(seq=1)
    LedgerEntry.objects.create(account=books, kind=EntryKind.PAYMENT, component=Component.INTEREST,
                               amount=D("-5.00"), effective_on=date(2026, 10, 2), bill=inst.bill, installment=inst,
                               memo="typed in by hand")
    run = BillRun.objects.get()
    with connection.cursor() as c:
        c.execute(f"UPDATE {BillRun._meta.db_table} SET total_billed = total_billed + 1 WHERE id = %s", [run.pk])
    report = check_books(as_of=date(2027, 5, 1))
    assert not report.clean
    found = {(b.check, b.account) for b in report.breaks}
    assert ("bucket", books.number) in found
    assert ("run_total", "") in found
    bucket = next(b for b in report.breaks if b.check == "bucket")
    assert dict(bucket.amounts) == {"interest": "-5.00"}
    code, out = _check("--as-of", "2027-05-01")
    assert code == 1
    assert (f"- [bucket] {books.number} installment {inst.pk}: the interest of installment 1 is below zero "
            "[interest -5.00]") in out
    assert f"bill run {run.pk}" in out and "BROKEN" in out
    code, out = _check("--json", "--as-of", "2027-05-01")
    rep = json.loads(out)
    assert code == 1 and rep["clean"] is False
    assert {"check": "run_total", "account": "", "ref": f"bill run {run.pk} (FY2027)",
            "what": "the bill run's count or total is not its bills'",
            "amounts": {"total_billed": str(run.total_billed + 1), "sum_of_bills": str(run.total_billed),
                        "bill_count": str(run.bill_count), "bills": str(run.bill_count)}} in rep["breaks"]


def test_the_daily_sweep_keeps_the_check_and_a_break_is_on_the_collectors_and_directors_home(books, personas,
                                                                                             client_for, at):
    at(date(2027, 5, 1))
    call_command("daily", "--day", "2027-05-01", stdout=io.StringIO())
    assert BooksCheck.objects.get().clean
    home = client_for(personas["collector"]).get("/")
    assert "The books do not balance" not in home.content.decode()
    # An entry on the house's bill posted to another account (a corruption no service makes).
    other = Account.objects.exclude(pk=books.pk).filter(bills__isnull=False).first()
    inst = books.bills.get().installments.get(seq=1)
    LedgerEntry.objects.create(account=other, kind=EntryKind.PAYMENT, component=Component.PRINCIPAL,
                               amount=D("-1.00"), effective_on=date(2026, 10, 2), bill=inst.bill, installment=inst)
    call_command("daily", "--day", "2027-05-01", "--force", stdout=io.StringIO())
    last = BooksCheck.objects.latest("id")
    assert not last.clean and any(b["account"] == other.number for b in last.breaks)
    for who in ("collector", "director"):
        page = client_for(personas[who]).get("/").content.decode()
        assert "The books do not balance" in page, who
    assert "The books do not balance" not in client_for(personas["staff"]).get("/").content.decode()
