"""The office's reports read in a constant number of queries whatever the number of receipts (issue 15's rule)."""
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from stormwater.cashier.services import cash_batch_close, cash_batch_over_short_approve, deposit_create, receipt_post
from stormwater.utility.models import Account


def _day(n, personas, billed):
    accounts = list(Account.objects.filter(unit=None).order_by("pk"))
    c = personas["collector"]
    for i in range(n):
        receipt_post(account=accounts[i % len(accounts)], amount=f"{1 + i}.00", tender=("cash", "check")[i % 2],
                     reference=f"Q{i}", acting_user=c, confirm_duplicate=True)
    from stormwater.cashier.models import CashBatch

    b = cash_batch_close(batch=CashBatch.objects.get(state="open"), counted={}, reason="test: nothing counted",
                         acting_user=c)
    from stormwater.accounts.models import User

    cash_batch_over_short_approve(batch=b, acting_user=User.objects.create_user(
        username=f"treasurer{b.pk}", password="pw", role="collector"))
    deposit_create(deposited_on=b.opened_on, bank_amount="0", batches=[b], acting_user=c)


def _count(client, url, **params):
    with CaptureQueriesContext(connection) as q:
        assert client.get(url, params).status_code == 200
    return len(q.captured_queries)


def test_daily_deposits_and_batch_pages_are_constant(billed, personas, client_for):
    client = client_for(personas["collector"])
    _day(2, personas, billed)
    small = [_count(client, reverse("cashier_daily")), _count(client, reverse("cashier_deposits")),
             _count(client, reverse("cashier_batches"))]
    _day(30, personas, billed)
    large = [_count(client, reverse("cashier_daily")), _count(client, reverse("cashier_deposits")),
             _count(client, reverse("cashier_batches"))]
    assert small == large
