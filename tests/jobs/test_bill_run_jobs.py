"""Jobs on a bill run (issue 15): e-mail its bills through the outbox (each once, ever; a lost send is
"unknown", settled by staff), its print file, its exports as files; started from the bill run page, which
shows them live."""
from __future__ import annotations

import csv
import io
import zipfile

import pytest
from django.core import mail

from stormwater.jobs.kinds import exports as export_kinds
from stormwater.jobs.models import Job
from stormwater.notices.models import NoticeSent, NoticeStatus
from stormwater.notices.outbox import outbox_recover
from stormwater.notices.services import notice_resolve
from stormwater.utility.models import Bill, BillRun, Installment
from confirming import confirm_fields, posted

pytestmark = pytest.mark.django_db


@pytest.fixture
def emails(billed):
    for key in ("shops", "house"):
        o = billed[key].owner
        o.email = f"{key}@example.org"
        o.save()
    return billed


def _addressed(run):
    return Bill.objects.filter(run=run, owner_name__in=["Shops LLC", "Olivia Owner"]).count()


def test_the_bill_run_page_starts_the_email_job_and_shows_it(client_for, personas, emails, run_worker):
    run = BillRun.objects.get()
    c = client_for(personas["collector"])
    page = c.get(f"/bill-runs/{run.pk}/").content.decode()
    assert "E-mail the bills" in page and f'action="/jobs/start/bills_email/"' in page
    ask = c.post("/jobs/start/bills_email/", {"run": str(run.pk), "next": f"/bill-runs/{run.pk}/"})
    # issue 25: e-mailing every bill cannot be called back: asked first, how many; nothing started yet
    assert ask.status_code == 200 and f"E-mail {_addressed(run)} bills" in ask.content.decode()
    assert not Job.objects.filter(kind="bills_email").exists()
    r = c.post("/jobs/start/bills_email/", posted(confirm_fields(ask.content.decode())))
    assert r.status_code == 302 and r.url == f"/bill-runs/{run.pk}/"
    job = Job.objects.get(kind="bills_email")
    page = c.get(r.url).content.decode()
    assert f"/api/jobs/{job.pk}/" in page and "Waiting for a worker" in page
    run_worker()
    job.refresh_from_db()
    n = _addressed(run)
    assert job.state == "succeeded" and job.result["queued"] == n == job.result["sent"] and n > 0
    assert len(mail.outbox) == n and {m.to[0] for m in mail.outbox} == {"shops@example.org", "house@example.org"}
    assert all(m.attachments[0][1][:5] == b"%PDF-" and m.extra_headers["Message-ID"] for m in mail.outbox)
    assert NoticeSent.objects.filter(kind="bill", status=NoticeStatus.SENT).count() == n
    # Inspectors may not start it, whatever they post.
    r = client_for(personas["inspector"]).post("/jobs/start/bills_email/", {"run": str(run.pk)})
    assert Job.objects.filter(kind="bills_email").count() == 1


def test_a_rerun_sends_nothing_twice_and_a_lost_send_waits_for_staff(personas, emails, run_worker):
    from stormwater.jobs.services import job_start

    run = BillRun.objects.get()
    job_start(kind="bills_email", params={"run": run.pk}, acting_user=None)
    run_worker()
    n = len(mail.outbox)
    # A send a dead process was in the middle of: its fate is unknown, and it is not re-sent by a re-run.
    lost = NoticeSent.objects.filter(kind="bill").first()
    NoticeSent.objects.filter(pk=lost.pk).update(status=NoticeStatus.SENDING, claimed_by="elsewhere:1")
    from django.test import override_settings

    with override_settings(JOBS_STALE_SECONDS=0):
        assert [x.pk for x in outbox_recover()] == [lost.pk]
    again = job_start(kind="bills_email", params={"run": run.pk}, acting_user=None)
    run_worker()
    again.refresh_from_db()
    assert again.result == {"queued": 0, "no_address": again.result["no_address"], "already_sent": n - 1,
                            "sent": 0, "failed": 0, "unknown": 1}
    assert len(mail.outbox) == n
    # Staff checked the mail server's log: it did not go out → queued, and the next run sends it.
    notice_resolve(notice=lost, was_sent=False, acting_user=personas["collector"])
    third = job_start(kind="bills_email", params={"run": run.pk}, acting_user=None)
    run_worker()
    third.refresh_from_db()
    assert third.result["sent"] == 1 and len(mail.outbox) == n + 1
    with pytest.raises(ValueError):
        notice_resolve(notice=lost, was_sent=True, acting_user=personas["collector"])  # settled already


def test_a_refused_send_is_failed_and_retried_an_unanswered_one_is_unknown(emails, settings):
    from stormwater.receivables.mailing import bill_run_email

    run = BillRun.objects.get()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", 1  # nothing listens: connection refused
    first = bill_run_email(run=run)
    assert first["failed"] == first["queued"] > 0 and first["sent"] == 0
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    second = bill_run_email(run=run)
    assert second["sent"] == first["queued"] and len(mail.outbox) == first["queued"]


def test_the_export_jobs_write_the_same_rows_as_the_download(client_for, personas, billed, run_worker):
    from stormwater.jobs.services import job_start

    run = BillRun.objects.get()
    csv_job = job_start(kind="bill_run_export", params={"run": run.pk, "format": "csv"}, acting_user=None)
    xlsx_job = job_start(kind="bill_run_export", params={"run": str(run.pk), "format": "xlsx"}, acting_user=None)
    ws_job = job_start(kind="water_sewer_export", params={"run": run.pk}, acting_user=None)
    run_worker()
    c = client_for(personas["collector"])
    for j in (csv_job, xlsx_job, ws_job):
        j.refresh_from_db()
        assert j.state == "succeeded", j.error
    got = b"".join(c.get(f"/jobs/{csv_job.pk}/file").streaming_content).decode()
    assert got == c.get(f"/bill-runs/{run.pk}/export.csv").getvalue().decode()
    assert csv_job.result["rows"] == Installment.objects.filter(bill__run=run).count()
    from openpyxl import load_workbook

    wb = load_workbook(io.BytesIO(b"".join(c.get(f"/jobs/{xlsx_job.pk}/file").streaming_content)))
    assert wb.active.max_row == csv_job.result["rows"] + 1
    ws_rows = list(csv.reader(io.StringIO(b"".join(c.get(f"/jobs/{ws_job.pk}/file").streaming_content).decode())))
    assert ws_rows == list(csv.reader(io.StringIO(c.get(f"/bill-runs/{run.pk}/water-sewer.csv").getvalue().decode())))


def test_an_excel_file_starts_a_new_sheet_before_the_row_limit(tmp_path):
    from openpyxl import load_workbook

    from stormwater.web.files import xlsx_write  # the one writer: web downloads and jobs

    n = xlsx_write(tmp_path / "x.xlsx", "FY2027", ["a", "amount"], ([i, "1.50"] for i in range(7)),
                   frozenset({"amount"}), max_rows=3)
    wb = load_workbook(tmp_path / "x.xlsx")
    assert n == 7 and wb.sheetnames == ["FY2027", "FY2027 (2)", "FY2027 (3)", "FY2027 (4)"]
    assert [r for r in wb["FY2027 (2)"].iter_rows(values_only=True)] == [("a", "amount"), (2, 1.5), (3, 1.5)]


def test_the_print_file_holds_every_bill(billed, run_worker, monkeypatch, settings):
    from stormwater.jobs.services import job_start

    run = BillRun.objects.get()
    n = Bill.objects.filter(run=run).count()
    one = job_start(kind="bills_pdf", params={"run": run.pk}, acting_user=None)
    monkeypatch.setattr(export_kinds, "PRINT_BATCH", 4)
    zipped = job_start(kind="bills_pdf", params={"run": run.pk}, acting_user=None)
    run_worker()
    one.refresh_from_db()
    zipped.refresh_from_db()
    # The first ran with the batch of 4 too (the worker runs after the patch): both are ZIPs of 4-bill PDFs.
    for j in (one, zipped):
        assert j.state == "succeeded" and j.result["bills"] == n and j.result["pages"] >= n
        with zipfile.ZipFile(settings.MEDIA_ROOT / j.file) as z:
            assert len(z.namelist()) == -(-n // 4) and all(z.read(x)[:5] == b"%PDF-" for x in z.namelist())
    monkeypatch.setattr(export_kinds, "PRINT_BATCH", 500)
    single = job_start(kind="bills_pdf", params={"run": run.pk}, acting_user=None)
    run_worker()
    single.refresh_from_db()
    assert single.file.endswith(".pdf") and (settings.MEDIA_ROOT / single.file).read_bytes()[:5] == b"%PDF-"


def test_a_large_runs_excel_link_starts_the_export_job(client_for, personas, billed, run_worker, settings, tmp_path):
    """Issue 29: the run page's "Download Excel" built the workbook inside the request; past LIST_EXPORT_JOB_ROWS
    installments it starts the export job (the page's job button) and answers with the job's page."""
    from openpyxl import load_workbook

    from stormwater.jobs.models import Job

    settings.MEDIA_ROOT = tmp_path / "media"
    run = BillRun.objects.get()
    c = client_for(personas["collector"])
    settings.LIST_EXPORT_JOB_ROWS = 10_000_000
    direct = c.get(f"/bill-runs/{run.pk}/export.xlsx")
    assert direct.status_code == 200 and not Job.objects.exists()
    settings.LIST_EXPORT_JOB_ROWS = 1
    r = c.get(f"/bill-runs/{run.pk}/export.xlsx")
    job = Job.objects.get()
    assert r.status_code == 302 and r["Location"] == f"/jobs/{job.pk}/"
    assert job.kind == "bill_run_export" and job.params == {"run": run.pk, "format": "xlsx"}
    run_worker()

    def rows(content):
        return [list(x) for ws in load_workbook(io.BytesIO(content)).worksheets for x in ws.iter_rows(values_only=True)]

    assert rows(b"".join(c.get(f"/jobs/{job.pk}/file").streaming_content)) == rows(b"".join(direct.streaming_content))
