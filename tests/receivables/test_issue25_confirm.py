"""Issue 25 item 7: approving a bill run, serving demands, voiding a run were each one click. Now the first POST of a
bulk or irreversible act changes nothing and shows what will happen, how many and how much (``web.confirm``); the
confirmed POST (the page's own form, signed for exactly those fields) acts. The JSON API and the CLI stay explicit."""
from __future__ import annotations

import json
from datetime import date

from confirming import confirm_fields, posted

from stormwater.receivables.models import Demand
from stormwater.rules.money import fmt_usd
from stormwater.utility.models import BillRun, RunState


def test_approving_and_voiding_a_run_ask_first_with_the_count_and_the_total(town, resolution, personas, client_for):
    staff, collector = client_for(personas["staff"]), client_for(personas["collector"])
    r = staff.post("/api/bill-runs/", json.dumps({"fiscal_year": 2027, "issue_date": "2026-09-15", "proof": True}),
                   content_type="application/json")
    run = BillRun.objects.get(pk=r.json()["run_id"])
    first = collector.post(f"/bill-runs/{run.pk}/approve/")
    page = first.content.decode()
    assert first.status_code == 200 and "Confirm: approve bill run" in page
    assert f"{run.bill_count:,}" in page and fmt_usd(run.total_billed) in page and "Nothing has been done yet" in page
    run.refresh_from_db()
    assert run.state == RunState.PROOF  # the first POST changed nothing
    fields = confirm_fields(page)
    assert dict(fields).get("confirmed")
    assert collector.post(f"/bill-runs/{run.pk}/approve/", posted(fields)).status_code == 302
    run.refresh_from_db()
    assert run.state == RunState.ISSUED

    page = collector.post(f"/bill-runs/{run.pk}/void/", {"reason": "wrong rates"}).content.decode()
    assert "Confirm: void bill run" in page and fmt_usd(run.total_billed) in page and "wrong rates" in page
    run.refresh_from_db()
    assert run.state == RunState.ISSUED
    fields = confirm_fields(page)
    # a confirmation is for what was shown: another reason is asked again
    again = collector.post(f"/bill-runs/{run.pk}/void/", posted(fields, reason="other"))
    assert again.status_code == 200 and "Confirm: void" in again.content.decode()
    run.refresh_from_db()
    assert run.state == RunState.ISSUED
    collector.post(f"/bill-runs/{run.pk}/void/", posted(fields))
    run.refresh_from_db()
    assert run.state == RunState.VOIDED


def test_serving_demands_asks_first_with_how_many_and_how_much(billed, personas, client_for, at):
    at(date(2027, 6, 1))
    c = client_for(personas["collector"])
    numbers = ["SW-01-01-1", "SW-01-01-2"]
    page = c.post("/collections/demands/", {"account": numbers, "served_on": "2027-06-01"}).content.decode()
    assert "Confirm: serve 2 demands" in page and "2 × $25.00 = $50.00" in page and "Owed now by these accounts" in page
    assert not Demand.objects.exists()
    done = c.post("/collections/demands/", posted(confirm_fields(page)), follow=True).content.decode()
    assert "Served 2 demands" in done
    assert sorted(Demand.objects.values_list("account__number", flat=True)) == numbers
