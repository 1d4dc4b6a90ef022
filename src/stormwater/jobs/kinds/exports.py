"""Large files made as jobs, downloaded from the job page: a bill run's CSV/Excel, its water/sewer billing
import, and the print file of its bills (one PDF; a ZIP of PDFs of PRINT_BATCH bills each past that).

Each reads in chunks, writes row by row to a temporary file moved into place when whole (job_file), and
reports progress; run again it makes the same file. The spreadsheets are written by the same streaming writer
as the web downloads (``web/files.py``: every cell through ``safe_cell``, Excel split before its row limit),
so a job's file and the download of the same table are the same."""
from __future__ import annotations

import zipfile

from stormwater.accounts.roles import Perm
from stormwater.jobs.kinds.billing import clean_run, run_subject, run_withdrawn
from stormwater.jobs.registry import choice_param, job_kind
from stormwater.jobs.services import job_file
from stormwater.web.files import csv_write, xlsx_write

PRINT_BATCH = 500  # bills per PDF of the print file


def _run(job):
    from stormwater.utility.models import BillRun

    return BillRun.objects.get(pk=job.params["run"])


def clean_export(params: dict) -> dict:
    fmt = choice_param(params, "format", ("csv", "xlsx"), default="csv")
    return {**clean_run({k: v for k, v in params.items() if k != "format"}), "format": fmt}


@job_kind("bill_run_export", perm=Perm.BILLING_VIEW_ALL, label="Make the spreadsheet file", clean=clean_export,
          subject=run_subject, withdrawn=run_withdrawn, title=lambda p: f"Export of bill run {p['run']} ({p['format'].upper()})")
def bill_run_export(job):
    from stormwater.utility import exports
    from stormwater.utility.models import Installment

    run, fmt = _run(job), job.params["format"]
    total = Installment.objects.filter(bill__run=run).count()
    job.progress(0, total)

    def each(n):
        job.progress(n, total)

    name = f"stormwater-bills-{run.period_label}-run{run.pk}.{fmt}"
    with job_file(job, name) as tmp:
        if fmt == "csv":
            rows = csv_write(tmp, exports.COLUMNS, exports.run_rows(run), each=each)
        else:
            rows = xlsx_write(tmp, run.period_label, exports.COLUMNS, exports.run_rows(run), exports.MONEY_COLUMNS,
                              each=each)
    job.log(f"{rows} rows written to {name}.")
    return {"rows": rows, "file": name}


@job_kind("water_sewer_export", perm=Perm.BILLING_VIEW_ALL, label="Make the water/sewer import file",
          clean=clean_run, subject=run_subject, withdrawn=run_withdrawn, title=lambda p: f"Water/sewer billing import of bill run {p['run']}")
def water_sewer_export(job):
    from stormwater.receivables import exports
    from stormwater.utility.models import Installment

    run = _run(job)
    total = Installment.objects.filter(bill__run=run).exclude(bill__water_sewer_account="").count()
    job.progress(0, total)
    name = f"water-sewer-import-run{run.pk}.csv"
    with job_file(job, name) as tmp:
        rows = csv_write(tmp, exports.WATER_SEWER_COLUMNS, exports.water_sewer_rows(run),
                         each=lambda n: job.progress(n, total))
    job.log(f"{rows} rows written to {name}.")
    return {"rows": rows, "file": name}


@job_kind("bills_pdf", perm=Perm.BILLING_RUN, label="Make the print file of the bills (PDF)", clean=clean_run,
          subject=run_subject, withdrawn=run_withdrawn, title=lambda p: f"Print file of the bills of bill run {p['run']}")
def bills_pdf(job):
    """Every bill of the run in bill-number order but those of owners who chose e-mail only, for the print shop: one PDF, or a ZIP of PDFs of
    PRINT_BATCH bills each. Bills are rendered one by one; only one batch's pages are held at a time."""
    from stormwater.utility.paperless import bills_to_print, paperless_count
    from stormwater.utility.documents import bill_document

    run = _run(job)
    # Bills of owners who chose e-mail only (issue 17 "Paperless bills") are not printed: the bills_email job
    # sends them.
    bills = bills_to_print(run).select_related("parcel", "run__resolution")
    paperless = paperless_count(run)
    if paperless:
        job.log(f"{paperless} bill(s) of owners who chose bills by e-mail only are left out (the e-mail job sends them).")
    total = bills.count()
    job.progress(0, total)
    stem = f"stormwater-bills-{run.period_label}-run{run.pk}"
    pages = 0

    def batch_pdf(batch) -> bytes:
        nonlocal pages
        docs = [bill_document(b) for b in batch]
        all_pages = [p for d in docs for p in d.pages]
        pages += len(all_pages)
        return docs[0].copy(all_pages).write_pdf()

    done = 0
    if total == 0:
        job.log("This run has no bills: no print file.")
        return {"bills": 0, "pages": 0, "file": None, "paperless": paperless}
    if total <= PRINT_BATCH:
        name = f"{stem}.pdf"
        with job_file(job, name) as tmp:
            batch = []
            for b in bills.iterator(chunk_size=PRINT_BATCH):
                batch.append(b)
                done += 1
                job.progress(done, total)
            tmp.write_bytes(batch_pdf(batch))
    else:
        name = f"{stem}.zip"
        with job_file(job, name) as tmp, zipfile.ZipFile(tmp, "w", zipfile.ZIP_STORED) as z:
            for start in range(0, total, PRINT_BATCH):
                batch = list(bills[start:start + PRINT_BATCH])
                z.writestr(f"{stem}-{start + 1:06d}-{start + len(batch):06d}.pdf", batch_pdf(batch))
                done += len(batch)
                job.progress(done, total)
                job.log(f"Bills {start + 1}–{start + len(batch)} printed.")
    job.log(f"{total} bills, {pages} pages: {name}.")
    return {"bills": total, "pages": pages, "file": name, "paperless": paperless}
