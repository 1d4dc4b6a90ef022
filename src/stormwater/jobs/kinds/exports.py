"""Large files made as jobs, downloaded from the job page: a bill run's CSV/Excel, its water/sewer billing
import, and the print file of its bills (one PDF; a ZIP of PDFs of PRINT_BATCH bills each past that); the same print file
of the demands served on a day (``print_file``: any bulk notice, issue 25).

Each reads in chunks, writes row by row to a temporary file moved into place when whole (job_file), and
reports progress; run again it makes the same file. The spreadsheets are written by the same streaming writer
as the web downloads (``web/files.py``: every cell through ``safe_cell``, Excel split before its row limit),
so a job's file and the download of the same table are the same."""
from __future__ import annotations

import zipfile

from stormwater.accounts.roles import Perm
from stormwater.jobs.kinds.billing import clean_run, run_subject, run_withdrawn
from stormwater.jobs.registry import JobParamError, choice_param, job_kind, only_params
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


def print_file(job, *, stem: str, items, total: int, document, noun: str = "notices") -> dict:
    """The one print file of any bulk notice (issue 25: bills, demands …) for the print shop: the documents of
    ``items`` (a queryset, in mailing order) as one PDF, or past PRINT_BATCH of them a ZIP of PDFs of PRINT_BATCH
    each. ``document(item)`` renders one (a WeasyPrint document, ``utility.documents.render_document``); only one
    batch's pages are held at a time. → {"notices", "pages", "file"}."""
    job.progress(0, total)
    pages = 0

    def batch_pdf(batch) -> bytes:
        nonlocal pages
        docs = [document(x) for x in batch]
        all_pages = [p for d in docs for p in d.pages]
        pages += len(all_pages)
        return docs[0].copy(all_pages).write_pdf()

    done = 0
    if total == 0:
        job.log(f"No {noun}: no print file.")
        return {"notices": 0, "pages": 0, "file": None}
    if total <= PRINT_BATCH:
        name = f"{stem}.pdf"
        with job_file(job, name) as tmp:
            batch = []
            for x in items.iterator(chunk_size=PRINT_BATCH):
                batch.append(x)
                done += 1
                job.progress(done, total)
            tmp.write_bytes(batch_pdf(batch))
    else:
        name = f"{stem}.zip"
        with job_file(job, name) as tmp, zipfile.ZipFile(tmp, "w", zipfile.ZIP_STORED) as z:
            for start in range(0, total, PRINT_BATCH):
                batch = list(items[start:start + PRINT_BATCH])
                z.writestr(f"{stem}-{start + 1:06d}-{start + len(batch):06d}.pdf", batch_pdf(batch))
                done += len(batch)
                job.progress(done, total)
                job.log(f"{noun.capitalize()} {start + 1}–{start + len(batch)} printed.")
    job.log(f"{total} {noun}, {pages} pages: {name}.")
    return {"notices": total, "pages": pages, "file": name}


@job_kind("bills_pdf", perm=Perm.BILLING_RUN, label="Make the print file of the bills (PDF)", clean=clean_run,
          subject=run_subject, withdrawn=run_withdrawn, title=lambda p: f"Print file of the bills of bill run {p['run']}")
def bills_pdf(job):
    """Every bill of the run in bill-number order but those of owners who chose e-mail only, for the print shop
    (``print_file``)."""
    from stormwater.utility.documents import bill_document
    from stormwater.utility.paperless import bills_to_print, paperless_count

    run = _run(job)
    # Bills of owners who chose e-mail only (issue 17 "Paperless bills") are not printed: the bills_email job
    # sends them.
    bills = bills_to_print(run).select_related("parcel", "run__resolution")
    paperless = paperless_count(run)
    if paperless:
        job.log(f"{paperless} bill(s) of owners who chose bills by e-mail only are left out (the e-mail job sends them).")
    out = print_file(job, stem=f"stormwater-bills-{run.period_label}-run{run.pk}", items=bills, total=bills.count(),
                     document=bill_document, noun="bills")
    return {"bills": out["notices"], "pages": out["pages"], "file": out["file"], "paperless": paperless}


def clean_served_on(params: dict) -> dict:
    from datetime import date

    from stormwater.receivables.models import Demand

    only_params(params, {"served_on"})
    raw = str(params.get("served_on") or "").strip()
    try:
        day = date.fromisoformat(raw)
    except ValueError:
        raise JobParamError(f"served_on: {raw!r} is not a date (YYYY-MM-DD)") from None
    if not Demand.objects.filter(served_on=day).exists():
        raise JobParamError(f"served_on: no demands were served on {day}")
    return {"served_on": str(day)}


@job_kind("demands_pdf", perm=Perm.COLLECT, label="Make the print file of the demands (PDF)", clean=clean_served_on,
          title=lambda p: f"Print file of the demands served on {p['served_on']}")
def demands_pdf(job):
    """Every demand served on the day (Ch. 295 Art. IV billing ¶D), in account-number order, as one print file
    (issue 25: serving 76 demands used to leave 76 separate PDFs); each demand's own PDF stays on its row."""
    from stormwater.receivables.mailing import demand_document
    from stormwater.receivables.models import Demand

    day = job.params["served_on"]
    demands = (Demand.objects.filter(served_on=day)
               .select_related("account__parcel__owner", "account__unit__owner", "resolution")
               .order_by("account__number", "id"))
    out = print_file(job, stem=f"stormwater-demands-{day}", items=demands, total=demands.count(),
                     document=demand_document, noun="demands")
    return out
