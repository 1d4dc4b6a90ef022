"""The bills list: paid / partly paid / unpaid, overdue, balance, search, sort, paging with totals over every
matching row, exports of exactly what is shown, the owner's own bills only, constant queries."""
from __future__ import annotations

import csv
import io
from datetime import date
from decimal import Decimal as D

import pytest
import time_machine
from openpyxl import load_workbook

from stormwater.receivables.services import payment_post
from stormwater.utility.models import Account, Bill


@pytest.fixture(autouse=True)
def _today():
    with time_machine.travel(date(2027, 6, 1), tick=False):
        yield


def csv_rows(resp):
    return list(csv.reader(io.StringIO(b"".join(resp.streaming_content).decode())))


@pytest.fixture
def billed(town, bill_fy2027):
    bill_fy2027()
    return town


def test_status_paid_partly_unpaid_and_overdue(client_for, personas, billed):
    house = Account.objects.get(parcel=billed["house"], unit__isnull=True)
    shops = Account.objects.get(parcel=billed["shops"])
    house_bill = Bill.objects.get(account=house)
    payment_post(account=house, amount=house_bill.amount, received_on=date(2026, 10, 1), acting_user=None)
    payment_post(account=shops, amount=D("100.00"), received_on=date(2026, 10, 1), acting_user=None)
    c = client_for(personas["collector"])

    paid = csv_rows(c.get("/bills/?status=paid&export=csv"))
    assert [r[0] for r in paid[1:]] == [house_bill.number]
    partly = csv_rows(c.get("/bills/?status=partly&export=csv"))
    assert [r[0] for r in partly[1:]] == [Bill.objects.get(account=shops).number]
    unpaid = csv_rows(c.get("/bills/?status=unpaid&export=csv"))
    everyone = Bill.objects.count()
    assert len(unpaid) - 1 == everyone - 2
    # Both installments are past due on Jun 1, 2027: the unpaid and the partly paid are overdue, the paid is not.
    overdue = {r[0] for r in csv_rows(c.get("/bills/?overdue=yes&export=csv"))[1:]}
    assert house_bill.number not in overdue and len(overdue) == everyone - 1
    page = c.get("/bills/?status=unpaid").content.decode()
    assert f"{everyone - 2} bills match the filters" in page and "overdue" in page
    # The balance total is over the matching bills: what they were billed less what was paid on them.
    from stormwater.utility.models import LedgerEntry
    owed = sum((e.amount for e in LedgerEntry.objects.filter(bill__isnull=False)), D(0))
    assert f"balance (posted) ${owed:,.2f}" in c.get("/bills/").content.decode()
    partly_bill = Bill.objects.get(account=shops)
    assert f"balance (posted) ${partly_bill.amount - D('100.00'):,.2f}" in c.get("/bills/?status=partly").content.decode()


def test_totals_are_over_every_matching_row_not_the_page(client_for, personas, billed):
    c = client_for(personas["clerk"])
    every = Bill.objects.all()
    billed_total = sum((b.amount for b in every), D(0))
    page = c.get("/bills/?per_page=25&page=1").content.decode()
    assert f"${billed_total:,.2f}" in page  # the footer and the caption: all bills, while the page shows some
    r = c.get("/bills/?per_page=25&export=csv")
    rows = csv_rows(r)
    assert len(rows) - 1 == every.count()
    assert sum(D(x[6]) for x in rows[1:]) == billed_total


def test_export_is_what_is_shown_same_filter_same_order(client_for, personas, billed):
    c = client_for(personas["clerk"])
    html = c.get("/bills/?q=Test&sort=-amount").content.decode()
    rows = csv_rows(c.get("/bills/?q=Test&sort=-amount&export=csv"))
    amounts = [D(r[6]) for r in rows[1:]]
    assert amounts == sorted(amounts, reverse=True)
    assert html.index(rows[1][0]) < html.index(rows[-1][0])
    wb = load_workbook(io.BytesIO(b"".join(c.get("/bills/?q=Test&sort=-amount&export=xlsx").streaming_content)))
    ws = wb.worksheets[0]
    xrows = list(ws.iter_rows(values_only=True))
    assert [x[0] for x in xrows[1:]] == [r[0] for r in rows[1:]]
    assert isinstance(xrows[1][6], (int, float))  # money is a number in Excel


def test_an_owner_sees_only_their_bills(client_for, personas, billed):
    mine = set(Bill.objects.filter(account__parcel__owner__user=personas["owner"]).values_list("number", flat=True))
    mine |= set(Bill.objects.filter(account__unit__owner__user=personas["owner"]).values_list("number", flat=True))
    c = client_for(personas["owner"])
    rows = csv_rows(c.get("/bills/?export=csv"))
    assert {r[0] for r in rows[1:]} == mine
    theirs = Bill.objects.exclude(number__in=mine).first()
    html = c.get(f"/bills/?q={theirs.number}").content.decode()
    assert "0 bills match the filters" in html and f'href="/bills/{theirs.number}/"' not in html


def test_bad_filter_values_are_said_at_the_field_not_a_500(client_for, personas, billed):
    c = client_for(personas["clerk"])
    r = c.get("/bills/?due_from=tomorrow&status=nonsense&page=x&per_page=7&sort=nope")
    assert r.status_code == 200
    html = r.content.decode()
    assert "Some filters could not be used" in html and "Enter a valid date" in html


def test_bills_page_reads_the_same_number_of_queries_at_10_and_200(client_for, personas, make_parcels,
                                                                   bill_fy2027, same_queries, db):
    from stormwater.utility.services import bill_run_issue, fiscal_year

    make_parcels(10)
    bill_fy2027()
    c = client_for(personas["collector"])

    def grow():
        make_parcels(190, start=10)
        label, start, end = fiscal_year(2028)
        bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2027, 5, 3),
                       acting_user=None)
    same_queries(c, "/bills/?per_page=200&sort=-balance&overdue=yes", grow)
