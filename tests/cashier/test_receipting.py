"""The cashier's window (issue 17): find an account, what it owes today, a numbered receipt, duplicates asked."""
from datetime import date
from decimal import Decimal as D

import pytest

from stormwater.cashier.models import BatchState, CashBatch, Receipt
from stormwater.cashier.selectors import account_search, amount_due
from stormwater.cashier.services import DuplicateSuspected, cash_batch_close, receipt_post
from stormwater.receivables.ledger import account_position
from stormwater.receivables.services import CollectionError
from stormwater.utility.models import Account, Bill


def acct(parcel):
    return Account.objects.get(parcel=parcel, unit=None)


def test_find_an_account_every_way(billed):
    house = acct(billed["house"])
    bill = Bill.objects.filter(account=house).first()
    for q in ("olivia", "Olivia Owner", "01-01-1 Test", "01-01-1", bill.number, house.number):
        assert house in account_search(q), q
    # a unit's owner finds the unit's account; a short query finds nothing rather than everything
    assert account_search("O") == []
    assert account_search("zzz-nobody") == []


def test_the_bill_stubs_scanline_finds_its_account(billed):
    """The scanline printed on the bill's stub (utility/scanline.py) read back at the window finds the account;
    a misread check digit finds nothing rather than a wrong account."""
    from stormwater.utility.scanline import scanline_format

    house = acct(billed["house"])
    line = scanline_format(house.number, D("141.06"))
    assert account_search(line) == [house]
    bad = line[:-1] + str((int(line[-1]) + 1) % 10)
    assert account_search(bad) == []


def test_amount_due_today_includes_interest_to_date(billed):
    shops = acct(billed["shops"])
    due = amount_due(shops, as_of=date(2026, 11, 1))
    # first installment $1,414.06 due Oct 13 (rolled), interest from Oct 14: 19 days at 12 % = $8.83
    assert due.items[0].interest == D("8.83")
    assert due.total == account_position(shops, as_of=date(2026, 11, 1)).total
    assert due.total == D("1414.06") + D("8.83")  # the second installment is not issued before Mar 2027


def test_a_check_at_the_window_posts_and_gets_a_numbered_receipt_in_the_cashiers_batch(billed, personas):
    house = acct(billed["house"])
    r = receipt_post(account=house, amount="26.58", tender="check", reference="1001", acting_user=personas["collector"])
    r2 = receipt_post(account=acct(billed["house2"]), amount="10.00", tender="cash", acting_user=personas["collector"])
    assert r.number.startswith("R-") and r2.number > r.number
    assert r.batch == r2.batch and r.batch.state == BatchState.OPEN and r.batch.cashier == personas["collector"]
    assert r.payment.method == "check" and r.payment.reference == "1001"
    # first installment $26.58 due Oct 13, 20 days of interest to Nov 2 = $0.17, paid first (billing ¶C–¶D)
    assert r.balance_before == D("26.75") and r.balance_after == D("0.17")


def test_a_check_needs_its_number(billed, personas):
    with pytest.raises(CollectionError, match="check number"):
        receipt_post(account=acct(billed["house"]), amount="5", tender="check", acting_user=personas["collector"])


def test_a_payment_matching_an_earlier_one_asks_before_posting(billed, personas):
    house = acct(billed["house"])
    receipt_post(account=house, amount="20.00", tender="check", reference="555", acting_user=personas["collector"])
    with pytest.raises(DuplicateSuspected, match="already posted"):
        receipt_post(account=house, amount="20.00", tender="check", reference="555", acting_user=personas["collector"])
    assert Receipt.objects.count() == 1
    # another check number, or another amount, is not a duplicate
    receipt_post(account=house, amount="20.00", tender="check", reference="556", acting_user=personas["collector"])
    # the cashier confirms: it posts
    receipt_post(account=house, amount="20.00", tender="check", reference="555", confirm_duplicate=True,
                 acting_user=personas["collector"])
    assert Receipt.objects.count() == 3
    # cash without a reference: same amount the same day asks too
    receipt_post(account=house, amount="3.00", tender="cash", acting_user=personas["collector"])
    with pytest.raises(DuplicateSuspected):
        receipt_post(account=house, amount="3.00", tender="cash", acting_user=personas["collector"])


def test_closing_a_batch_records_counted_totals_and_over_short(billed, personas):
    c = personas["collector"]
    receipt_post(account=acct(billed["house"]), amount="26.58", tender="check", reference="1", acting_user=c)
    r = receipt_post(account=acct(billed["house2"]), amount="40.00", tender="cash", acting_user=c)
    b = cash_batch_close(batch=r.batch, counted={"cash": "39.00", "check": "26.58"},
                         reason="a dollar short", acting_user=c)
    assert b.state == BatchState.CLOSED
    assert b.expected == {"cash": "40.00", "check": "26.58", "card": "0.00", "ach": "0.00"}
    assert b.counted_total == D("65.58") and b.over_short == D("-1.00")
    with pytest.raises(CollectionError, match="already closed"):
        cash_batch_close(batch=b, counted={}, acting_user=c)
    # the next receipt opens a new batch
    r3 = receipt_post(account=acct(billed["house"]), amount="1.00", tender="cash", acting_user=c)
    assert r3.batch != b and CashBatch.objects.filter(state=BatchState.OPEN).count() == 1
    with pytest.raises(CollectionError, match="unknown tender"):
        cash_batch_close(batch=r3.batch, counted={"bitcoin": "1"}, acting_user=c)


@pytest.mark.django_db(transaction=True)
def test_the_same_check_at_two_windows_at_once_posts_once(town, resolution, personas, race):
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("row locks are a PostgreSQL matter; SQLite serializes writers")
    from stormwater.utility.services import bill_run_issue, fiscal_year

    label, start, end = fiscal_year(2027)
    bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2026, 9, 10),
                   acting_user=None)
    a = acct(town["shops"])

    def window(user):
        return lambda: receipt_post(account=a, amount="100.00", tender="check", reference="5150", acting_user=user)

    results, errors = race(window(personas["collector"]), window(personas["director"]))
    assert len(results) == 1 and [type(e) for e in errors] == [DuplicateSuspected]
    assert Receipt.objects.count() == 1
