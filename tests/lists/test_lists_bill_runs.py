"""The bill runs list (issue 16): every run with its state (docs/billing-runs.md), searched, filtered by state,
sorted, paged; totals count issued runs only; exports of exactly what is shown; constant queries."""
from __future__ import annotations

import csv
import io
from datetime import date, timedelta
from decimal import Decimal as D

import pytest

from stormwater.utility.models import BillRun, RunState


def csv_rows(resp):
    return list(csv.reader(io.StringIO(b"".join(resp.streaming_content).decode())))


@pytest.fixture
def make_runs(resolution):
    """make_runs(n, start=0) → n runs of past years: issued, voided, discarded in turn (rows, as a run ends)."""
    states = [RunState.ISSUED, RunState.VOIDED, RunState.DISCARDED]

    def _make(n, start=0):
        out = []
        for i in range(start, start + n):
            fy = 1800 + i
            out.append(BillRun.objects.create(
                period_label=f"FY{fy}", period_start=date(fy - 1, 7, 1), period_end=date(fy, 6, 30),
                issue_date=date(fy - 1, 9, 10) + timedelta(days=i % 7), resolution=resolution,
                bill_count=10 + i, total_billed=D("100.00") * (i + 1), state=states[i % 3]))
        return out
    return _make


def test_state_search_totals_and_export(client_for, personas, make_runs):
    runs = make_runs(6)
    c = client_for(personas["collector"])
    page = c.get("/bill-runs/").content.decode()
    assert "6 bill runs" in page and "Proof discarded" in page and "Voided" in page
    # Totals: issued runs only (runs 0 and 3): bills 10 + 13, billed $100 + $400.
    assert "bills 23" in page and "billed $500.00" in page
    issued = csv_rows(c.get("/bill-runs/?state=issued&export=csv"))
    assert issued[0] == ["Period", "State", "Issue date", "Rates", "Bills", "Billed"]
    assert [r[0] for r in issued[1:]] == ["FY1803 (run %d)" % runs[3].pk, "FY1800 (run %d)" % runs[0].pk]
    assert {r[1] for r in issued[1:]} == {"Issued"}
    # Search and sort reach the export too: what is shown is what is downloaded.
    found = csv_rows(c.get("/bill-runs/?q=FY1801&export=csv"))
    assert [r[0] for r in found[1:]] == [f"FY1801 (run {runs[1].pk})"] and found[1][1] == "Voided"
    by_total = csv_rows(c.get("/bill-runs/?sort=total_billed&export=csv"))
    assert [r[5] for r in by_total[1:]] == [f"{100 * (i + 1)}.00" for i in range(6)]
    bad = c.get("/bill-runs/?issued_from=not-a-date&state=nope")
    assert bad.status_code == 200 and "Enter a valid date" in bad.content.decode()


def test_constant_queries(client_for, personas, make_runs, same_queries):
    make_runs(10)
    c = client_for(personas["director"])
    same_queries(c, ["/bill-runs/", "/bill-runs/?state=issued&sort=-total_billed&per_page=200"],
                 lambda: make_runs(190, start=10))
    assert "200 bill runs" in c.get("/bill-runs/").content.decode()


def test_billing_problems_search_sort_and_export(client_for, personas, town, add_parcels, resolution):
    """Billing problems (the reports slice's set-based check) on the list: search by reason, export what is shown."""
    add_parcels(3, prefix="N", imp=None, land_use_code="340", dwelling_units=None)  # no impervious area
    c = client_for(personas["staff"])
    page = c.get("/billing-problems/").content.decode()
    n = int(page.split("Parcels that cannot be billed (")[1].split(")")[0])
    assert n >= 4 and f"{n} parcels;" in page  # the test town's owner-less parcels and the three
    rows = csv_rows(c.get("/billing-problems/?q=impervious+area+measured&export=csv"))
    assert rows[0] == ["Parcel", "Address", "Why"]
    got = [r[0] for r in rows[1:]]
    assert got == sorted(got) and {"N-00000", "N-00001", "N-00002"} <= set(got)
    assert all("No impervious area measured" in r[2] for r in rows[1:])
    searched = c.get("/billing-problems/?q=impervious+area+measured&sort=-parcel_id").content.decode()
    assert f"Parcels that cannot be billed ({n})" in searched and f"{len(got)} parcels match the filters" in searched
    assert searched.index("N-00002") < searched.index("N-00000")
