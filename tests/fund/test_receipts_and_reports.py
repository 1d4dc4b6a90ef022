"""Receipts of the Stormwater Management Account from the ledger (Ch. 295 Art. IV fee ¶C), revenue vs.
budget, and their CSV and Excel exports."""
import csv
import io
from datetime import date
from decimal import Decimal as D

import pytest

from stormwater.fund.selectors import receipts_by_period, receipts_total, revenue_vs_budget

FY27 = (date(2026, 7, 1), date(2027, 6, 30))


def test_receipts_are_payments_less_reversed_payments_by_month(payments):
    rows = receipts_by_period(*FY27, grouping="month")
    assert [r.label for r in rows][:3] == ["2026-07", "2026-08", "2026-09"] and len(rows) == 12
    got = {r.label: (r.receipts, r.payments, r.reversals) for r in rows if r.receipts or r.payments or r.reversals}
    assert got == {"2026-10": (D("153.16"), 2, 0), "2026-11": (D("2828.11"), 1, 0),
                   "2026-12": (D("-2828.11"), 0, 1), "2027-01": (D("26.58"), 1, 0)}
    assert receipts_total(*FY27) == D("179.74")  # the reversed charge and the interest are not cash


def test_receipts_by_fiscal_quarter_year_and_day_and_clipped_ranges(payments):
    q = receipts_by_period(*FY27, grouping="quarter")
    assert [(r.label, r.start, r.end, r.receipts) for r in q] == [
        ("FY2027 Q1", date(2026, 7, 1), date(2026, 9, 30), D("0")),
        ("FY2027 Q2", date(2026, 10, 1), date(2026, 12, 31), D("153.16")),
        ("FY2027 Q3", date(2027, 1, 1), date(2027, 3, 31), D("26.58")),
        ("FY2027 Q4", date(2027, 4, 1), date(2027, 6, 30), D("0"))]
    fy = receipts_by_period(date(2026, 10, 3), date(2027, 7, 31), grouping="fiscal_year")
    assert [(r.label, r.start, r.end, r.receipts) for r in fy] == [
        ("FY2027", date(2026, 10, 3), date(2027, 6, 30), D("179.74")),
        ("FY2028", date(2027, 7, 1), date(2027, 7, 31), D("0"))]
    days = receipts_by_period(date(2026, 10, 2), date(2026, 10, 4), grouping="day")
    assert [(r.label, r.receipts) for r in days] == [("2026-10-02", 0), ("2026-10-03", D("153.16")), ("2026-10-04", 0)]


def test_bad_report_ranges_are_refused():
    with pytest.raises(ValueError, match="grouping"):
        receipts_by_period(*FY27, grouping="week")
    with pytest.raises(ValueError, match="before start"):
        receipts_by_period(FY27[1], FY27[0])


def test_revenue_vs_budget(payments, budget2027):
    rvb = revenue_vs_budget(2027, as_of=date(2027, 1, 31))
    rows = [(r.source, r.budgeted, r.actual, r.percent) for r in rvb.rows]
    assert rows == [("Stormwater fee receipts", D("8360.00"), D("179.74"), D("2.2")),  # 2.150…%
                    ("Grants", D("1000.00"), D("1000.00"), D("100.0")),
                    ("Low-interest loans", D("640.00"), D("0"), D("0.0"))]
    assert rvb.summary.total == D("10000.00") and rvb.budgeted_total == D("10000.00")
    assert rvb.actual_total == D("1179.74")
    assert rvb.billed > 0
    # Before the grant's date it is not yet revenue; before the first payment, no receipts.
    early = revenue_vs_budget(2027, as_of=date(2026, 9, 30))
    assert early.actual_total == 0


def test_receipts_page_csv_and_excel(client_for, personas, payments):
    c = client_for(personas["collector"])
    q = "start=2026-07-01&end=2027-06-30&grouping=month"
    page = c.get(f"/fund/reports/receipts/?{q}")
    assert page.status_code == 200
    html = page.content.decode()
    assert "Total $179.74" in html and "<svg" in html and "2,828.11" in html
    r = c.get(f"/fund/reports/receipts.csv?{q}")
    assert r.status_code == 200 and r["Content-Type"].startswith("text/csv")
    assert 'filename="stormwater-receipts-2026-07-01-2027-06-30-month.csv"' in r["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(r.content.decode())))
    assert rows[0] == ["period", "start", "end", "receipts", "payment_entries", "reversal_entries"]
    assert rows[4] == ["2026-10", "2026-10-01", "2026-10-31", "153.16", "2", "0"]
    assert len(rows) == 13
    x = c.get(f"/fund/reports/receipts.xlsx?{q}")
    from openpyxl import load_workbook

    ws = load_workbook(io.BytesIO(x.content)).active
    assert ws["A5"].value == "2026-10" and float(ws["D5"].value) == 153.16 and float(ws["D7"].value) == -2828.11
    assert c.get("/fund/reports/receipts.csv?start=2027-01-01&end=2026-01-01&grouping=month").status_code == 400


def test_revenue_vs_budget_page_csv_and_excel(client_for, personas, payments, budget2027):
    c = client_for(personas["director"])
    page = c.get("/fund/reports/revenue-vs-budget/?fy=2027&as_of=2027-01-31")
    assert page.status_code == 200 and "8,360.00" in page.content.decode() and "<svg" in page.content.decode()
    rows = list(csv.reader(io.StringIO(c.get("/fund/reports/revenue-vs-budget.csv?fy=2027&as_of=2027-01-31")
                                       .content.decode())))
    assert rows[0] == ["fiscal_year", "as_of", "source", "budgeted", "actual", "percent", "note"]
    assert rows[1][:6] == ["FY2027", "2027-01-31", "Stormwater fee receipts", "8360.00", "179.74", "2.2"]
    assert rows[-1][2:5] == ["Total", "10000.00", "1179.74"]
    from openpyxl import load_workbook

    ws = load_workbook(io.BytesIO(c.get("/fund/reports/revenue-vs-budget.xlsx?fy=2027&as_of=2027-01-31").content)).active
    assert ws.title == "FY2027" and ws["C3"].value == "Grants" and float(ws["E3"].value) == 1000


def test_report_api(client_for, personas, payments, budget2027):
    c = client_for(personas["clerk"])
    r = c.get("/api/fund/reports/receipts?start=2026-07-01&end=2027-06-30&grouping=quarter")
    assert r.status_code == 200 and r.json()["total"] == "179.74"
    assert r.json()["periods"][1] == {"label": "FY2027 Q2", "start": "2026-10-01", "end": "2026-12-31",
                                      "receipts": "153.16", "payment_entries": 3, "reversal_entries": 1}
    assert c.get("/api/fund/reports/receipts?grouping=week").status_code == 400
    v = c.get("/api/fund/reports/revenue-vs-budget?fy=2027&as_of=2027-01-31").json()
    assert v["rows"][0] == {"source": "Stormwater fee receipts", "budgeted": "8360.00", "actual": "179.74",
                            "percent": "2.2", "note": v["rows"][0]["note"]}
    assert v["actual_total"] == "1179.74"
