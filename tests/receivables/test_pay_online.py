"""Paying online as shipped (issue 25, item 13; receivables/online.py, testprocessor.py).

Wrong before: the demo town, as shipped (no town.toml), had no Pay button at all, and with a processor configured
the button was a bare link-out (no confirmation, no return, no "paid, pending settlement"). Now: bill → "Pay $…
online" → the Town's confirmation page → the built-in TEST payment page (marked TEST) → a signed return → the bill
says "Paid online, pending settlement" (the ledger unchanged) → the Collector posts the TEST processor's settlement
file → the payment is in the ledger and the bill is paid from it. A forged, altered or replayed return is refused.

The house (small residential, $53.16 a year) is billed on 2026-09-10 in two installments of $26.58."""
from datetime import date
from decimal import Decimal as D
from urllib.parse import parse_qs, urlsplit

import pytest

from stormwater.utility.models import Bill
from stormwater.utility.services import bill_run_issue, fiscal_year


@pytest.fixture
def house_bill(town, resolution, at, town_toml):
    town_toml()  # the town configuration as shipped: no processor configured
    at(date(2026, 9, 10))
    label, start, end = fiscal_year(2027)
    bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2026, 9, 10),
                   acting_user=None)
    return Bill.objects.get(parcel=town["house"])


def _query(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query, keep_blank_values=True).items()}


def _to_the_test_page(c, bill) -> str:
    """Bill → Pay → confirm → the hand-off's URL (the TEST page's)."""
    page = c.get(f"/bills/{bill.number}/").content.decode()
    link = f'href="/pay/{bill.account.number}/?bill={bill.number}"'
    assert link in page and "Pay $26.58 online" in page and "TEST" in page
    confirm = c.get(f"/pay/{bill.account.number}/?bill={bill.number}")
    text = confirm.content.decode()
    assert confirm.status_code == 200 and "$26.58" in text and bill.account.number in text and "TEST" in text
    assert "Paid online, pending settlement" in text  # what happens, said before paying
    r = c.post(f"/pay/{bill.account.number}/", {"amount": "26.58", "bill": bill.number})
    assert r.status_code == 302 and r["Location"].startswith("/pay/test/?"), r
    return r["Location"]


def test_the_town_as_shipped_pays_online_through_the_test_page_pending_until_settled(
        house_bill, client_for, personas):
    bill = house_bill
    c = client_for(personas["owner"])
    handoff = _to_the_test_page(c, bill)  # failed here before: no Pay button without a configured processor

    from stormwater.receivables.models import OnlinePayment
    from stormwater.receivables.processor import processor_file_post
    from stormwater.receivables.selectors import pay_offer

    q = _query(handoff)
    assert (q["account"], q["amount"], q["bill"]) == (bill.account.number, "26.58", bill.number)
    test_page = c.get(handoff)
    assert test_page.status_code == 200 and "TEST" in test_page.content.decode()
    # a real card number is refused on the TEST page; the test card pays
    refused = c.post("/pay/test/", {**q, "card_number": "4111 1111 1111 1111"})
    assert refused.status_code == 400 and "Never type a real card number" in refused.content.decode()
    back = c.post("/pay/test/", {**q, "card_number": "4242 4242 4242 4242", "card_expiry": "12/30"})
    assert back.status_code == 302 and back["Location"].startswith("http://testserver/pay/return/?")
    done = c.get(back["Location"])
    assert done.status_code == 302 and done["Location"] == f"/bills/{bill.number}/"
    op = OnlinePayment.objects.get()
    assert (op.state, op.amount, op.confirmation[:5]) == ("paid", D("26.58"), "TEST-")
    assert "4242" not in str(OnlinePayment.objects.values().get())  # no card data kept
    page = c.get(f"/bills/{bill.number}/").content.decode()
    assert "Paid online, pending settlement" in page and op.confirmation in page
    assert "Pay $26.58 online" not in page  # not offered twice while it settles
    # not money yet: the ledger owes the same
    assert pay_offer(bill.account, as_of=date(2026, 9, 10), bill=bill).due_now == D("26.58")

    # the Collector downloads the TEST processor's settlement file and posts it as the processor's daily file
    coll = client_for(personas["collector"])
    assert "Download the TEST processor" in coll.get("/collections/").content.decode()
    csv = b"".join(coll.get("/pay/test/settlement.csv").streaming_content)
    assert csv.decode().splitlines() == ["Account Number,Amount,Payment Date,Confirmation Number",
                                         f"{bill.account.number},26.58,09/10/2026,{op.confirmation}"]
    res = processor_file_post(filename="test-settlement.csv", content=csv, acting_user=personas["collector"])
    assert res.posted == 1
    page = client_for(personas["owner"]).get(f"/bills/{bill.number}/").content.decode()
    assert "pending settlement" not in page and "Partly paid" in page  # the first of two installments is paid
    assert bill.account.payments.get().reference == op.confirmation


def test_production_has_no_test_page_unless_the_town_sets_it(house_bill, client_for, personas, settings, town_toml):
    bill = house_bill
    settings.PRODUCTION = True
    c = client_for(personas["owner"])
    assert "Pay $26.58 online" not in c.get(f"/bills/{bill.number}/").content.decode()
    assert c.get("/pay/test/").status_code == 404
    town_toml(test_payment_page="on")  # the town chose it explicitly (a training server)
    assert "Pay $26.58 online" in c.get(f"/bills/{bill.number}/").content.decode()
    with pytest.raises(RuntimeError, match="test_payment_page"):
        town_toml(test_payment_page="yes")


# --- the signature and the one-time reference ------------------------------------------------------------------

def _returned(op, **changes):
    from stormwater.receivables import online

    back = {"reference": op.reference, "confirmation": "TEST-ABC", "amount": f"{op.amount:.2f}", "status": "paid"}
    back["signature"] = online.sign(op.processor, online.return_values(**back))
    return {**back, **changes}


@pytest.fixture
def started(house_bill, personas):
    from stormwater.receivables import online

    return online.online_payment_start(account=house_bill.account, amount=D("26.58"), bill=house_bill,
                                       acting_user=personas["owner"])


def test_a_forged_altered_or_replayed_return_is_refused(started, client_for, personas):
    from stormwater.receivables import online
    from stormwater.receivables.models import OnlinePayment

    good = _returned(started)
    for bad, why in [({"signature": "0" * 64}, "not signed"), ({"signature": ""}, "not signed"),
                     ({"amount": "0.01"}, "not signed"),  # altered after signing
                     ({"confirmation": "TEST-OTHER"}, "not signed"),
                     ({"reference": "OP-nope"}, "No online payment")]:
        with pytest.raises(online.ReturnRefused, match=why):
            online.online_payment_return({**good, **bad})
    # signed, but for another amount than the Town handed off
    wrong = _returned(started, amount="1.00")
    wrong["signature"] = online.sign("test", online.return_values(**{k: wrong[k] for k in online.RETURN_FIELDS}))
    with pytest.raises(online.ReturnRefused, match="not the 26.58"):
        online.online_payment_return(wrong)
    assert OnlinePayment.objects.get().state == "started"
    # a page forged on the wire is refused by the web page too, and records nothing
    client = client_for(personas["owner"])
    r = client.get("/pay/return/", {**good, "signature": "f" * 64})
    assert r.status_code == 400 and "not signed" in r.content.decode()
    assert online.online_payment_return(good).paid
    with pytest.raises(online.ReturnRefused, match="already used"):
        online.online_payment_return(good)
    assert client.get("/pay/return/", good).status_code == 400


def test_a_declined_return_records_nothing_and_a_test_return_is_refused_where_the_page_is_off(
        started, town_toml):
    from stormwater.receivables import online

    declined = _returned(started, confirmation="", status="declined")
    declined["signature"] = online.sign("test", online.return_values(
        **{k: declined[k] for k in online.RETURN_FIELDS}))
    assert not online.online_payment_return(declined).paid
    town_toml(test_payment_page="off")
    with pytest.raises(online.ReturnRefused, match="TEST payment page is not in use"):
        online.online_payment_return(_returned(started))


def test_the_test_page_refuses_a_hand_off_the_town_did_not_sign(started, client_for, personas):
    from stormwater.receivables import online

    client = client_for(personas["owner"])
    url = online.handoff_url(started, return_url="http://testserver/pay/return/")
    assert client.get(url).status_code == 200
    q = _query(url)
    assert client.get("/pay/test/", {**q, "amount": "0.01"}).status_code == 400
    assert client.get("/pay/test/", {**q, "return_url": "https://evil.example/"}).status_code == 400


def test_a_real_processors_return_needs_the_shared_key(house_bill, personas, settings, town_toml, client_for):
    from stormwater.receivables import online

    town_toml(payment_url_template="https://pay.example.com/longmeadow?acct={account}&amt={amount}&ref={bill}")
    # the confirmation form's POST is answered by a redirect to the processor: the policy lets the form go there
    confirm = client_for(personas["owner"]).get(f"/pay/{house_bill.account.number}/?bill={house_bill.number}")
    assert "form-action 'self' https://pay.example.com;" in confirm["Content-Security-Policy"]
    settings.PAYMENT_PROCESSOR_SECRET = ""
    op = online.online_payment_start(account=house_bill.account, amount=D("26.58"), bill=house_bill,
                                     acting_user=personas["owner"])
    assert op.processor == "hosted"
    url = online.handoff_url(op, return_url="https://town.example/pay/return/")
    assert url.startswith(f"https://pay.example.com/longmeadow?acct={house_bill.account.number}&amt=26.58&ref=")
    back = {"reference": op.reference, "confirmation": "PX-1", "amount": "26.58", "status": "paid"}
    with pytest.raises(online.ReturnRefused, match="not signed"):  # no key: nothing can be verified
        online.online_payment_return({**back, "signature": ""})
    settings.PAYMENT_PROCESSOR_SECRET = "shared-with-the-processor"
    url = online.handoff_url(op, return_url="https://town.example/pay/return/")
    q = _query(url)
    assert online.signature_ok("hosted", [q["acct"], q["amt"], q["ref"], q["reference"], q["return_url"]],
                               q["signature"])
    import hashlib
    import hmac

    sig = hmac.new(b"shared-with-the-processor", "\x1f".join(back.values()).encode(), hashlib.sha256).hexdigest()
    assert online.online_payment_return({**back, "signature": sig}).online.state == "paid"
