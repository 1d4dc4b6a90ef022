"""Two clerks issuing the same bill run at the same moment bill every account once (PostgreSQL)."""
from datetime import date

import pytest
from django.db import connection

from stormwater.utility.models import Bill, BillRun
from stormwater.utility.services import bill_run_issue, fiscal_year

pytestmark = pytest.mark.django_db(transaction=True)


def test_concurrent_runs_of_one_period_bill_each_account_once(town, resolution, race):
    if connection.vendor != "postgresql":
        pytest.skip("row locks are a PostgreSQL matter; SQLite serializes writers with IMMEDIATE transactions")
    label, start, end = fiscal_year(2027)

    def issue():
        return bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2026, 9, 15),
                              acting_user=None)

    results, errors = race(issue, issue)
    assert errors == []
    assert sorted(r.bills for r in results)[0] == 0
    assert BillRun.objects.count() == 1
    assert Bill.objects.count() == max(r.bills for r in results)
    assert Bill.objects.values("account", "period_start").distinct().count() == Bill.objects.count()
