"""Issue 3's flow through the web app and the API: a clerk posts a lockbox file, the Collector runs
demands and a commitment list, Finance sees aging; and the same through JSON."""
import json
import shutil
import subprocess
from datetime import date
from decimal import Decimal as D

from stormwater.receivables.models import Commitment, Demand, Payment
from stormwater.utility.models import Account
from confirming import confirmed_post

LOCKBOX = ("account,amount,received_on,reference\n"
           "SW-01-01-1,53.16,2026-10-05,1001\n"
           "SW-02-01-2,100.00,2026-10-06,1002\n")


def test_lockbox_demands_commitment_and_aging_in_the_web_app(client_for, personas, billed):
    c = client_for(personas["collector"])
    from django.core.files.uploadedfile import SimpleUploadedFile

    r = c.post("/collections/", {"batch-file": SimpleUploadedFile("lockbox.csv", LOCKBOX.encode(), "text/csv")})
    assert r.status_code == 302 and Payment.objects.count() == 2
    r = c.post("/collections/", {"batch-file": SimpleUploadedFile("again.csv", LOCKBOX.encode(), "text/csv")},
               follow=True)
    assert "already posted" in r.content.decode() and Payment.objects.count() == 2
    bad = LOCKBOX.replace("SW-02-01-2,100.00", "SW-02-01-2,-100.00")  # (an unknown account waits in suspense)
    r = c.post("/collections/", {"batch-file": SimpleUploadedFile("bad.csv", bad.encode(), "text/csv")})
    assert r.status_code == 400 and "row 3: amount" in r.content.decode()  # a refused file: 400 (issue 26)

    page = c.get("/collections/demands/", {"as_of": "2026-11-02"}).content.decode()
    assert "SW-02-01-1" in page and "SW-01-01-1" not in page  # the house was paid
    r = confirmed_post(c, "/collections/demands/", {"account": ["SW-02-01-1"], "served_on": "2026-11-02"})
    assert r.status_code == 302
    d = Demand.objects.get()
    pdf = c.get(f"/collections/demands/{d.pk}/pdf/")
    assert pdf.content[:5] == b"%PDF-"
    if shutil.which("pdftotext"):
        text = subprocess.run(["pdftotext", "-", "-"], input=pdf.content, capture_output=True).stdout.decode()
        assert "Demand for payment" in text and "14 days" in text and "25.00" in text

    page = c.get("/collections/commitments/", {"as_of": "2026-11-17"}).content.decode()
    assert "SW-02-01-1" in page
    r = confirmed_post(c, "/collections/commitments/?as_of=2026-11-17",
                       {"demand": [d.pk], "tax_fiscal_year": 2028, "committed_on": "2026-11-17"})
    commitment = Commitment.objects.get()
    assert r.status_code == 302 and commitment.lines.get().total == D("1455.33")
    csv_text = c.get(f"/collections/commitments/{commitment.pk}/export.csv").getvalue().decode()
    assert csv_text.splitlines()[0].startswith("parcel_id,account,owner") and "1455.33" in csv_text
    assert c.get(f"/collections/commitments/{commitment.pk}/export.pdf").content[:5] == b"%PDF-"
    assert c.get(f"/collections/commitments/{commitment.pk}/export.xlsx").status_code == 200

    aging = c.get("/collections/aging/", {"as_of": "2026-12-31"}).content.decode()
    assert "SW-02-01-2" in aging  # apartments: partly paid, past due
    assert c.get("/collections/delinquency.csv", {"as_of": "2026-12-31"}).status_code == 200


def test_statement_and_reversal_from_the_account_page(client_for, personas, billed):
    c = client_for(personas["collector"])
    c.post("/collections/", {"pay-account": "SW-02-01-1", "pay-amount": "1414.06", "pay-received_on": "2026-10-01",
                             "pay-method": "check", "pay-reference": "5001"})
    p = Payment.objects.get()
    page = c.get("/accounts/SW-02-01-1/", {"as_of": "2026-10-20"}).content.decode()
    assert "Due now $0.00" in page
    c.post(f"/payments/{p.pk}/reverse/", {"reason": "NSF", "reversed_on": "2026-11-01"})
    page = c.get("/accounts/SW-02-01-1/", {"as_of": "2026-11-15"}).content.decode()
    assert "reversed Nov 1, 2026" in page and "Due now $1,429.40" in page  # 1,414.06 + 15.34 interest


def test_owners_see_their_own_statement_only_and_cannot_post(client_for, personas, billed):
    c = client_for(personas["owner"])
    assert c.get("/accounts/SW-01-01-1/").status_code == 200
    assert c.get("/accounts/SW-02-01-1/").status_code == 404
    assert c.get("/api/accounts/SW-02-01-1/").status_code == 404
    assert c.get("/collections/").status_code == 403
    assert c.post("/api/payments/", json.dumps({"account": "SW-01-01-1", "amount": "1", "received_on": "2026-10-01"}),
                  content_type="application/json").status_code == 403


def test_api_payments_batch_reversal_account_demands_commitments_aging(client_for, personas, billed):
    c = client_for(personas["collector"])
    r = c.post("/api/payments/", json.dumps({"account": "SW-01-01-1", "amount": "100.00",
                                             "received_on": "2026-10-05", "reference": "77"}),
               content_type="application/json")
    assert r.status_code == 201
    body = r.json()
    assert [a["component"] for a in body["applied"]] == ["principal", "principal", "unapplied"]
    bad = c.post("/api/payments/", json.dumps({"account": "SW-NONE", "amount": "1", "received_on": "2026-10-05"}),
                 content_type="application/json")
    assert bad.status_code == 400 and bad.json()["error"].startswith("account")
    neg = c.post("/api/payments/", json.dumps({"account": "SW-01-01-1", "amount": "-1", "received_on": "2026-10-05"}),
                 content_type="application/json")
    assert neg.status_code == 400 and "amount" in neg.json()["error"]
    b = c.post("/api/payments/batch/", LOCKBOX, content_type="text/csv")
    assert b.status_code == 201 and b.json()["posted"] == 2
    assert c.post("/api/payments/batch/", LOCKBOX, content_type="text/csv").json()["already_posted"] is True
    rev = c.post(f"/api/payments/{body['id']}/reverse/", json.dumps({"reason": "keyed twice",
                                                                      "reversed_on": "2026-10-06"}),
                 content_type="application/json")
    assert rev.status_code == 200
    acct = c.get("/api/accounts/SW-02-01-1/", {"as_of": "2026-11-01"}).json()
    assert acct["installments"][0]["interest"] == "8.83"
    dem = c.post("/api/demands/", json.dumps({"accounts": ["SW-02-01-1", "SW-01-01-1"], "served_on": "2026-11-01"}),
                 content_type="application/json").json()
    assert [d["account"] for d in dem["served"]] == ["SW-02-01-1"]
    assert dem["errors"][0]["account"] == "SW-01-01-1"
    com = c.post("/api/commitments/", json.dumps({"demand_ids": [dem["served"][0]["id"]], "tax_fiscal_year": 2028,
                                                  "committed_on": "2026-11-20"}), content_type="application/json")
    assert com.status_code == 201
    aging = c.get("/api/collections/aging/", {"as_of": "2026-12-31"}).json()
    assert {a["account"] for a in aging["accounts"]} >= {"SW-02-01-2"}


def test_back_bill_from_the_web_refuses_more_than_a_year(client_for, personas, billed):
    c = client_for(personas["collector"])
    r = c.post("/collections/back-bill/", {"parcel_id": "01-01-1", "period_start": "2025-01-01",
                                            "period_end": "2026-06-30", "issue_date": "2027-01-04"})
    assert "at most one year of charges" in r.content.decode()


def test_water_sewer_import_lists_consolidated_bills(client_for, personas, town, resolution):
    from stormwater.utility.models import Bill, BillRun
    from stormwater.utility.services import bill_run_issue, fiscal_year

    town["shops"].water_sewer_account = "W-1234"
    town["shops"].save()
    label, start, end = fiscal_year(2027)
    bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2026, 9, 10),
                   acting_user=None)
    run = BillRun.objects.get()
    lines = client_for(personas["collector"]).get(f"/bill-runs/{run.pk}/water-sewer.csv").getvalue().decode().splitlines()
    assert lines[0].startswith("water_account,parcel_id")
    assert len(lines) == 3 and all(ln.startswith("W-1234,02-01-1") for ln in lines[1:])
    assert Bill.objects.get(parcel=town["shops"]).water_sewer_account == "W-1234"
    assert Account.objects.count() >= 1
