"""Paying online (issue 17): the "Pay" button offers the amount due now — past-due and due installments with interest
to date — never an installment not yet issued (unless the town lets the owner pay the whole balance, offered as a
second choice), and never a negative amount: a credit says so ("Credit balance $26.58", nothing to pay).

The house (small residential, $53.16 a year) is billed on 2026-09-10 in two installments of $26.58: the first issued
that day, the second issued 2027-03-10 (Ch. 295 Art. IV ¶B: 1–4 installments, each due 30 days after its issue)."""
from datetime import date
from decimal import Decimal as D

import pytest

from stormwater.receivables.services import payment_post
from stormwater.utility.models import Bill
from stormwater.utility.services import bill_run_issue, fiscal_year



def pay_offer(account, **kw):
    from stormwater.receivables.selectors import pay_offer

    return pay_offer(account, **kw)


PAY = "https://pay.example.com/longmeadow?acct={acct}&amt={amt}&ref={ref}&reference="
CONFIRM = 'href="/pay/{acct}/{query}"'  # the Town's confirmation page before the hand-off (issue 25)


def handed_off(c, acct, amount, **query) -> str:
    """Confirm on the Town's page → where the resident is sent (the processor's page, signed, issue 25)."""
    r = c.post(f"/pay/{acct}/", {"amount": amount, **query})
    assert r.status_code == 302, r.content.decode()[-500:]
    return r["Location"]


@pytest.fixture
def house_bill(town, resolution, at, town_toml):
    town_toml(payment_url_template="https://pay.example.com/longmeadow?acct={account}&amt={amount}&ref={bill}")
    at(date(2026, 9, 10))
    label, start, end = fiscal_year(2027)
    bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2026, 9, 10),
                   acting_user=None)
    bill = Bill.objects.get(parcel=town["house"])
    assert [i.amount for i in bill.installments.order_by("seq")] == [D("26.58"), D("26.58")]
    return bill


def test_pay_offers_the_installment_due_not_the_one_not_yet_issued(house_bill, client_for, personas):
    bill = house_bill
    offer = pay_offer(bill.account, as_of=date(2026, 9, 10), bill=bill)
    assert (offer.due_now, offer.balance, offer.credit) == (D("26.58"), D("53.16"), D("0.00"))
    page = client_for(personas["owner"]).get(f"/bills/{bill.number}/").content.decode()
    assert CONFIRM.format(acct=bill.account.number, query=f"?bill={bill.number}") in page
    assert "whole=1" not in page  # the second installment is not due before 2027-03-10
    assert "Pay $26.58 online" in page
    c = client_for(personas["owner"])
    assert handed_off(c, bill.account.number, "26.58", bill=bill.number).startswith(
        PAY.format(acct=bill.account.number, amt="26.58", ref=bill.number))


def test_the_whole_balance_is_a_second_choice_where_the_town_allows_it(house_bill, client_for, personas, town_toml):
    bill = house_bill
    town_toml(payment_url_template="https://pay.example.com/longmeadow?acct={account}&amt={amount}&ref={bill}",
              pay_whole_balance_online=True)
    page = client_for(personas["owner"]).get(f"/bills/{bill.number}/").content.decode()
    assert CONFIRM.format(acct=bill.account.number, query=f"?bill={bill.number}") in page
    assert CONFIRM.format(acct=bill.account.number, query=f"?bill={bill.number}&amp;whole=1") in page
    assert "Pay the whole balance, $53.16" in page
    c = client_for(personas["owner"])
    assert handed_off(c, bill.account.number, "53.16", bill=bill.number, whole="1").startswith(
        PAY.format(acct=bill.account.number, amt="53.16", ref=bill.number))


def test_after_paying_the_whole_bill_a_credit_says_so_and_nothing_is_offered(house_bill, client_for, personas, at):
    bill = house_bill
    payment_post(account=bill.account, amount=D("53.16"), received_on=date(2026, 9, 10), acting_user=None)
    offer = pay_offer(bill.account, as_of=date(2026, 9, 10))
    assert (offer.due_now, offer.balance, offer.credit) == (D("0.00"), D("0.00"), D("26.58"))
    c = client_for(personas["owner"])
    for url in (f"/bills/{bill.number}/", f"/accounts/{bill.account.number}/", "/portal/"):
        page = c.get(url).content.decode()
        # (the statement's ledger lists the payment's entries as -$26.58 each: that is the ledger, not a balance)
        assert "Balance -$26.58" not in page and ">-$26.58</td></tr></tbody></table></div><p class=\"muted\">Open" \
            not in page, url
        assert "pay.example.com" not in page and 'href="/pay/' not in page, url
    assert "-$26.58" not in c.get(f"/bills/{bill.number}/").content.decode()
    assert "-$26.58" not in c.get("/portal/").content.decode()
    assert "Credit balance $26.58" in c.get(f"/accounts/{bill.account.number}/").content.decode()
    assert "Credit balance $26.58" in c.get("/portal/").content.decode()
    # On 2027-03-10 the second installment is issued and the prepayment has paid it: still nothing to pay.
    at(date(2027, 3, 15))
    offer = pay_offer(bill.account, as_of=date(2027, 3, 15))
    assert (offer.due_now, offer.balance, offer.credit) == (D("0.00"), D("0.00"), D("0.00"))


def test_once_the_second_installment_is_issued_it_is_due_now(house_bill, client_for, personas, at):
    bill = house_bill
    at(date(2026, 9, 20))
    payment_post(account=bill.account, amount=D("26.58"), received_on=date(2026, 9, 20), acting_user=None)
    assert pay_offer(bill.account, as_of=date(2026, 12, 1), bill=bill).due_now == D("0.00")
    at(date(2027, 3, 15))
    offer = pay_offer(bill.account, as_of=date(2027, 3, 15), bill=bill)
    assert (offer.due_now, offer.balance) == (D("26.58"), D("26.58"))
    c = client_for(personas["owner"])
    page = c.get(f"/accounts/{bill.account.number}/").content.decode()
    assert CONFIRM.format(acct=bill.account.number, query="") in page
    assert handed_off(c, bill.account.number, "26.58").startswith(PAY.format(acct=bill.account.number, amt="26.58",
                                                                              ref=""))
