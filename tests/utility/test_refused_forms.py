"""Issue 16 "Forms" (done when: "a refused staff form keeps every typed value and marks the field"): the bill run's
row forms (void, record the mailing) refused come back as the run's page (400) with what was typed and the error at
the input (``web.postdata.refused``); a new run and a rate resolution re-render their Django form (``web/_form.html``)
with the service's refusal at its field (400). Nothing is recorded."""
from datetime import date

import pytest

from office_refill import assert_refused
from stormwater.receivables.models import PeriodClose
from stormwater.utility.models import BillRun, RateResolution, RunState
from stormwater.utility.services import bill_run_issue, fiscal_year


@pytest.fixture
def issued(town, resolution):
    label, start, end = fiscal_year(2027)
    return bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2026, 9, 15),
                          acting_user=None).run


@pytest.mark.parametrize("act, posted, field", [
    ("void", {"reason": "   "}, "reason"),
    ("mailed", {"mailed_on": "soon"}, "mailed_on"),
    ("mailed", {"mailed_on": "2026-09-01"}, "mailed_on"),  # before the issue date
], ids=["void-without-a-reason", "mailed-on-not-a-date", "mailed-before-the-issue-date"])
def test_run_acts_refused(client_for, personas, issued, act, posted, field):
    c = client_for(personas["collector"])
    url = f"/bill-runs/{issued.pk}/{act}/"
    assert_refused(c.post(url, posted), url, field, posted)
    run = BillRun.objects.get(pk=issued.pk)
    assert run.state == RunState.ISSUED and run.mailed_on is None


def test_new_run_inside_closed_books(client_for, personas, town, resolution):
    """The service's refusal ("issue_date: … is in a closed period") is at the issue date."""
    PeriodClose.objects.create(closed_through=date(2026, 9, 30))
    c = client_for(personas["staff"])
    posted = {"fiscal_year": "2027", "issue_date": "2026-09-15"}
    assert_refused(c.post("/bill-runs/new/", posted), "", "issue_date", posted)
    assert not BillRun.objects.exists()


def test_resolution_with_blocks_that_do_not_join(client_for, personas):
    c = client_for(personas["clerk"])
    posted = {"label": "FY2028 rates", "adopted_on": "2027-05-01", "effective_from": "2027-07-01", "eru_sqft": "3400",
              "rate_per_eru": "55.00", "small_residential_rate": "55.00", "installments": "4",
              "interest_rate_percent": "12", "demand_charge": "25", "blocks": "1,10,1.0\n12,50,0.9", "notes": "Vote 7"}
    assert_refused(c.post("/rates/new/", posted), "", "blocks", posted)
    assert not RateResolution.objects.exists()
