"""Issue 16's "done when" for the bill run, in a real browser at desktop and phone width: staff prepare a proof
(a background job the page follows live, issue 15), the Collector reads it and approves it (the bills are issued), then voids the run before mailing; a second
click on a submit button sends nothing twice; axe finds no violation on any of these pages."""
import re

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
DEMO_PASSWORD = "stormwater-demo"  # demo_load's users


@pytest.fixture
def demo_town(transactional_db):
    from stormwater.demo import demo_load

    demo_load(parcels=120, issue_run=False)


def _no_sideways_scroll(page):
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1"), page.url


@pytest.mark.parametrize("width", [1366, 390])
def test_proof_approve_issue_void(page, live_server, demo_town, shot, login, width, run_worker):
    from stormwater.utility.models import Bill, BillRun, LedgerEntry, RunState

    page.set_viewport_size({"width": width, "height": 900})
    w = f"{width}px"
    login("staff", DEMO_PASSWORD)
    page.goto(f"{live_server.url}/bill-runs/new/")
    page.get_by_label("Fiscal year (FY)").fill("2027")
    page.get_by_label("Issue date").fill("2026-09-15")
    shot(f"billrun-01-new-{w}")
    page.get_by_role("button", name="Prepare the proof").click()
    page.get_by_role("heading", name=re.compile("Bill run FY2027")).wait_for()
    # The proof is a background job: its card waits for the worker, then follows it live (issue 15).
    card = page.locator("section.job")
    card.get_by_text("Waiting for a worker").first.wait_for()
    assert "being prepared in the background" in page.locator("main").inner_text()
    shot(f"billrun-02a-preparing-{w}")
    run_worker()
    card.get_by_text("Finished").wait_for()
    assert re.search(r"\b(\d+) of \1\b", card.inner_text()), card.inner_text()  # every parcel done
    ready = page.get_by_role("link", name="The preparation has finished: show the result")
    ready.wait_for()
    shot(f"billrun-02b-prepared-{w}")
    ready.click()
    page.get_by_role("heading", name="Proof: bills by class and ERU band").wait_for()
    main = page.locator("main").inner_text()
    assert "This is a proof" in main and "Proof: bills by class and ERU band" in main
    assert "Approve and issue" not in main  # staff do not approve
    _no_sideways_scroll(page)
    shot(f"billrun-02-proof-staff-{w}")
    run = BillRun.objects.get()
    assert run.state == RunState.PROOF and not Bill.objects.exists()

    login("collector", DEMO_PASSWORD)
    page.goto(f"{live_server.url}/bill-runs/{run.pk}/")
    page.get_by_role("link", name=re.compile(r"^New \(")).click()
    page.get_by_role("heading", name="Per parcel, largest difference first").wait_for()
    shot(f"billrun-03-proof-collector-{w}")
    approve = page.get_by_role("button", name=re.compile(r"^Approve and issue \d+ bills$"))
    # A double click sends one approval: the second click finds the button disabled.
    approve.dblclick()
    # Issue 25: approving N bills is asked first: how many, how much; nothing done yet.
    page.get_by_text("Nothing has been done yet").wait_for()
    assert RunState.PROOF == BillRun.objects.get(pk=run.pk).state
    _no_sideways_scroll(page)
    shot(f"billrun-03b-confirm-{w}")
    page.get_by_role("button", name=re.compile(r"^Approve and issue \d+ bills$")).dblclick()
    page.get_by_text(re.compile(r"Issued \d+ bills for FY2027")).wait_for()
    run.refresh_from_db()
    assert run.state == RunState.ISSUED and run.approved_by.username == "collector"
    assert LedgerEntry.objects.filter(kind="charge").count() == sum(b.installments.count() for b in Bill.objects.all())
    assert "already issued" not in page.locator("main").inner_text()
    _no_sideways_scroll(page)
    shot(f"billrun-04-issued-{w}")

    page.get_by_label("Why void this run").fill("Issue date should have been October 1")
    page.get_by_role("button", name="Void this run").click()
    page.get_by_text("Nothing has been done yet").wait_for()
    page.get_by_role("button", name=re.compile(r"^Void \d+ bills$")).click()
    page.get_by_text("Run voided: its charges were reversed").wait_for()
    run.refresh_from_db()
    assert run.state == RunState.VOIDED and not Bill.objects.exists()
    _no_sideways_scroll(page)
    shot(f"billrun-05-voided-{w}")
    page.goto(f"{live_server.url}/bill-runs/")
    assert "Voided" in page.locator("main").inner_text()
    shot(f"billrun-06-list-{w}")
