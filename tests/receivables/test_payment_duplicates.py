"""Issue 16 "Preview, confirm, undo": a payment matching one already posted (account, amount, reference,
date received) asks for confirmation — on the Collector's page (a checkbox at the field, everything typed
kept) and in the API (``confirm_duplicate``: true). A reversed payment does not count (a bounced check
paid again is not a duplicate)."""
import json
from datetime import date
from decimal import Decimal as D

from stormwater.receivables.models import Payment
from stormwater.receivables.selectors import payment_duplicates
from stormwater.receivables.services import payment_post, payment_reverse
from stormwater.utility.models import Account

PAY = {"pay-account": "SW-02-01-1", "pay-amount": "100.00", "pay-received_on": "2026-10-01",
       "pay-method": "check", "pay-reference": "5001"}


def test_the_selector_matches_account_amount_reference_and_date(personas, billed):
    a = Account.objects.get(number="SW-02-01-1")
    p = payment_post(account=a, amount=D("100"), received_on=date(2026, 10, 1), reference="5001", acting_user=None)
    hit = dict(account=a, amount=D("100.00"), received_on=date(2026, 10, 1), reference=" 5001 ")
    assert list(payment_duplicates(**hit)) == [p]
    assert not payment_duplicates(**{**hit, "amount": D("100.01")}).exists()
    assert not payment_duplicates(**{**hit, "reference": "5002"}).exists()
    assert not payment_duplicates(**{**hit, "received_on": date(2026, 10, 2)}).exists()
    payment_reverse(payment=p, reason="NSF", reversed_on=date(2026, 10, 5), acting_user=None)
    assert not payment_duplicates(**hit).exists()


def test_the_page_asks_before_posting_the_same_payment_again(client_for, personas, billed):
    c = client_for(personas["collector"])
    assert c.post("/collections/", PAY).status_code == 302
    r = c.post("/collections/", PAY)
    page = r.content.decode()
    assert r.status_code == 400 and Payment.objects.count() == 1
    assert 'id="id_pay-confirm_duplicate_error"' in page and "already posted" in page
    assert 'value="SW-02-01-1"' in page and 'value="5001"' in page and 'value="100.00"' in page
    r = c.post("/collections/", {**PAY, "pay-confirm_duplicate": "on"})
    assert r.status_code == 302 and Payment.objects.count() == 2


def test_the_api_refuses_a_duplicate_unless_confirmed(client_for, personas, billed):
    c = client_for(personas["collector"])
    body = {"account": "SW-02-01-1", "amount": "100.00", "received_on": "2026-10-01", "reference": "5001"}
    post = lambda b: c.post("/api/payments/", json.dumps(b), content_type="application/json")  # noqa: E731
    first = post(body)
    assert first.status_code == 201
    again = post(body)
    assert again.status_code == 400 and "confirm_duplicate" in again.json()["error"]
    assert again.json()["duplicates"][0]["id"] == first.json()["id"]
    assert Payment.objects.count() == 1
    assert post({**body, "confirm_duplicate": "yes"}).status_code == 400  # a flag is a JSON boolean
    assert post({**body, "confirm_duplicate": True}).status_code == 201 and Payment.objects.count() == 2
