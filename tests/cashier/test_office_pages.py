"""The office's pages (issue 17): the window, the receipt PDF and e-mail, batches, deposits, the daily report."""
from decimal import Decimal as D

from django.urls import reverse

from stormwater.cashier.models import BatchState, CashBatch, Deposit, Receipt
from stormwater.notices.models import NoticeSent
from stormwater.receivables.services import payment_batch_post
from stormwater.utility.models import Account

from .conftest import pdf_text


def acct(parcel):
    return Account.objects.get(parcel=parcel, unit=None)


def test_find_by_name_post_a_check_print_the_receipt(billed, personas, client_for):
    c = client_for(personas["collector"])
    house = acct(billed["house"])
    r = c.get(reverse("cashier_window"), {"q": "Olivia"})  # her house and her condominium unit
    assert r.status_code == 200 and reverse("cashier_account", args=[house.number]) in r.content.decode()
    r = c.get(reverse("cashier_window"), {"q": "01-01-1"})  # one account: straight to it
    assert r.status_code == 302 and r["Location"] == reverse("cashier_account", args=[house.number])
    page = c.get(r["Location"])
    assert page.status_code == 200 and "Due now: $26.75" in page.content.decode()
    r = c.post(r["Location"], {"amount": "26.75", "tender": "check", "reference": "4417", "received_on": "2026-11-02"})
    receipt = Receipt.objects.get()
    assert r.status_code == 302 and r["Location"] == reverse("cashier_receipt", args=[receipt.pk])
    text = pdf_text(c.get(reverse("cashier_receipt_pdf", args=[receipt.pk])).content)
    assert receipt.number in text and "$26.75" in text and "4417" in text and "Olivia Owner" in text
    assert "Balance after: $0.00" in text
    r = c.post(reverse("cashier_receipt_email", args=[receipt.pk]), {"to": "olivia@example.org"})
    n = NoticeSent.objects.get(kind="receipt")
    assert n.to == "olivia@example.org" and n.attachment_name == f"receipt-{receipt.number}.pdf"
    r = c.post(reverse("cashier_receipt_email", args=[receipt.pk]), {"to": "not an address"}, follow=True)
    assert "enter an e-mail address" in r.content.decode()


def test_a_duplicate_asks_then_posts_on_confirmation(billed, personas, client_for):
    c = client_for(personas["collector"])
    url = reverse("cashier_account", args=[acct(billed["house"]).number])
    form = {"amount": "10.00", "tender": "check", "reference": "77", "received_on": "2026-11-02"}
    assert c.post(url, form).status_code == 302
    page = c.post(url, form)
    assert page.status_code == 200 and "Already posted?" in page.content.decode()
    assert 'name="confirm_duplicate" value="True"' in page.content.decode() or "confirm_duplicate" in page.content.decode()
    assert Receipt.objects.count() == 1
    assert c.post(url, {**form, "confirm_duplicate": "on"}).status_code == 302
    assert Receipt.objects.count() == 2


def test_bad_input_is_a_message_not_a_500(billed, personas, client_for):
    c = client_for(personas["collector"])
    url = reverse("cashier_account", args=[acct(billed["house"]).number])
    for bad in ({"amount": "NaN", "tender": "cash"}, {"amount": "1e40", "tender": "cash"},
                {"amount": "5", "tender": "check", "received_on": "2026-11-02"},
                {"amount": "5", "tender": "cash", "received_on": "2030-01-01"}):
        r = c.post(url, bad)
        assert r.status_code == 400, bad  # the form again with the error at its field (issue 16 "Forms")
    assert Receipt.objects.count() == 0
    assert c.get(reverse("cashier_account", args=["NOPE"])).status_code == 404
    assert c.get(reverse("cashier_daily"), {"day": "not-a-date"}).status_code == 200


def test_close_batch_deposit_with_a_lockbox_file_and_reconcile(billed, personas, client_for):
    c = client_for(personas["collector"])
    url = reverse("cashier_account", args=[acct(billed["house"]).number])
    c.post(url, {"amount": "20.00", "tender": "check", "reference": "1", "received_on": "2026-11-02"})
    c.post(url, {"amount": "5.00", "tender": "cash", "received_on": "2026-11-02"})
    b = CashBatch.objects.get()
    r = c.post(reverse("cashier_batch", args=[b.pk]), {"cash": "5.00", "check": "20.00", "card": "0", "ach": "0"},
               follow=True)
    assert "closed: counted $25.00." in r.content.decode()
    lockbox = payment_batch_post(filename="lockbox-1102.csv", acting_user=personas["collector"],
                                 content=f"account,amount,received_on,reference\n{acct(billed['shops']).number},"
                                         "100.00,2026-11-02,L-9\n".encode())
    page = c.get(reverse("cashier_deposits")).content.decode()
    assert "lockbox-1102.csv" in page and b.number in page
    r = c.post(reverse("cashier_deposits"), {"batch": [b.pk], "file": [lockbox.batch.pk], "deposited_on": "2026-11-02",
                                             "bank_amount": "125.00", "bank_reference": "DEP-1"}, follow=True)
    assert "it reconciles ($125.00)" in r.content.decode()
    b.refresh_from_db()
    assert b.state == BatchState.DEPOSITED and Deposit.objects.get().bank_amount == D("125.00")
    csv = b"".join(c.get(reverse("cashier_deposits_export", args=["csv"])).streaming_content).decode()
    assert f"D-{Deposit.objects.get().pk:06d}" in csv and "125.00" in csv  # (PostgreSQL sequences are not reset per test)
    # a second deposit cannot take the same batch or file
    r = c.post(reverse("cashier_deposits"), {"file": [lockbox.batch.pk], "deposited_on": "2026-11-02",
                                             "bank_amount": "100.00"})
    assert "already in deposit" in r.content.decode()


def test_a_deposit_that_does_not_match_the_bank_says_by_how_much(billed, personas, client_for):
    c = client_for(personas["collector"])
    c.post(reverse("cashier_account", args=[acct(billed["house"]).number]),
           {"amount": "20.00", "tender": "cash", "received_on": "2026-11-02"})
    b = CashBatch.objects.get()
    c.post(reverse("cashier_batch", args=[b.pk]), {"cash": "20.00", "check": "0", "card": "0", "ach": "0"})
    r = c.post(reverse("cashier_deposits"), {"batch": [b.pk], "deposited_on": "2026-11-02", "bank_amount": "19.00"},
               follow=True)
    assert "the bank credited $19.00, $1.00 less than the $20.00 deposited" in r.content.decode()


def test_daily_cash_report_page_and_export(billed, personas, client_for):
    c = client_for(personas["collector"])
    url = reverse("cashier_account", args=[acct(billed["house"]).number])
    c.post(url, {"amount": "20.00", "tender": "check", "reference": "1", "received_on": "2026-11-02"})
    c.post(url, {"amount": "5.00", "tender": "cash", "received_on": "2026-11-02"})
    page = c.get(reverse("cashier_daily"), {"day": "2026-11-02"}).content.decode()
    assert "Total received: $25.00" in page
    csv = b"".join(c.get(reverse("cashier_daily_export", args=["csv"]), {"day": "2026-11-02"}).streaming_content)
    assert b"window,collector,Check,1,20.00" in csv and b"total,,,2,25.00" in csv


def test_who_may_use_the_office(billed, personas, client_for):
    for role, code in (("owner", 403), ("staff", 403), ("collector", 200), ("director", 200)):
        c = client_for(personas[role])
        assert c.get(reverse("cashier_window")).status_code == code, role
        assert c.get(reverse("cashier_deposits")).status_code == code, role
