from datetime import date

import pytest
import time_machine

from stormwater.utility.services import bill_run_issue, fiscal_year


@pytest.fixture
def billed(town, resolution):
    """FY2027 billed on Thu Sep 10, 2026 (2 installments; the first due Oct 10 → rolled to Tue Oct 13)."""
    label, start, end = fiscal_year(2027)
    bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2026, 9, 10),
                   acting_user=None)
    return town


@pytest.fixture(autouse=True)
def _today():
    with time_machine.travel(date(2026, 11, 2), tick=False):
        yield
