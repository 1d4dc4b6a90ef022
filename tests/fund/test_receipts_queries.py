"""Fee receipts are summed by the database: the report takes the same queries for 10 payments (and
liens paid) as for 200, on the page, its exports and the API."""
from datetime import date, timedelta
from decimal import Decimal as D

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext

from stormwater.receivables.services import commitment_create, demand_serve, lien_paid_record, payment_post
from stormwater.utility.models import Account
from stormwater.utility.services import bill_run_issue, fiscal_year

Q = "start=2026-07-01&end=2027-06-30&grouping="
URLS = [f"/fund/reports/receipts/?{Q}month", f"/fund/reports/receipts/?{Q}day", f"/fund/reports/receipts.csv?{Q}day",
        f"/fund/reports/receipts.xlsx?{Q}quarter", f"/api/fund/reports/receipts?{Q}day"]


def grow(add_parcels, n):
    new = add_parcels(n)
    label, start, end = fiscal_year(2027)
    bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2026, 9, 15),
                   acting_user=None)
    for i, a in enumerate(Account.objects.filter(parcel__in=new).order_by("pk")):
        if i % 4 == 0:  # a lien paid through the tax bill
            d = demand_serve(account=a, served_on=date(2026, 11, 2), acting_user=None)
            c = commitment_create(tax_fiscal_year=2028, committed_on=date(2026, 11, 20), demands=[d], acting_user=None)
            lien_paid_record(line=c.lines.get(), paid_on=date(2027, 1, 1) + timedelta(days=i), amount=D("30"),
                             acting_user=None)
        else:
            payment_post(account=a, amount=D("5.00"), received_on=date(2026, 9, 20) + timedelta(days=i),
                         acting_user=None)


def count(client, url):
    client.get(url)
    with CaptureQueriesContext(connection) as ctx:
        r = client.get(url)
        if getattr(r, "streaming", False):
            b"".join(r.streaming_content)
    assert r.status_code == 200
    return len(ctx.captured_queries)


@pytest.mark.parametrize("url", URLS)
def test_receipts_take_the_same_queries_for_10_and_200_payments(url, client_for, personas, add_parcels, resolution):
    with time_machine.travel(date(2027, 6, 1), tick=False):
        c = client_for(personas["collector"])
        grow(add_parcels, 10)
        at_10 = count(c, url)
        grow(add_parcels, 190)
        assert count(c, url) == at_10
