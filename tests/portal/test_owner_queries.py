"""An owner's pages take the same queries with 10 properties (bills, accounts, cases) as with 200
(issue 15: /portal/ read every account's position one by one and scanned whole tables)."""
from datetime import date

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from stormwater.cases.services import case_open, clock_start
from stormwater.receivables.services import payment_post
from stormwater.utility.models import Account
from stormwater.utility.services import bill_run_issue, fiscal_year


def grow(add_parcels, owner, user, n):
    new = add_parcels(n, prefix="O", owner=owner)
    label, start, end = fiscal_year(2027)
    bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2026, 9, 10),
                   acting_user=None)
    for i, a in enumerate(Account.objects.filter(parcel__in=new).order_by("pk")):
        if i % 3 == 0:
            payment_post(account=a, amount="10.00", received_on=date(2026, 10, 1), acting_user=None)
        if i % 5 == 0:
            case = case_open(kind="abatement", title=f"Abatement {i}", acting_user=user, applicant=user)
            clock_start(case=case, kind="abatement_decision", label="Decision", citation="Ch. 295 Art. IV",
                        start=date(2026, 10, 1), length=45, acting_user=None)


def count(client, url):
    client.get(url)
    with CaptureQueriesContext(connection) as ctx:
        r = client.get(url)
    assert r.status_code == 200
    return len(ctx.captured_queries)


@pytest.mark.parametrize("url", ["/portal/", "/bills/"])
def test_owner_pages_take_the_same_queries_for_10_and_200_properties(url, client_for, personas, town, resolution, at,
                                                                     add_parcels):
    at(date(2026, 11, 15))
    user = personas["owner"]
    owner = town["house"].owner
    c = client_for(user)
    grow(add_parcels, owner, user, 10)
    at_10 = count(c, url)
    grow(add_parcels, owner, user, 190)
    assert count(c, url) == at_10


def test_the_overview_shows_each_balance_as_the_statement_does(client_for, personas, town, resolution, at,
                                                               add_parcels):
    from stormwater.portal.selectors import owner_overview
    from stormwater.receivables.ledger import account_position

    at(date(2026, 11, 15))
    grow(add_parcels, town["house"].owner, personas["owner"], 12)
    ov = owner_overview(user=personas["owner"], today=date(2026, 12, 20))
    assert len(ov["accounts"]) >= 12
    for a, pos in ov["accounts"]:
        assert pos.total == account_position(a, as_of=date(2026, 12, 20)).total, a.number
