"""Background jobs in a real browser (issue 15): the Collector starts e-mailing a run's bills from the bill run
page, the job card on that page updates itself as the worker runs it (no reload), and the job page shows state,
progress n of N, log and result — axe-core finds nothing, at desktop width and at 390 px."""
import re
from datetime import date

import pytest
from menuhelp import menu

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def billed_with_emails(town, resolution):
    from stormwater.utility.services import bill_run_issue, fiscal_year

    label, start, end = fiscal_year(2027)
    bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2026, 9, 10),
                   acting_user=None)
    for key in ("shops", "house"):
        o = town[key].owner
        o.email = f"{key}@example.org"
        o.save()
    return town


def test_a_job_started_from_the_bill_run_page_shows_its_progress_live(page, live_server, billed_with_emails, shot,
                                                                       login, run_worker):
    from stormwater.jobs.models import Job
    from stormwater.utility.models import BillRun

    run = BillRun.objects.get()
    login("collector")
    page.goto(f"{live_server.url}/bill-runs/{run.pk}/")
    page.get_by_role("button", name="E-mail the bills").click()
    page.get_by_text("Nothing has been done yet").wait_for()  # issue 25: asked first (an e-mail is not called back)
    page.get_by_role("button", name=re.compile(r"^E-mail \d+ bills$")).click()
    card = page.locator("section.job")
    card.get_by_text("Waiting for a worker").first.wait_for()
    shot("jobs-01-run-page-queued")
    run_worker()  # the worker runs it while the page is open; the card follows without a reload
    card.get_by_text("Finished").wait_for()
    job = Job.objects.get()
    assert re.search(rf"{job.done} of {job.total}", card.inner_text()) and job.state == "succeeded"
    page.get_by_role("link", name=job.title).click()
    page.get_by_role("heading", name="Log").wait_for()
    text = page.locator("main").inner_text()
    assert "Finished." in text and "already_sent" in text and "Sending" in text
    shot("jobs-02-job-page")
    page.set_viewport_size({"width": 390, "height": 844})
    shot("jobs-03-job-page-phone")
    menu(page, "Jobs")
    page.get_by_role("heading", name="Background jobs").wait_for()
    shot("jobs-04-list-phone")
