"""Every Collector report answers in the same number of queries for 10 accounts as for 200 (issue 15:
"set-based reports"; the demo town's aging page ran 1,951 queries for 487 accounts)."""
from __future__ import annotations

from datetime import date
from decimal import Decimal as D

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from stormwater.receivables.services import demand_serve, payment_post, payment_reverse
from stormwater.utility.models import Account
from stormwater.utility.services import bill_run_issue, fiscal_year

PAGES = [
    "/collections/aging/?as_of=2026-12-31",
    "/collections/delinquency/?as_of=2026-12-31",
    "/collections/demands/?as_of=2026-11-20",
    "/collections/commitments/?as_of=2026-11-20",
    "/collections/",
    "/collections/aging.csv?as_of=2026-12-31",
    "/collections/aging.xlsx?as_of=2026-12-31",
    "/collections/delinquency.csv?as_of=2026-12-31",
    "/api/collections/aging/?as_of=2026-12-31",
]


def grow(add_parcels, n: int) -> None:
    """n more billed accounts: a third partly paid (one in five of those payments bounced), every other
    one served a demand on Nov 2, 2026 (the rest are demand candidates; those are commitment candidates)."""
    new = add_parcels(n)
    label, start, end = fiscal_year(2027)
    bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2026, 9, 10),
                   acting_user=None)
    for i, acct in enumerate(Account.objects.filter(parcel__in=new).order_by("pk")):
        if i % 3 == 0:
            p = payment_post(account=acct, amount=D("10.00"), received_on=date(2026, 10, 5), acting_user=None)
            if i % 5 == 0:
                payment_reverse(payment=p, reason="NSF", reversed_on=date(2026, 10, 20), acting_user=None)
        if i % 2 == 0:
            demand_serve(account=acct, served_on=date(2026, 11, 2), acting_user=None)


def count_queries(client, url: str) -> int:
    client.get(url)  # warm: sessions, content types
    with CaptureQueriesContext(connection) as ctx:
        r = client.get(url)
        if getattr(r, "streaming", False):
            b"".join(r.streaming_content)
    assert r.status_code == 200, (url, r.status_code)
    return len(ctx.captured_queries)


@pytest.mark.parametrize("url", PAGES)
def test_collections_reports_take_the_same_queries_for_10_and_200_accounts(url, client_for, personas,
                                                                          add_parcels, resolution):
    c = client_for(personas["collector"])
    grow(add_parcels, 10)
    at_10 = count_queries(c, url)
    grow(add_parcels, 190)
    assert Account.objects.count() > 200
    at_200 = count_queries(c, url)
    assert at_10 == at_200, f"{url}: {at_10} queries for 10 accounts, {at_200} for 200"


def test_reports_are_paged_with_totals_over_every_row(client_for, personas, add_parcels, resolution):
    from stormwater.receivables.selectors import aging

    c = client_for(personas["collector"])
    grow(add_parcels, 230)
    everyone = aging(as_of=date(2026, 12, 31))
    n = len(everyone)
    assert 230 <= n < 300  # the 230 and the test town's accounts
    page1 = c.get("/collections/aging/", {"as_of": "2026-12-31"}).content.decode()
    total = sum((r.total for r in everyone), D(0))
    assert "Page 1 of 3" in page1 and f"in {n} accounts" in page1 and f"{total:,.2f}" in page1
    assert 'href="?as_of=2026-12-31&amp;page=2"' in page1
    assert page1.count('href="/accounts/') == 100
    page3 = c.get("/collections/aging/", {"as_of": "2026-12-31", "page": "3"}).content.decode()
    assert page3.count('href="/accounts/') == n - 200 and everyone[-1].account.number in page3
    lines = c.get("/collections/aging.csv", {"as_of": "2026-12-31"}).getvalue().decode().splitlines()
    assert len(lines) == n + 1 and lines[1].startswith(everyone[0].account.number)
    api = c.get("/api/collections/aging/", {"as_of": "2026-12-31", "page": "2", "page_size": "100"}).json()
    assert (api["count"], api["pages"], len(api["accounts"])) == (n, 3, 100)
    assert api["totals"]["total"] == f"{total:.2f}" and api["accounts"][0]["account"] == everyone[100].account.number
    assert c.get("/api/collections/aging/", {"page_size": "0"}).status_code == 400


@pytest.mark.parametrize("url", PAGES[:4])
def test_a_report_page_reads_its_rows_and_totals_in_one_statement(url, client_for, personas, add_parcels, resolution):
    """Issue 29: the aging page ran its whole positions statement twice (the totals, then the page, each computing
    every account's position); the page's statement carries the totals (window aggregates), so once."""
    c = client_for(personas["collector"])
    grow(add_parcels, 4)
    c.get(url)  # warm: sessions, content types
    with CaptureQueriesContext(connection) as ctx:
        r = c.get(url)
    assert r.status_code == 200
    positions = [q["sql"] for q in ctx.captured_queries if q["sql"].lstrip().startswith("WITH inst AS")]
    assert len(positions) == 1, f"{url}: the positions statement ran {len(positions)} times"
    assert "Total" in r.content.decode()
