"""The staff flow of issue 2 through the web app: find a parcel, see why, issue a run, open the PDF."""
import json
import shutil
import subprocess
from datetime import date
from decimal import Decimal as D

import pytest

from stormwater.audit.models import AuditEvent
from stormwater.utility.models import Bill, BillRun
from confirming import confirmed_post


def test_login_page_and_sign_in(client, personas):
    assert client.get("/login/").status_code == 200
    r = client.post("/login/", {"username": "staff", "password": "pw-staff"})
    assert r.status_code == 302
    assert client.get("/").status_code == 200


def test_search_then_the_parcel_page_explains_the_fee(client_for, personas, town, resolution):
    c = client_for(personas["staff"])
    r = c.get("/parcels/", {"q": "02-01-1"})
    assert "02-01-1" in r.content.decode()
    page = c.get("/parcels/02-01-1/").content.decode()
    for part in ("$2,828.11 a year", "200,000 ft²", "3,400 ft²", "59 ERUs", "ERUs 11–50", "Nonresidential"):
        assert part in page, part


def test_a_parcel_that_cannot_be_billed_says_why(client_for, personas, town, resolution):
    page = client_for(personas["staff"]).get("/parcels/03-01-1/").content.decode()
    assert "Cannot be billed" in page and "No record owner" in page
    problems = client_for(personas["staff"]).get("/billing-problems/").content.decode()
    assert "03-01-1" in problems and "03-01-2" in problems and "03-01-3" in problems


def test_manual_class_override_records_why(client_for, personas, town, resolution):
    c = client_for(personas["staff"])
    r = c.post("/parcels/03-01-2/class/", {"property_class": "small_residential", "reason": "Site visit: one house"})
    assert r.status_code == 302
    town["no_units"].refresh_from_db()
    assert town["no_units"].class_override == "small_residential"
    ev = AuditEvent.objects.get(action="parcel.class_override")
    assert ev.actor == personas["staff"] and ev.why == "Site visit: one house"
    assert "$53.16 a year" in c.get("/parcels/03-01-2/").content.decode()
    # A reason is required.
    c.post("/parcels/02-01-1/class/", {"property_class": "exempt", "reason": ""})
    town["shops"].refresh_from_db()
    assert town["shops"].class_override == ""


def test_issue_a_bill_run_from_the_web_then_open_bill_pdf_and_exports(client_for, personas, town, resolution,
                                                                      run_worker):
    c = client_for(personas["collector"])
    r = c.post("/bill-runs/new/", {"fiscal_year": 2027, "issue_date": "2026-09-15"})
    run = BillRun.objects.get()
    assert r.status_code == 302 and r.url == f"/bill-runs/{run.pk}/"
    run_worker()  # the proof is prepared by a background job (issue 15)
    detail = c.get(r.url).content.decode()
    assert "Not billed: needs staff" in detail and "03-01-1" in detail
    # The run is a proof until approved (issue 16); the Collector approves it from the same page.
    assert "This is a proof" in detail and "Approve and issue 8 bills" in detail
    assert confirmed_post(c, f"/bill-runs/{run.pk}/approve/").status_code == 302
    assert "Issued" in c.get(r.url).content.decode()
    bill = Bill.objects.get(parcel=town["shops"])
    pdf = c.get(f"/bills/{bill.number}/pdf/")
    assert pdf.status_code == 200 and pdf["Content-Type"] == "application/pdf" and pdf.content[:5] == b"%PDF-"
    if shutil.which("pdftotext"):
        text = subprocess.run(["pdftotext", "-", "-"], input=pdf.content, capture_output=True).stdout.decode()
        for part in ("Shops LLC", "2,828.11", "59 ERUs", bill.number, "Oct 15, 2026"):
            assert part in text, part
    csv = c.get(f"/bill-runs/{run.pk}/export.csv").getvalue().decode().splitlines()
    assert csv[0].startswith("bill_number,account,parcel_id")
    assert len(csv) - 1 == sum(b.installments.count() for b in Bill.objects.all())
    xlsx = c.get(f"/bill-runs/{run.pk}/export.xlsx")
    from io import BytesIO

    from openpyxl import load_workbook
    ws = load_workbook(BytesIO(xlsx.getvalue())).active
    rows = list(ws.iter_rows(values_only=True))
    assert rows[0][0] == "bill_number" and len(rows) == len(csv)
    # Re-running from the web bills nothing twice.
    bills = Bill.objects.count()
    r = c.post("/bill-runs/new/", {"fiscal_year": 2027, "issue_date": "2026-10-01"})
    run_worker()  # a second run's proof finds every parcel billed and is removed (utility/billrun)
    assert Bill.objects.count() == bills
    assert BillRun.objects.filter(state="issued").count() == 1


def test_api_parcel_detail_carries_the_fee_and_its_explanation(client_for, personas, town, resolution):
    r = client_for(personas["staff"]).get("/api/parcels/02-01-1/").json()
    assert r["fee"]["erus"] == 59 and r["fee"]["annual_fee"] == "2828.11"
    assert r["impervious"]["sqft"] == "200000.00" and "59 ERUs" in r["fee"]["explanation"]
    r = client_for(personas["staff"]).get("/api/parcels/03-01-1/").json()
    assert r["fee"] is None and "No record owner" in r["problem"]


def test_api_bill_run_issue_and_detail(client_for, personas, town, resolution):
    c = client_for(personas["collector"])
    r = c.post("/api/bill-runs/", json.dumps({"fiscal_year": 2027, "issue_date": "2026-09-15"}),
               content_type="application/json")
    assert r.status_code == 201
    body = r.json()
    assert body["bills"] == Bill.objects.count() and {p["parcel_id"] for p in body["problems"]} >= {"03-01-1"}
    d = c.get(f"/api/bill-runs/{body['run_id']}/").json()
    assert d["bills"] == body["bills"] and D(d["total"]) == sum(b.amount for b in Bill.objects.all())
    again = c.post("/api/bill-runs/", json.dumps({"fiscal_year": 2027}), content_type="application/json")
    assert again.status_code == 200 and again.json()["bills"] == 0
    bad = c.post("/api/bill-runs/", json.dumps({"issue_date": "2026-09-15"}), content_type="application/json")
    assert bad.status_code == 400 and "fiscal_year" in bad.json()["error"]
    b = Bill.objects.get(parcel=town["shops"])
    bj = c.get(f"/api/bills/{b.number}/").json()
    assert bj["amount"] == "2828.11" and bj["installments"][0]["due_date"] == "2026-10-15"


def test_resolution_entry_validates_and_is_audited(client_for, personas):
    c = client_for(personas["clerk"])
    form = {"label": "FY2028 rates", "adopted_on": "2027-05-01", "effective_from": "2027-07-01", "eru_sqft": "3400",
            "rate_per_eru": "55.00", "small_residential_rate": "55.00", "installments": "4",
            "interest_rate_percent": "12", "demand_charge": "25", "blocks": "1,10,1.0\n12,50,0.9"}
    r = c.post("/rates/new/", form)
    assert r.status_code == 400 and "start at ERU 11" in r.content.decode()
    form["blocks"] = "1,10,1.0\n11,50,0.9\n51,100,0.8\n101,500,0.7"
    assert c.post("/rates/new/", form).status_code == 302
    ev = AuditEvent.objects.get(action="resolution.adopt")
    assert ev.actor == personas["clerk"]
    assert "FY2028 rates" in c.get("/rates/").content.decode()


@pytest.mark.django_db
def test_demo_town_has_every_class_an_issued_run_and_listed_problems():
    from stormwater.demo import demo_load
    from stormwater.parcels.models import Parcel
    from stormwater.parcels.selectors import parcel_classification
    from stormwater.rules.classes import ClassificationError

    out = demo_load(parcels=300)
    assert out["loaded"] and out["parcels"] >= 250
    classes = set()
    for p in Parcel.objects.all():
        try:
            classes.add(parcel_classification(p).property_class.value)
        except ClassificationError:
            pass
    assert classes == {"small_residential", "large_residential", "nonresidential", "exempt"}
    run = BillRun.objects.get()
    assert run.issue_date == date(2026, 9, 15) and run.bill_count > 200
    # 4 synthetic cases, and 11 Cambridge apartments whose assessing rows carry no unit count.
    assert run.exceptions.count() == 15
    assert run.exceptions.filter(message__contains="dwelling units is unknown").count() == 12
    from stormwater.gis.models import ParcelShape
    shaped = Parcel.objects.filter(shapes__isnull=False).distinct()
    assert shaped.count() == 149 and ParcelShape.objects.filter(parcel__parcel_id="198-16").exists()
    assert Bill.objects.get(parcel__parcel_id="198-16").impervious_sqft == D("2357.34")  # from the overlay
    assert Bill.objects.filter(flagged=True).exists()  # the distribution center is over 500 ERUs
    assert demo_load()["loaded"] is False  # never twice


@pytest.mark.parametrize("content_type, name, disposition", [
    ("application/pdf", "Site plan.pdf", 'inline; filename="Site_plan.pdf"'),
    ("text/html", 'x"><script>.html', 'attachment; filename="xscript.html"'),
    ("image/jpeg", "photo 1.jpg", 'attachment; filename="photo_1.jpg"'),
])
def test_an_uploaded_document_is_served_safely(content_type, name, disposition):
    """Only a PDF opens in the browser; anything else is saved, and the uploaded name cannot break the header."""
    from types import SimpleNamespace

    from django.core.files.base import ContentFile

    from stormwater.web.files import document_response

    r = document_response(SimpleNamespace(file=ContentFile(b"x"), content_type=content_type, original_name=name))
    assert r["Content-Type"] == content_type and r["Content-Disposition"] == disposition
