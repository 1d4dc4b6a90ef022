"""Issue 16 "Forms" (done when: "a refused staff form keeps every typed value and marks the field"): the Collector's
office forms refused come back as their page (400) with what was typed and the error at the input; nothing is
recorded. Row forms posting elsewhere (e-mail a receipt, issue a certificate, reject a refund) through
``web.postdata.refused``; the office's own pages (take a payment, close a batch, a deposit, a refund, a certificate
request) re-render their Django form (``web/_form.html``) with the refusal at its field."""
from datetime import date
from decimal import Decimal as D

import pytest
from django.urls import reverse

from office_refill import assert_kept, assert_refused, posted_form
from stormwater.cashier.liens import lien_certificate_request
from stormwater.cashier.models import CashBatch, Deposit, LienCertificate, Receipt, RefundState, RefundVoucher
from stormwater.cashier.refunds import refund_request
from stormwater.cashier.services import receipt_post
from stormwater.receivables.services import payment_post
from stormwater.utility.models import Account

HOUSE = "SW-01-01-1"


@pytest.fixture
def receipt(billed, personas):
    return receipt_post(account=Account.objects.get(number=HOUSE), amount=D("20.00"), tender="check",
                        received_on=date(2026, 11, 2), reference="1", payer="", acting_user=personas["collector"])


def test_take_a_payment_amount_not_a_number(client_for, personas, billed):
    c = client_for(personas["collector"])
    posted = {"amount": "NaN", "tender": "cash", "reference": "R-7", "payer": "Pat Payer", "received_on": "2026-11-02"}
    assert_refused(c.post(reverse("cashier_account", args=[HOUSE]), posted), "", "amount", posted)
    assert not Receipt.objects.exists()


def test_take_a_payment_in_the_future(client_for, personas, billed):
    """The service's refusal ("received_on: … is in the future") is at its field, not only at the top."""
    c = client_for(personas["collector"])
    posted = {"amount": "5.00", "tender": "cash", "reference": "", "payer": "Pat", "received_on": "2030-01-01"}
    assert_refused(c.post(reverse("cashier_account", args=[HOUSE]), posted), "", "received_on", posted)
    assert not Receipt.objects.exists()


def test_email_the_receipt_to_no_address(client_for, personas, receipt):
    c = client_for(personas["collector"])
    url = reverse("cashier_receipt_email", args=[receipt.pk])
    assert_refused(c.post(url, {"to": "olivia at example"}), url, "to", {"to": "olivia at example"})


def test_close_a_batch_with_a_count_that_is_not_one(client_for, personas, receipt):
    c = client_for(personas["collector"])
    posted = {"cash": "0", "check": "20.0.0", "card": "0", "ach": "0"}
    assert_refused(c.post(reverse("cashier_batch", args=[receipt.batch_id]), posted), "", "check", posted)
    assert CashBatch.objects.get().closed_at is None


def test_deposit_in_the_future_keeps_the_ticked_batch(client_for, personas, receipt):
    c = client_for(personas["collector"])
    b = receipt.batch
    c.post(reverse("cashier_batch", args=[b.pk]), {"cash": "0", "check": "20.00", "card": "0", "ach": "0"})
    posted = {"deposited_on": "2030-01-01", "bank_amount": "20.00", "bank_reference": "DEP-9"}
    r = c.post(reverse("cashier_deposits"), {**posted, "batch": [b.pk]})
    form = assert_refused(r, "", "deposited_on", posted)
    assert_kept(form, "batch", True)
    assert not Deposit.objects.exists()


def test_counter_certificate_request_for_no_such_parcel(client_for, personas, billed):
    c = client_for(personas["collector"])
    posted = {"parcel_id": "99-99-9", "requester_name": "Dana Attorney", "requester_role": "closing attorney",
              "requester_email": "dana@example.org", "channel": "counter", "fee_reference": "CK 12"}
    assert_refused(c.post(reverse("cashier_liens"), posted), "", "parcel_id", posted)
    assert not LienCertificate.objects.exists()


def test_issue_a_certificate_without_the_fee(client_for, personas, billed):
    cert = lien_certificate_request(parcel=billed["shops"], requester_name="Pat Buyer", acting_user=None)
    c = client_for(personas["collector"])
    url = reverse("cashier_lien", args=[cert.pk])
    assert_refused(c.post(url, {"fee_reference": "   "}), "", "fee_reference", {"fee_reference": "   "})
    cert.refresh_from_db()
    assert cert.issued_on is None


@pytest.fixture
def voucher(billed, personas):
    a = Account.objects.get(number=HOUSE)
    payment_post(account=a, amount=D("100.00"), received_on=date(2026, 10, 1), acting_user=None)
    return refund_request(account=a, amount="10.00", payee="Olivia Owner", reason="overpaid",
                          acting_user=personas["collector"])


def test_reject_a_refund_without_saying_why(client_for, personas, voucher):
    c = client_for(personas["director"])
    url = reverse("cashier_refund_decide", args=[voucher.pk, "reject"])
    assert_refused(c.post(url, {"note": "  "}), url, "note", {"note": "  "})
    voucher.refresh_from_db()
    assert voucher.state == RefundState.REQUESTED
    # Approve is still the form's first button (the one Enter presses), posting to approve.
    page = c.get(reverse("cashier_refunds")).content.decode()
    form = posted_form(page, url)
    approve = reverse("cashier_refund_decide", args=[voucher.pk, "approve"])
    assert form.index(f'formaction="{approve}"') < form.index(">Reject</button>")


def test_request_a_refund_above_the_credit(client_for, personas, voucher):
    c = client_for(personas["collector"])
    posted = {"amount": "500.00", "payee": "Olivia Owner", "payee_address": "1 Elm St\nLongmeadow", "reason": "overpaid"}
    r = c.post(reverse("cashier_refund_new", args=[HOUSE]), posted)
    assert_refused(r, "", "amount", posted)
    assert RefundVoucher.objects.count() == 1
