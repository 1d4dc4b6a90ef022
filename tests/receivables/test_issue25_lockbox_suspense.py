"""Issue 25 item 9: the lockbox suspense queue. Good rows post; a row that matches no account, or repeats a reference
on an account with a different amount, waits in the exceptions list for the Collector to match (to an account),
return or refund; the file's totals reconcile either way (file total = posted + in suspense + returned/refunded).
Written failing first: one unidentifiable row refused the whole file, and the same reference twice on one account
with different amounts posted both."""
from datetime import date
from decimal import Decimal as D

import pytest
from django.urls import reverse

from stormwater.receivables.lockbox import payment_batch_post
from stormwater.receivables.models import Payment, PaymentBatch, SuspenseItem, SuspenseState
from stormwater.receivables.services import CollectionError
from stormwater.receivables.suspense import (file_reconciliation, suspense_match, suspense_refund,
                                             suspense_return)
from stormwater.utility.models import Account

FILE = ("account,amount,received_on,reference\n"
        "SW-01-01-1,26.58,2026-10-05,1001\n"
        "SW-02-01-1,1414.06,2026-10-06,1002\n"
        "SW-99-99-9,10.00,2026-10-06,1003\n"      # no such account
        "SW-01-01-1,30.00,2026-10-06,1001\n"      # check 1001 again on the same account, another amount
        "SW-88-88-8,5.00,2026-10-06,1004\n")      # no such account


def number(parcel):
    return Account.objects.get(parcel=parcel, unit=None).number


def _totals(batch):
    r = file_reconciliation(batch)
    assert r.file_total == r.posted + r.in_suspense + r.returned + r.refunded  # the file's totals reconcile always
    return r


def test_good_rows_post_and_the_others_wait_in_suspense_until_matched_returned_or_refunded(billed, personas):
    c = personas["collector"]
    res = payment_batch_post(filename="lockbox-1006.csv", content=FILE.encode(), acting_user=c)
    assert res.posted == 2 and res.total == D("1440.64") and "3 rows wait in suspense" in res.message
    batch = res.batch
    assert Payment.objects.filter(batch=batch).count() == 2
    # the second check 1001 did not post: the account has the first one only
    assert list(Payment.objects.filter(reference="1001").values_list("amount", flat=True)) == [D("26.58")]
    items = {i.line: i for i in SuspenseItem.objects.filter(file=batch)}
    assert sorted(items) == [4, 5, 6] and all(i.state == SuspenseState.WAITING for i in items.values())
    assert items[4].reason == "no_account" and items[5].reason == "duplicate_reference"
    r = _totals(batch)
    assert (r.file_total, r.posted, r.in_suspense) == (D("1485.64"), D("1440.64"), D("45.00"))

    # match the unknown row to the right account: posted, with the file
    p = suspense_match(item=items[4], account=Account.objects.get(number=number(billed["house2"])),
                       note="owner's new account", acting_user=c)
    assert p.batch == batch and p.amount == D("10.00") and p.received_on == date(2026, 10, 6)
    with pytest.raises(CollectionError, match="no longer waiting"):
        suspense_match(item=items[4], account=p.account, acting_user=c)
    suspense_return(item=items[5], note="second check 1001: sent back to the payer", acting_user=c)
    with pytest.raises(CollectionError, match="payee"):
        suspense_refund(item=items[6], payee="", note="x", acting_user=c)
    suspense_refund(item=items[6], payee="Pat Payer", note="no such account in town", acting_user=c)
    r = _totals(batch)
    assert (r.posted, r.in_suspense, r.returned, r.refunded) == (D("1450.64"), D("0"), D("30.00"), D("5.00"))

    # the same file again posts nothing; a cumulative file does not put the same rows in suspense twice
    assert payment_batch_post(filename="copy.csv", content=FILE.encode(), acting_user=c).already_posted
    more = payment_batch_post(filename="lockbox-1007.csv", content=(FILE + "SW-01-01-2,3.00,2026-10-07,1005\n")
                              .encode(), acting_user=c)
    assert more.posted == 1 and SuspenseItem.objects.count() == 3


def test_a_reference_already_posted_with_another_amount_waits(billed, personas):
    c = personas["collector"]
    payment_batch_post(filename="a.csv", content=FILE.splitlines()[0].encode() + b"\n" +
                       FILE.splitlines()[1].encode() + b"\n", acting_user=c)
    res = payment_batch_post(filename="b.csv", content=b"account,amount,received_on,reference\n"
                             b"SW-01-01-1,62.58,2026-10-09,1001\n", acting_user=c)
    assert res.posted == 0 and SuspenseItem.objects.get().reason == "duplicate_reference"
    assert PaymentBatch.objects.count() == 2  # the file is on record, its row waiting


def test_the_exceptions_list_and_the_files_page(billed, personas, client_for):
    c = personas["collector"]
    batch = payment_batch_post(filename="lockbox-1006.csv", content=FILE.encode(), acting_user=c).batch
    web = client_for(c)
    page = web.get(reverse("suspense_list")).content.decode()
    assert "SW-99-99-9" in page and "SW-88-88-8" in page and "lockbox-1006.csv" in page
    page = web.get(reverse("payment_file", args=[batch.pk])).content.decode()
    assert "$1,485.64" in page and "$1,440.64" in page and "$45.00" in page
    item = SuspenseItem.objects.get(line=4)
    r = web.post(reverse("suspense_act", args=[item.pk, "match"]), {"account": "SW-77-77-7"})
    assert r.status_code == 400 and "no account" in r.content.decode()
    r = web.post(reverse("suspense_act", args=[item.pk, "match"]), {"account": number(billed["house2"])})
    assert r.status_code == 302
    item.refresh_from_db()
    assert item.state == SuspenseState.MATCHED and item.payment.account.number == number(billed["house2"])


def test_the_deposit_and_the_general_ledger_carry_the_suspense(billed, personas):
    """The bank deposits the whole file; GL cash for the period is what was deposited less what was paid back."""
    from stormwater.cashier.gl import gl_journal
    from stormwater.cashier.selectors import deposit_lines
    from stormwater.cashier.services import deposit_create
    from stormwater.townconfig import town_config

    c = personas["collector"]
    batch = payment_batch_post(filename="lockbox-1006.csv", content=FILE.encode(), acting_user=c).batch
    dep = deposit_create(deposited_on=date(2026, 10, 7), bank_amount="1485.64", files=[batch], acting_user=c)
    assert deposit_lines([dep])[0].difference == 0
    items = {i.line: i for i in SuspenseItem.objects.all()}
    suspense_match(item=items[4], account=Account.objects.get(number=number(billed["house2"])), acting_user=c)
    suspense_return(item=items[5], note="sent back", acting_user=c)
    cfg = town_config()

    def account_net(code):
        lines = gl_journal(start=date(2026, 10, 1), end=date(2027, 6, 1), cfg=cfg)
        return sum((x.debit - x.credit for x in lines if x.account == f"{cfg.gl_fund}-{code}"), D(0))

    assert account_net(cfg.gl_cash) == D("1485.64") - D("30.00")
    assert account_net(cfg.gl_lockbox_suspense) == -D("5.00")  # the one row still waiting: owed to someone
