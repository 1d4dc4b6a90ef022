"""The billing problems page reads the whole town in a constant number of queries (issue 15: 7,005 queries
for 1,750 parcels, four a parcel), and lists the same problems as each parcel's own page."""
from django.db import connection
from django.test.utils import CaptureQueriesContext

from stormwater.utility.selectors import billing_problems, parcel_fee


def _count(client) -> int:
    client.get("/billing-problems/")
    with CaptureQueriesContext(connection) as ctx:
        r = client.get("/billing-problems/")
    assert r.status_code == 200
    return len(ctx.captured_queries)


def test_billing_problems_take_the_same_queries_for_10_and_200_parcels(client_for, personas, add_parcels, resolution):
    c = client_for(personas["staff"])
    add_parcels(5)
    add_parcels(5, prefix="N", imp=None, land_use_code="340", dwelling_units=None)  # no area: a problem each
    at_10 = _count(c)
    add_parcels(95)
    add_parcels(95, prefix="N", imp=None, land_use_code="340", dwelling_units=None)
    at_200 = _count(c)
    assert at_10 == at_200
    page = c.get("/billing-problems/").content.decode()
    assert "Parcels that cannot be billed (103)" in page and "Page 1 of 2" in page


def test_the_list_is_what_each_parcel_page_says(town, resolution):
    from datetime import date

    from stormwater.parcels.models import Parcel

    today = date(2026, 9, 1)
    want = [(p.parcel_id, parcel_fee(p, as_of=today).problem) for p in Parcel.objects.order_by("parcel_id")]
    assert [(p.parcel_id, p.problem) for p in billing_problems(as_of=today)] == [w for w in want if w[1]]
