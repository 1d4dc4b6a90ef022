"""Accounts and payments lists: balances and filters, the owner's own accounts, exports, constant queries."""
from __future__ import annotations

import csv
import io
from datetime import date
from decimal import Decimal as D

import pytest
import time_machine

from stormwater.receivables.services import payment_post, payment_reverse
from stormwater.utility.models import Account, Bill


@pytest.fixture(autouse=True)
def _today():
    with time_machine.travel(date(2027, 6, 1), tick=False):
        yield


def csv_rows(resp):
    assert resp.status_code == 200
    return list(csv.reader(io.StringIO(b"".join(resp.streaming_content).decode())))


@pytest.fixture
def billed(town, bill_fy2027):
    bill_fy2027()
    return town


def test_accounts_by_balance_and_the_owner_sees_only_theirs(client_for, personas, billed):
    house = Account.objects.get(parcel=billed["house"], unit__isnull=True)
    amount = Bill.objects.get(account=house).amount
    payment_post(account=house, amount=amount + D("10.00"), received_on=date(2026, 10, 1), acting_user=None)
    c = client_for(personas["collector"])
    credit = csv_rows(c.get("/accounts/?balance=credit&export=csv"))
    assert [(r[0], r[-1]) for r in credit[1:]] == [(house.number, "-10.00")]
    owes = csv_rows(c.get("/accounts/?balance=owes&export=csv"))
    assert house.number not in {r[0] for r in owes[1:]} and len(owes) > 2
    units = csv_rows(c.get("/accounts/?kind=unit&export=csv"))
    assert {r[3] for r in units[1:]} == {"A", "B", "C"}

    o = client_for(personas["owner"])
    mine = {r[0] for r in csv_rows(o.get("/accounts/?export=csv"))[1:]}
    assert mine == {house.number, Account.objects.get(unit__unit="A").number}
    assert "Shops LLC" not in o.get("/accounts/").content.decode()


def test_payments_list_filters_totals_and_reversals(client_for, personas, billed):
    house = Account.objects.get(parcel=billed["house"], unit__isnull=True)
    shops = Account.objects.get(parcel=billed["shops"])
    p1 = payment_post(account=house, amount=D("20.00"), received_on=date(2026, 10, 1), reference="=cmd|1",
                      acting_user=None)
    payment_post(account=shops, amount=D("300.00"), received_on=date(2026, 11, 2), method="ach", acting_user=None)
    payment_reverse(payment=p1, reason="bounced", reversed_on=date(2026, 10, 20), acting_user=None)
    c = client_for(personas["clerk"])
    html = c.get("/payments/").content.decode()
    assert "2 payments" in html and "$320.00" in html and "reversed" in html
    rows = csv_rows(c.get("/payments/?state=posted&export=csv"))
    assert [r[2] for r in rows[1:]] == ["300.00"]
    rows = csv_rows(c.get("/payments/?received_to=2026-10-31&export=csv"))
    assert rows[1][4] == "'=cmd|1"  # formula injection neutralised (web.files.safe_cell)
    assert client_for(personas["owner"]).get("/payments/").status_code == 403


def test_collections_home_says_how_many_payments_there_are(client_for, personas, billed):
    house = Account.objects.get(parcel=billed["house"], unit__isnull=True)
    for day in range(1, 28):
        payment_post(account=house, amount=D("1.00"), received_on=date(2026, 10, day), acting_user=None)
    html = client_for(personas["collector"]).get("/collections/").content.decode()
    assert "25 most recent of 27" in html and 'href="/payments/"' in html


def test_accounts_and_payments_pages_read_the_same_queries_at_10_and_200(client_for, personas, make_parcels,
                                                                         bill_fy2027, same_queries, db):
    make_parcels(10)
    bill_fy2027()
    c = client_for(personas["collector"])

    def pay_all():
        for a in Account.objects.all():
            payment_post(account=a, amount=D("5.00"), received_on=date(2026, 10, 5), acting_user=None)

    def grow():
        from stormwater.utility.services import bill_run_issue, fiscal_year

        make_parcels(190, start=10)
        label, start, end = fiscal_year(2028)
        bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2027, 5, 3),
                       acting_user=None)
        pay_all()
    pay_all()
    same_queries(c, ["/accounts/?per_page=200&sort=-balance", "/accounts/?balance=owes&q=Maple",
                     "/payments/?per_page=200", "/payments/?state=posted&sort=amount"], grow)
