"""The Collector's reports on the one list mechanism (issue 16): aging, delinquency, demand and commitment
candidates search, filter, sort and page like every list, download exactly what is shown, and still take the
same number of queries for 10 accounts as for 200 (the reports' set-based SQL, issue 15)."""
from __future__ import annotations

import csv
import io
import re
from datetime import date
from decimal import Decimal as D

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext

from stormwater.receivables.services import demand_serve, payment_post
from stormwater.utility.models import Account
from confirming import confirmed_post

AS_OF = "2026-12-31"  # FY2027's first installment (due Oct 13, 2026) is 79 days late: 61–90; the second is current


@pytest.fixture(autouse=True)
def _today():
    with time_machine.travel(date(2027, 1, 4), tick=False):
        yield


def csv_rows(resp):
    body = b"".join(resp.streaming_content) if getattr(resp, "streaming", False) else resp.content
    return list(csv.reader(io.StringIO(body.decode())))


def shown_accounts(html: str) -> list[str]:
    return re.findall(r'<a href="/accounts/([^/"]+)/">', html)


@pytest.fixture
def billed(town, add_parcels, bill_fy2027):
    add_parcels(12)
    bill_fy2027()
    return town


def test_search_narrows_the_accounts_not_their_figures(client_for, personas, billed):
    c = client_for(personas["collector"])
    everyone = {r[0]: r for r in csv_rows(c.get(f"/collections/aging/?as_of={AS_OF}&export=csv"))[1:]}
    assert len(everyone) == Account.objects.count()
    plain = c.get(f"/collections/aging/?as_of={AS_OF}").content.decode()
    assert "match the filters" not in plain and f"{len(everyone)} accounts;" in plain  # the as-of day is no filter
    one = Account.objects.filter(parcel__parcel_id="M-00003").get()
    page = c.get("/collections/aging/", {"as_of": AS_OF, "q": "3 Main St"}).content.decode()
    assert shown_accounts(page) == [one.number] and "1 account match" in page
    rows = csv_rows(c.get("/collections/aging/", {"as_of": AS_OF, "q": "3 Main St", "export": "csv"}))
    assert rows[0] == ["Account", "Owner", "Address", "Current", "1–30", "31–60", "61–90", "Over 90", "Total",
                       "Oldest past due", "Mailing address"]
    assert rows[1:] == [everyone[one.number]]
    # The owner's mailing address in the list and its export (issue 25: the Collector mails to it).
    mailing = ", ".join(one.parcel.owner.mailing_address.splitlines())  # on one line, so a row is one line
    assert rows[1][-1] == mailing and "\n" in one.parcel.owner.mailing_address and mailing in page
    report = csv_rows(c.get("/collections/aging.csv", {"as_of": AS_OF}))
    assert report[0][-2:] == ["owner", "mailing_address"]
    mine = next(r for r in report if r[0] == one.number)
    assert mine[-2:] == [one.parcel.owner.name, mailing]
    api = c.get("/api/collections/aging/", {"as_of": AS_OF, "page_size": 1000}).json()  # the API says the same
    theirs = next(a for a in api["accounts"] if a["account"] == one.number)
    assert theirs["owner"] == one.parcel.owner.name and theirs["mailing_address"] == mailing
    demands = csv_rows(c.get("/collections/demands/", {"as_of": AS_OF, "q": "3 Main St", "export": "csv"}))
    assert demands[0][-1] == "Mailing address"
    owner = one.parcel.owner.name  # by owner's name as well
    assert shown_accounts(c.get("/collections/aging/", {"as_of": AS_OF, "q": owner}).content.decode()) == [one.number]


def test_past_due_filter_sort_totals_and_export_of_what_is_shown(client_for, personas, billed):
    c = client_for(personas["collector"])
    paid = Account.objects.get(parcel__parcel_id="M-00000")
    payment_post(account=paid, amount=D("1000.00"), received_on=date(2026, 10, 1), acting_user=None)
    assert csv_rows(c.get(f"/collections/aging/?as_of={AS_OF}&past_due=90&export=csv"))[1:] == []
    late = csv_rows(c.get(f"/collections/aging/?as_of={AS_OF}&past_due=60&export=csv"))[1:]
    assert late and paid.number not in {r[0] for r in late}
    assert all(D(r[6]) > 0 for r in late)  # 61–90
    url = f"/collections/aging/?as_of={AS_OF}&past_due=60&sort=-total"
    page = c.get(url).content.decode()
    rows = csv_rows(c.get(url + "&export=csv"))[1:]
    totals = [D(r[8]) for r in rows]
    assert totals == sorted(totals, reverse=True)
    assert shown_accounts(page) == [r[0] for r in rows]  # the page shows what the download holds, in its order
    assert 'aria-sort="descending"' in page and f"{len(rows)} accounts match the filters" in page
    assert f"total ${sum(totals):,.2f}" in page  # the caption's total over every matching account
    xlsx = c.get(url + "&export=xlsx")
    assert xlsx.status_code == 200 and xlsx["Content-Type"].startswith("application/vnd.openxmlformats")
    bad = c.get("/collections/aging/", {"as_of": "31/12/2026", "past_due": "7"})
    assert bad.status_code == 200 and "Some filters could not be used" in bad.content.decode()


def test_demand_and_commitment_candidates_search_and_keep_their_forms(client_for, personas, billed):
    c = client_for(personas["collector"])
    page = c.get("/collections/demands/", {"as_of": "2026-11-20"}).content.decode()
    n = len(shown_accounts(page))
    assert n == Account.objects.count() and 'form="demand-serve" name="account"' in page
    assert '<form method="post" id="demand-serve"' in page
    one = Account.objects.get(parcel__parcel_id="M-00005")
    page = c.get("/collections/demands/", {"as_of": "2026-11-20", "q": one.parcel.address}).content.decode()
    assert shown_accounts(page) == [one.number]
    r = confirmed_post(c, "/collections/demands/", {"account": [one.number], "served_on": "2026-11-20"})
    assert r.status_code == 302
    served = c.get("/collections/demands/", {"as_of": "2026-11-20", "served-q": one.parcel.address}).content.decode()
    assert "1 demand served match" in served and "/pdf/" in served
    assert shown_accounts(served).count(one.number) == 1  # served (no longer a candidate: its demand charge is owed)
    rows = csv_rows(c.get("/collections/demands/", {"served-export": "csv"}))
    assert rows[0] == ["Mailed", "Account", "Demand charge", "Total due"] and [r[1] for r in rows[1:]] == [one.number]
    page = c.get("/collections/commitments/", {"as_of": "2026-12-10"}).content.decode()
    assert '<form method="post" id="commit"' in page and 'form="commit" name="demand"' in page
    assert shown_accounts(page)[:1] == [one.number] and "1 demand" in page
    rows = csv_rows(c.get("/collections/commitments/", {"as_of": "2026-12-10", "export": "csv"}))
    assert rows[0] == ["Account", "Owner", "Demand mailed", "Owed", "Mailing address"] and rows[1][:3] == [
        one.number, one.parcel.owner.name, "2026-11-20"]
    r = confirmed_post(c, "/collections/commitments/?as_of=2026-12-10", {"demand": [one.demands.get().pk],
                                                                      "tax_fiscal_year": 2028, "committed_on": "2026-12-10"})
    assert r.status_code == 302
    made = c.get("/collections/commitments/", {"as_of": "2026-12-10"}).content.decode()
    assert "1 commitment;" in made and "FY2028" in made and "0 demands" in made


def _queries(client, url) -> int:
    client.get(url)
    with CaptureQueriesContext(connection) as ctx:
        r = client.get(url)
        csv_rows(r) if r.get("Content-Type", "").startswith("text/csv") else None
    assert r.status_code == 200
    return len(ctx.captured_queries)


def test_constant_queries_at_10_and_200_accounts(client_for, personas, town, add_parcels, bill_fy2027):
    from stormwater.utility.models import Bill
    urls = [f"/collections/aging/?as_of={AS_OF}&q=Main&sort=-over_90",
            f"/collections/delinquency/?as_of={AS_OF}&past_due=60&kind=parcel&per_page=200",
            f"/collections/aging/?as_of={AS_OF}&q=Main&export=csv",
            "/collections/demands/?as_of=2026-11-20&q=Main&sort=-total",
            "/collections/commitments/?as_of=2026-12-10&q=Main"]
    c = client_for(personas["collector"])

    def grow(n):
        new = add_parcels(n)
        bill_fy2027()
        for i, a in enumerate(Account.objects.filter(parcel__in=new).order_by("pk")):
            if i % 2 == 0:
                demand_serve(account=a, served_on=date(2026, 11, 2), acting_user=None)

    grow(10)
    before = {u: _queries(c, u) for u in urls}
    grow(190)
    assert Bill.objects.count() > 200
    after = {u: _queries(c, u) for u in urls}
    assert before == after
