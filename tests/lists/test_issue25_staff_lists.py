"""Issue 25 "Staff lists": amount-range filters (the delinquent accounts over $500: ``?due_min=500``), the owner and
the mailing address as columns of the list and of its download, and a choice of columns (the download follows)."""
from __future__ import annotations

import csv
import io
from datetime import date
from decimal import Decimal as D

from stormwater.receivables.owed import owed
from stormwater.utility.models import Account


def csv_rows(resp):
    body = b"".join(resp.streaming_content) if getattr(resp, "streaming", False) else resp.content
    return list(csv.reader(io.StringIO(body.decode())))


def test_owed_at_least_filters_and_owner_and_mailing_address_are_exported(town, bill_fy2027, personas, client_for,
                                                                            at):
    bill_fy2027()
    at(date(2027, 1, 4))
    c = client_for(personas["collector"])
    due = {a.number: owed(a, as_of=date(2027, 1, 4)).due_now for a in Account.objects.all()}
    over = {n for n, v in due.items() if v >= 500}
    assert over and over != set(due)  # the town has accounts on both sides of $500

    rows = csv_rows(c.get("/accounts/", {"due_min": "500", "export": "csv"}))
    head = rows[0]
    assert {"Billed to", "Mailing address", "Due now"} <= set(head)
    got = {r[head.index("Account")]: r for r in rows[1:]}
    assert set(got) == over and all(D(r[head.index("Due now")]) == due[n] for n, r in got.items())
    assert all(r[head.index("Mailing address")] for r in got.values())
    # the totals over every matching row, one set-based statement (owed.due_now_total)
    page = c.get("/accounts/", {"due_min": "500"}).content.decode()
    assert f"due now ${sum(due[n] for n in over):,.2f}" in page
    page = c.get("/parcels/").content.decode()
    assert f"due now ${sum(due.values()):,.2f}" in page
    assert {r[0] for r in csv_rows(c.get("/accounts/", {"due_max": "499.99", "export": "csv"}))[1:]} == \
        set(due) - over

    rows = csv_rows(c.get("/collections/delinquency/", {"due_min": "500", "export": "csv"}))
    assert {r[0] for r in rows[1:]} == over and rows[0][1] == "Owner"

    rows = csv_rows(c.get("/parcels/", {"due_min": "500", "export": "csv"}))
    head = rows[0]
    assert {"Owner", "Mailing address", "Due now"} <= set(head) and len(rows) > 1
    assert all(D(r[head.index("Due now")]) >= 500 for r in rows[1:])

    # the columns chosen are the page's and the download's
    page = c.get("/accounts/", {"cols": ["number", "balance"]}).content.decode()
    assert "Columns shown and downloaded" in page and ">Mailing address<" not in page.split("<table")[1]
    assert csv_rows(c.get("/accounts/", {"cols": ["number", "balance"], "export": "csv"}))[0] == ["Account", "Due now"]
