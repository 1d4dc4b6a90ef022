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
    from datetime import datetime
    from zoneinfo import ZoneInfo

    # noon in Longmeadow: today is Mon Nov 2, 2026 for both the town's clock and date.today()
    with time_machine.travel(datetime(2026, 11, 2, 12, tzinfo=ZoneInfo("America/New_York")), tick=False):
        yield


def pdf_text(content: bytes) -> str:
    import subprocess

    assert content[:5] == b"%PDF-"
    r = subprocess.run(["pdftotext", "-layout", "-", "-"], input=content, capture_output=True, check=True)
    return " ".join(r.stdout.decode().split())
