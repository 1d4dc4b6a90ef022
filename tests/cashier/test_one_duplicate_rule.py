"""Issue 17 "Payments post twice" / "a payment matching an earlier one asks before posting": ONE duplicate rule
(``receivables.selectors.payment_duplicates`` / ``payment_duplicates_each`` with a ``DuplicateRule``) used by
``payment_post`` (``confirm_duplicate``), the payment form and ``POST /api/payments/``, the cashier's window and
``POST /api/receipts/``, and the lockbox and processor files — so a payment entered one way is known to the others."""
import json
from datetime import date
from decimal import Decimal as D

import pytest

from stormwater.cashier.services import receipt_post
from stormwater.receivables.models import Payment
from stormwater.receivables.selectors import (AT_ENTRY, BY_REFERENCE, FILE_ROW, PaymentContent, payment_duplicates,
                                              payment_duplicates_each)
from stormwater.receivables.services import DuplicateSuspected, payment_batch_post, payment_post, payment_reverse
from stormwater.utility.models import Account


def acct(parcel):
    return Account.objects.get(parcel=parcel, unit=None)


def test_the_rules_options(billed):
    a = acct(billed["house"])
    p = payment_post(account=a, amount=D("20"), received_on=date(2026, 10, 20), reference="Chk 555", acting_user=None)
    cash = payment_post(account=a, amount=D("3"), received_on=date(2026, 10, 20), acting_user=None)
    later = dict(account=a, amount=D("20.00"), received_on=date(2026, 10, 27), reference=" CHK 555 ")
    assert list(payment_duplicates(**later, rule=AT_ENTRY)) == [p]  # one check number is one check, any day
    assert not payment_duplicates(**later).exists()  # the default: the same day
    assert list(payment_duplicates(**{**later, "received_on": date(2026, 10, 20)})) == [p]
    assert not payment_duplicates(**{**later, "amount": D("20.01")}, rule=AT_ENTRY).exists()
    # without a reference: the same amount the same day, unless the rule leaves unreferenced payments alone
    same_cash = dict(account=a, amount=D("3"), received_on=date(2026, 10, 20))
    assert list(payment_duplicates(**same_cash, rule=AT_ENTRY)) == [cash]
    assert not payment_duplicates(**same_cash, rule=BY_REFERENCE).exists()
    assert not payment_duplicates(**{**same_cash, "received_on": date(2026, 10, 21)}, rule=AT_ENTRY).exists()
    # reversed: a bounced check paid again is a new payment at the window; a file's row is still that row
    payment_reverse(payment=p, reason="NSF", reversed_on=date(2026, 10, 28), acting_user=None)
    assert not payment_duplicates(**later, rule=AT_ENTRY).exists()
    assert list(payment_duplicates(**{**later, "received_on": date(2026, 10, 20)}, rule=FILE_ROW)) == [p]
    # many at once (a file): one answer per payment, in one query
    many = [PaymentContent(a.pk, D("20.00"), date(2026, 10, 20), "chk 555"), PaymentContent(a.pk, D("3"),
                                                                                            date(2026, 10, 20)),
            PaymentContent(a.pk, D("4"), date(2026, 10, 20))]
    assert payment_duplicates_each(many, rule=FILE_ROW) == [[p], [cash], []]


def test_a_check_taken_at_the_window_is_not_posted_again_by_the_lockbox_file(billed, personas):
    house = acct(billed["house"])
    receipt_post(account=house, amount="26.75", tender="check", reference="4417", received_on=date(2026, 11, 2),
                 acting_user=personas["collector"])
    csv = f"account,amount,received_on,reference\n{house.number},26.75,2026-11-02,4417\n"
    r = payment_batch_post(filename="lockbox.csv", content=csv.encode(), acting_user=personas["collector"])
    assert r.posted == 0 and r.already_posted and Payment.objects.count() == 1


def test_a_check_posted_by_a_file_is_asked_at_the_window_and_in_both_apis(billed, personas, client_for):
    house = acct(billed["house"])
    csv = f"account,amount,received_on,reference\n{house.number},26.75,2026-10-30,4417\n"
    assert payment_batch_post(filename="lockbox.csv", content=csv.encode(), acting_user=personas["collector"]).posted
    # keyed again at the window three days later: the same check number, so the cashier is asked
    with pytest.raises(DuplicateSuspected, match="already posted"):
        receipt_post(account=house, amount="26.75", tender="check", reference="4417",
                     acting_user=personas["collector"])
    c = client_for(personas["collector"])
    body = {"account": house.number, "amount": "26.75", "received_on": "2026-11-02", "reference": "4417"}
    r = c.post("/api/payments/", json.dumps(body), content_type="application/json")
    assert r.status_code == 400 and r.json()["duplicates"][0]["reference"] == "4417"
    r = c.post("/api/receipts/", json.dumps({**body, "tender": "check"}), content_type="application/json")
    assert r.status_code == 400 and r.json()["duplicate_of"][0]["reference"] == "4417"
    assert Payment.objects.count() == 1


def test_a_cumulative_file_does_not_repost_a_row_that_bounced_since(billed, personas):
    house = acct(billed["house"])
    monday = f"account,amount,received_on,reference\n{house.number},26.75,2026-10-26,4417\n"
    payment_batch_post(filename="mon.csv", content=monday.encode(), acting_user=personas["collector"])
    payment_reverse(payment=Payment.objects.get(), reason="NSF", reversed_on=date(2026, 10, 28), acting_user=None)
    tuesday = monday + f"{house.number},10.00,2026-10-27,4418\n"
    r = payment_batch_post(filename="tue.csv", content=tuesday.encode(), acting_user=personas["collector"])
    assert r.posted == 1 and r.skipped == (2,) and Payment.objects.count() == 2


def test_equal_rows_without_reference_post_as_many_times_as_are_new(billed, personas):
    house = acct(billed["house"])
    row = f"{house.number},5.00,2026-10-26,\n"
    head = "account,amount,received_on,reference\n"
    assert payment_batch_post(filename="a.csv", content=(head + row * 2).encode(),
                              acting_user=personas["collector"]).posted == 2
    # the cumulative file carries both again and one more of the same: only the third is new
    r = payment_batch_post(filename="b.csv", content=(head + row * 3).encode(), acting_user=personas["collector"])
    assert r.posted == 1 and r.skipped == (2, 3) and Payment.objects.count() == 3
