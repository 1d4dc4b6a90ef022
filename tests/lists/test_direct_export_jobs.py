"""The older direct Excel URLs (issue 29): past LIST_EXPORT_JOB_ROWS rows each starts the same ``list_export`` job a
list page starts (jobs/kinds/listexport.py) and answers with its page; the job's file is the workbook the URL gives
directly below the threshold; only the starter sees the job and its file. Below the threshold, the file directly
(a small town, the staff scripts); CSV is never a job."""
from __future__ import annotations

import io
from datetime import date

import pytest
import time_machine
from openpyxl import load_workbook

from stormwater.jobs.models import Job
from stormwater.jobs.services import job_execute


@pytest.fixture(autouse=True)
def _today():
    with time_machine.travel(date(2027, 1, 4), tick=False):
        yield


@pytest.fixture
def office(town, add_parcels, bill_fy2027, personas, settings, tmp_path):
    """A billed town with a demand committed, a lockbox file posted and deposited: a row for every export."""
    from stormwater.cashier.services import deposit_create
    from stormwater.receivables.lockbox import payment_batch_post
    from stormwater.receivables.services import commitment_create, demand_serve
    from stormwater.utility.models import Account

    settings.MEDIA_ROOT = tmp_path / "media"
    add_parcels(3)
    bill_fy2027()
    accounts = list(Account.objects.filter(unit=None).order_by("number"))
    demands = [demand_serve(account=a, served_on=date(2026, 11, 2), acting_user=None) for a in accounts[:2]]
    com = commitment_create(tax_fiscal_year=2028, committed_on=date(2026, 11, 17), demands=demands, acting_user=None)
    posted = payment_batch_post(filename="lockbox-1203.csv", acting_user=personas["collector"],
                                content=f"account,amount,received_on,reference\n{accounts[-1].number},"
                                        "10.00,2026-12-03,L-1\n".encode())
    deposit_create(deposited_on=date(2026, 12, 3), bank_amount="10.00", files=[posted.batch],
                   acting_user=personas["collector"])
    return {"commitment": com}


URLS = ["/collections/aging.xlsx?as_of=2026-12-31", "/collections/delinquency.xlsx?as_of=2026-12-31",
        "/collections/commitments/{commitment}/export.xlsx", "/cashier/deposits.xlsx",
        "/cashier/daily.xlsx?day=2026-12-03", "/cashier/general-ledger.xlsx?start=2026-07-01&end=2026-12-31",
        "/fund/reports/receipts.xlsx?start=2026-07-01&end=2027-06-30&grouping=month",
        "/fund/reports/revenue-vs-budget.xlsx?fy=2027&as_of=2026-12-31"]


def cells(content: bytes) -> list[list[list]]:
    wb = load_workbook(io.BytesIO(content))
    return [[list(r) for r in ws.iter_rows(values_only=True)] for ws in wb.worksheets]


def body(resp) -> bytes:
    return b"".join(resp.streaming_content) if getattr(resp, "streaming", False) else resp.content


@pytest.mark.parametrize("url", URLS)
def test_every_direct_excel_url_is_the_list_export_job_past_the_threshold(client_for, personas, office, settings,
                                                                          url):
    from django.test import Client

    url = url.format(commitment=office["commitment"].pk)
    c = client_for(personas["collector"])
    director = Client()  # may see every report, but not another person's job or file
    director.force_login(personas["director"])
    settings.LIST_EXPORT_JOB_ROWS = 100_000
    direct = c.get(url)
    assert direct.status_code == 200 and direct["Content-Type"].startswith("application/vnd.openxml"), url
    want = cells(body(direct))
    rows = len(want[0]) - 1
    assert rows >= 1, url
    assert not Job.objects.exists()

    settings.LIST_EXPORT_JOB_ROWS = rows  # as many rows as the limit: still direct
    assert c.get(url).status_code == 200, url
    settings.LIST_EXPORT_JOB_ROWS = rows - 1  # one more than the limit: the job
    r = c.get(url)
    job = Job.objects.latest("pk")
    assert r.status_code == 302 and r["Location"] == f"/jobs/{job.pk}/", url
    assert job.kind == "list_export" and job.started_by == personas["collector"] and job.state == "queued"
    assert job.params["path"] == url.split("?")[0] and job.params["query"] == url.partition("?")[2]
    assert "too many to download at once" in c.get(r["Location"]).content.decode()
    job = job_execute(job_id=job.pk)
    assert job.state == "succeeded", (url, job.error)
    assert job.result["rows"] == rows, url
    got = c.get(f"/jobs/{job.pk}/file")
    assert got.status_code == 200 and got["Content-Disposition"] == direct["Content-Disposition"], url
    assert cells(body(got)) == want, url
    assert director.get(f"/jobs/{job.pk}/").status_code == 404
    assert director.get(f"/jobs/{job.pk}/file").status_code == 404
    # CSV of the same URL streams (or is small): never a job, whatever the count.
    n = Job.objects.count()
    assert c.get(url.replace(".xlsx", ".csv")).status_code == 200 and Job.objects.count() == n, url


def test_the_direct_url_job_is_refused_to_whoever_may_not_see_the_report(client_for, personas, office, settings):
    """The URL's own permission check stands: someone whose role may not see the report gets 403 (no job) at any size."""
    settings.LIST_EXPORT_JOB_ROWS = 0
    assert client_for(personas["staff"]).get("/cashier/deposits.xlsx").status_code == 403
    assert client_for(personas["assessor"]).get("/collections/aging.xlsx?as_of=2026-12-31").status_code == 403
    assert not Job.objects.exists()


def test_the_job_making_a_direct_urls_file_reports_its_progress(client_for, personas, office, settings, monkeypatch):
    """In the job, the writer reports every CHUNK rows to the job's page (``export_progress``); in a request, nothing."""
    from types import SimpleNamespace

    from stormwater.web import listexports

    monkeypatch.setattr(listexports, "CHUNK", 2)
    seen = []
    each = listexports.export_progress(SimpleNamespace(**{listexports.EXPORT_HERE: seen.append}))
    for n in range(1, 6):
        each(n)
    assert seen == [2, 4]
    assert listexports.export_progress(SimpleNamespace())(2) is None

    monkeypatch.setattr(listexports, "CHUNK", 1)
    settings.LIST_EXPORT_JOB_ROWS = 0
    r = client_for(personas["collector"]).get("/collections/aging.xlsx?as_of=2026-12-31")
    job = job_execute(job_id=int(r["Location"].split("/")[-2]))
    job.refresh_from_db()
    assert job.state == "succeeded" and job.done >= 1
