"""Issue 16 "Forms" (done when: "a refused staff form keeps every typed value and marks the field"): the Collector's
row forms (reverse a payment, bills by e-mail, serve demands, close a lien) refused come back as their page (400)
with what was typed and the error at the input; nothing is recorded. The Collector's own pages (commit, back bill,
close the books) re-render their form with the refusal at its field (400)."""
from datetime import date

import pytest

from office_refill import assert_refused
from stormwater.receivables.models import Commitment, CommitmentLine, Demand, PaymentReversal, PeriodClose
from stormwater.receivables.services import commitment_create, demand_serve, payment_post
from stormwater.utility.models import Account, Bill

HOUSE = "SW-02-01-1"


@pytest.fixture
def paid(billed):
    return payment_post(account=Account.objects.get(number=HOUSE), amount="100.00", received_on=date(2026, 10, 1),
                        method="check", reference="5001", acting_user=None)


def test_payment_reversal_without_a_reason(client_for, personas, paid):
    c = client_for(personas["collector"])
    url = f"/payments/{paid.pk}/reverse/"
    r = c.post(url, {"reason": "  ", "reversed_on": date.today().isoformat(), "returned_check": "on"})
    assert_refused(r, url, "reason", {"reason": "  ", "returned_check": True})
    assert not PaymentReversal.objects.exists()


def test_payment_reversal_refused_by_the_service(client_for, personas, paid):
    """A closed period refuses the reversal's date: the reason typed stays, the error is on the form."""
    PeriodClose.objects.create(closed_through=date.today())
    c = client_for(personas["collector"])
    url = f"/payments/{paid.pk}/reverse/"
    r = c.post(url, {"reason": "NSF", "reversed_on": date.today().isoformat()})
    assert r.status_code == 400 and not PaymentReversal.objects.exists()
    assert "closed period" in r.content.decode() and 'value="NSF"' in r.content.decode()


def test_paperless_without_an_address(client_for, personas, billed):
    c = client_for(personas["collector"])
    url = f"/accounts/{HOUSE}/paperless/"
    r = c.post(url, {"paperless": "on", "email": "not-an-address"})
    assert_refused(r, url, "email", {"paperless": True, "email": "not-an-address"})


def test_demands_served_on_not_a_date(client_for, personas, billed):
    c = client_for(personas["collector"])
    url = "/collections/demands/"
    r = c.post(url + "?as_of=2026-11-02", {"account": [HOUSE], "served_on": "2026-13-45"})
    assert_refused(r, "", "served_on", {"served_on": "2026-13-45"})  # the form posts to its page
    assert not Demand.objects.exists()


@pytest.fixture
def line(billed):
    d = demand_serve(account=Account.objects.get(number=HOUSE), served_on=date(2026, 11, 2), acting_user=None)
    return commitment_create(tax_fiscal_year=2028, committed_on=date(2026, 11, 17), demands=[d],
                             acting_user=None).lines.get()


@pytest.mark.parametrize("posted, field", [
    ({"paid_on": "2027-05-01", "amount": "12.3.4"}, "amount"),
    ({"paid_on": "May 1", "amount": "1455.33"}, "paid_on"),
    ({"paid_on": "2027-05-01", "amount": "0"}, "amount"),
], ids=["amount-not-a-number", "paid-on-not-a-date", "amount-zero"])
def test_lien_paid_refused(client_for, personas, line, posted, field):
    c = client_for(personas["collector"])
    url = f"/collections/liens/{line.pk}/paid/"
    r = c.post(url, posted)
    assert_refused(r, url, field, posted)
    assert CommitmentLine.objects.get().paid_on is None


def test_commit_in_the_future(client_for, personas, billed):
    d = demand_serve(account=Account.objects.get(number=HOUSE), served_on=date(2026, 11, 2), acting_user=None)
    c = client_for(personas["collector"])
    r = c.post("/collections/commitments/", {"demand": [d.pk], "tax_fiscal_year": "2028", "committed_on": "2099-01-01"})
    assert_refused(r, "", "committed_on", {"tax_fiscal_year": "2028", "committed_on": "2099-01-01"})
    assert not Commitment.objects.exists()


def test_back_bill_period_backwards(client_for, personas, billed):
    c = client_for(personas["collector"])
    posted = {"parcel_id": "01-01-1", "period_start": "2026-07-01", "period_end": "2026-06-01", "issue_date": "2026-11-02"}
    n = Bill.objects.count()
    r = c.post("/collections/back-bill/", posted)
    assert_refused(r, "", "period_end", posted)
    assert Bill.objects.count() == n


def test_close_the_books_in_the_future(client_for, personas, billed):
    c = client_for(personas["collector"])
    r = c.post("/collections/close/", {"closed_through": "2099-01-01"})
    assert_refused(r, "", "closed_through", {"closed_through": "2099-01-01"})
    assert not PeriodClose.objects.exists()
