"""Issue 17 "Wrong today": each defect the Collector's office found, as a test written from the ordinance
(Ch. 295 Art. IV billing ¶¶A–G), the statute (MGL c.4 §9) or the observed defect."""
import json
from datetime import date

import pytest

from stormwater.receivables.models import Demand
from stormwater.rules.deadlines import deadline

D = date


# --- 1. Commitment and MGL c.4 §9 ------------------------------------------------------------------

def test_commitment_waits_for_the_owners_last_day_to_pay_rolled_past_christmas_and_the_weekend():
    # Mailed Fri 2026-12-11: the 14th day is Fri 12-25 (Christmas), so the owner may pay through Mon 12-28;
    # the Collector may commit from Tue 12-29 — not on Sat 12-26.
    d = deadline("demand_to_commitment", D(2026, 12, 11))
    assert d.due == D(2026, 12, 29)
    assert "2026-12-28" in d.rule and "last day to pay" in d.rule and "Christmas" in d.rule
    assert "first day the Collector may commit" in d.rule


def test_calc_deadline_cli_gives_the_commitment_day_after_the_rolled_last_day(monkeypatch, capsys):
    import io

    from stormwater import cli

    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps({"clock": "demand_to_commitment",
                                                             "start": "2026-12-11"})))
    assert cli.main(["calc", "deadline"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["due"] == "2026-12-29" and "2026-12-28" in out["rule"]


def test_api_commitments_refuses_a_commitment_before_the_owners_rolled_last_day(client_for, personas, billed):
    c = client_for(personas["collector"])
    dem = c.post("/api/demands/", json.dumps({"accounts": ["SW-02-01-1"], "served_on": "2026-12-11"}),
                 content_type="application/json").json()
    demand_id = dem["served"][0]["id"]
    for early in ("2026-12-26", "2026-12-28"):
        r = c.post("/api/commitments/", json.dumps({"demand_ids": [demand_id], "tax_fiscal_year": 2028,
                                                    "committed_on": early}), content_type="application/json")
        assert r.status_code == 400 and "2026-12-29" in r.json()["error"], r.content
    r = c.post("/api/commitments/", json.dumps({"demand_ids": [demand_id], "tax_fiscal_year": 2028,
                                                "committed_on": "2026-12-29"}), content_type="application/json")
    assert r.status_code == 201


@pytest.mark.parametrize("as_of", [D(2026, 12, 1) + __import__("datetime").timedelta(days=i) for i in range(45)])
def test_the_commitment_list_offers_exactly_the_demands_whose_commitment_day_has_come(as_of):
    from stormwater.receivables.selectors import latest_ripe_mailing
    from stormwater.receivables.services import commitment_due_on
    from types import SimpleNamespace

    last = latest_ripe_mailing(as_of)
    assert commitment_due_on(SimpleNamespace(served_on=last)) <= as_of
    for later in range(1, 6):
        mailed = last + __import__("datetime").timedelta(days=later)
        assert commitment_due_on(SimpleNamespace(served_on=mailed)) > as_of


# --- 4. The back-bill PDF (billing ¶A: "no late fees or delinquency charges of any kind") -------------

def _pdf_text(content: bytes) -> str:
    import subprocess

    return " ".join(subprocess.run(["pdftotext", "-", "-"], input=content, capture_output=True,
                                   check=True).stdout.decode().split())


def _unbilled_parcel(billed):
    from decimal import Decimal

    from stormwater.parcels.models import Parcel, ParcelImpervious

    p = Parcel.objects.create(parcel_id="09-09-9", address="9 Late Rd", owner=billed["shops"].owner,
                              land_use_code="340", lot_sqft=Decimal(50000))
    ParcelImpervious.objects.create(survey=billed["survey"], parcel=p, impervious_sqft=Decimal(6800))
    return p


def test_the_back_bill_pdf_says_no_interest_or_lien_applies(billed, personas):
    from stormwater.receivables.services import back_bill_issue
    from stormwater.utility.documents import bill_pdf

    bill = back_bill_issue(parcel=_unbilled_parcel(billed), period_start=D(2026, 7, 1), period_end=D(2027, 6, 30),
                           issue_date=D(2026, 12, 1), acting_user=personas["collector"])
    text = _pdf_text(bill_pdf(bill))
    assert "accrue interest" not in text and "lien" not in text.lower()
    assert "back bill" in text.lower() and "no interest" in text.lower()


# --- 5. Payments post twice: a payment is a duplicate by its content ---------------------------------

LOCKBOX = ("account,amount,received_on,reference\n"
           "SW-01-01-1,53.16,2026-10-05,1001\n"
           "SW-02-01-2,100.00,2026-10-06,1002\n")


def test_the_same_rows_resaved_with_crlf_post_nothing_again(billed, personas):
    from stormwater.receivables.models import Payment
    from stormwater.receivables.services import payment_batch_post

    payment_batch_post(filename="a.csv", content=LOCKBOX.encode(), acting_user=personas["collector"])
    r = payment_batch_post(filename="a-resaved.csv", content=LOCKBOX.replace("\n", "\r\n").encode(),
                           acting_user=personas["collector"])
    assert r.posted == 0 and r.already_posted and "already posted" in r.message
    assert Payment.objects.count() == 2


def test_a_cumulative_bank_file_posts_only_its_new_rows_and_says_so(billed, personas):
    from decimal import Decimal

    from stormwater.receivables.models import Payment
    from stormwater.receivables.services import payment_batch_post

    payment_batch_post(filename="monday.csv", content=LOCKBOX.encode(), acting_user=personas["collector"])
    tuesday = LOCKBOX + "SW-02-01-1,200.00,2026-10-07,1003\n"
    r = payment_batch_post(filename="tuesday.csv", content=tuesday.encode(), acting_user=personas["collector"])
    assert r.posted == 1 and r.total == Decimal("200.00") and not r.already_posted
    assert "2 rows were already posted" in r.message and "rows 2, 3" in r.message
    wednesday = tuesday + "SW-01-01-1,10.00,2026-10-08,1004\n"
    r = payment_batch_post(filename="wednesday.csv", content=wednesday.encode(), acting_user=personas["collector"])
    assert r.posted == 1 and "3 rows were already posted" in r.message
    assert Payment.objects.count() == 4
    assert sorted(Payment.objects.values_list("reference", flat=True)) == ["1001", "1002", "1003", "1004"]


def test_the_same_check_number_posts_once_through_the_api(client_for, personas, billed):
    from stormwater.receivables.models import Payment

    c = client_for(personas["collector"])
    body = json.dumps({"account": "SW-01-01-1", "amount": "53.16", "received_on": "2026-10-05",
                       "reference": "1001"})
    assert c.post("/api/payments/", body, content_type="application/json").status_code == 201
    r = c.post("/api/payments/", body, content_type="application/json")
    # Refused, naming the earlier payment; posted only when the caller confirms it is a second one (issue 16).
    assert r.status_code == 400 and r.json()["duplicates"][0]["reference"] == "1001"
    assert Payment.objects.count() == 1
    # A file carrying the same check is told so too.
    from stormwater.receivables.services import payment_batch_post

    r = payment_batch_post(filename="b.csv", content=LOCKBOX.encode(), acting_user=personas["collector"])
    assert r.posted == 1 and Payment.objects.count() == 2


# --- 6. One absurd amount: refused by row and column, and the office keeps working -------------------

ABSURD = "account,amount,received_on,reference\nSW-01-01-1,53.16,2026-10-05,1\nSW-02-01-2,99999999999999.00,2026-10-06,2\n"


def test_an_absurd_lockbox_amount_is_refused_by_row_and_column(client_for, personas, billed):
    from stormwater.receivables.models import Payment

    c = client_for(personas["collector"])
    r = c.post("/api/payments/batch/", ABSURD, content_type="text/csv")
    assert r.status_code == 400 and "row 3: amount" in r.json()["error"] and "too large" in r.json()["error"]
    r = c.post("/api/payments/batch/", ABSURD.replace("99999999999999.00", "250000.00"), content_type="text/csv")
    assert r.status_code == 400 and "row 3: amount: $250,000.00 is above the plausibility limit" in r.json()["error"]
    assert Payment.objects.count() == 0
    assert c.get("/collections/").status_code == 200 and c.get("/accounts/SW-02-01-2/").status_code == 200


def test_the_plausibility_limit_comes_from_the_town_configuration(billed, personas, town_toml):
    from stormwater.receivables.services import BatchRejected, CollectionError, payment_batch_post, payment_post
    from stormwater.utility.models import Account

    town_toml(payment_plausible_max="500.00")
    text = "account,amount,received_on,reference\nSW-01-01-1,500.01,2026-10-05,1\n"
    with pytest.raises(BatchRejected, match=r"row 2: amount: \$500.01 is above .*\$500.00.*payment_plausible_max"):
        payment_batch_post(filename="c.csv", content=text.encode(), acting_user=personas["collector"])
    with pytest.raises(CollectionError, match="amount: .*payment_plausible_max"):
        payment_post(account=Account.objects.get(number="SW-01-01-1"), amount="600", received_on=D(2026, 10, 5),
                     acting_user=personas["collector"])


def test_an_amount_over_the_columns_digits_is_refused_even_under_a_high_limit(billed, personas, town_toml):
    from stormwater.receivables.services import BatchRejected, payment_batch_post

    town_toml(payment_plausible_max="1000000000000000.00")
    with pytest.raises(BatchRejected, match=r"row 3: amount: .*too large"):
        payment_batch_post(filename="d.csv", content=ABSURD.encode(), acting_user=personas["collector"])


# --- 8. Future-dated demands and commitments; the demand form's dates ---------------------------------

def test_a_demand_dated_in_the_future_is_refused(billed, personas):
    from stormwater.receivables.services import CollectionError, demand_serve
    from stormwater.utility.models import Account

    with pytest.raises(CollectionError, match="served_on: 2027-06-02 is in the future"):
        demand_serve(account=Account.objects.get(number="SW-02-01-1"), served_on=D(2027, 6, 2), acting_user=None)


def test_a_commitment_dated_in_the_future_is_refused(billed, personas):
    from stormwater.receivables.services import CollectionError, commitment_create, demand_serve
    from stormwater.utility.models import Account

    d = demand_serve(account=Account.objects.get(number="SW-02-01-1"), served_on=D(2026, 11, 2), acting_user=None)
    with pytest.raises(CollectionError, match="committed_on: 2027-06-02 is in the future"):
        commitment_create(tax_fiscal_year=2028, committed_on=D(2027, 6, 2), demands=[d], acting_user=None)


def test_the_demand_form_answers_a_field_error_for_a_date_that_is_not_iso(client_for, personas, billed):
    c = client_for(personas["collector"])
    r = c.post("/collections/demands/", {"account": ["SW-02-01-1"], "served_on": "11/02/2026"}, follow=True)
    assert r.status_code == 400 and "served_on" in r.content.decode() and not Demand.objects.exists()
    r = c.get("/collections/demands/", {"as_of": "11/02/2026"})
    assert r.status_code in (200, 400) and "as_of" in r.content.decode()
    r = c.post("/api/demands/", json.dumps({"accounts": ["SW-02-01-1"], "served_on": "11/02/2026"}),
               content_type="application/json")
    assert r.status_code == 400 and r.json()["error"].startswith("served_on")
    r = c.post("/collections/commitments/", {"demand": [], "tax_fiscal_year": "2028", "committed_on": "12/29/2026"})
    assert r.status_code == 200 and "committed_on" in r.content.decode() or "date" in r.content.decode()


# --- 7. Bill runs, closed books and the fiscal year ---------------------------------------------------

def test_a_bill_run_is_refused_inside_closed_books_and_outside_the_fiscal_years_window(town, resolution, personas):
    from django.core.management import CommandError, call_command

    from stormwater.receivables.services import period_close
    from stormwater.utility.models import BillRun, LedgerEntry
    from stormwater.utility.services import BillingError, bill_run_issue, fiscal_year

    period_close(closed_through=D(2026, 11, 30), acting_user=None)
    label, start, end = fiscal_year(2027)
    with pytest.raises(BillingError, match=r"issue_date: 2026-10-01 is in a closed period.*2026-11-30"):
        bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=D(2026, 10, 1),
                       acting_user=None)
    with pytest.raises(CommandError, match="closed period"):
        call_command("bill_run", "--fiscal-year", "2031", "--issue-date", "2026-10-01")
    label, start, end = fiscal_year(2031)
    with pytest.raises(BillingError, match=r"issue_date: 2026-12-15 is outside .*FY2031.*bill_issue_months_before"):
        bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=D(2026, 12, 15),
                       acting_user=None)
    assert not LedgerEntry.objects.exists() and not BillRun.objects.exists()


def test_fy2029_issued_years_early_is_refused_and_the_window_is_the_towns(db, resolution, town_toml):
    from stormwater.utility.services import BillingError, bill_run_start, fiscal_year

    label, start, end = fiscal_year(2029)
    with pytest.raises(BillingError, match="outside"):
        bill_run_start(period_label=label, period_start=start, period_end=end, issue_date=D(2026, 1, 1),
                       acting_user=None)
    town_toml(bill_issue_months_before_period=36)
    run, created = bill_run_start(period_label=label, period_start=start, period_end=end, issue_date=D(2026, 1, 1),
                                  acting_user=None)
    assert created


# --- 3. Condominium units on demands, demand PDFs and the commitment list (¶G) ------------------------

def test_a_condo_units_demand_and_commitment_name_the_unit_owner_and_the_unit(client_for, personas, billed):
    from stormwater.receivables.services import commitment_create, demand_serve
    from stormwater.utility.models import Account

    unit_b = Account.objects.get(parcel=billed["condo"], unit__unit="B")
    from stormwater.parcels.models import Owner

    unit_owner = Owner.objects.create(name="Bea Unitowner", mailing_address="4 Unit B\nLongmeadow, MA 01106")
    unit_b.unit.owner = unit_owner
    unit_b.unit.save()
    unit_b = Account.objects.get(pk=unit_b.pk)
    d = demand_serve(account=unit_b, served_on=D(2026, 11, 2), acting_user=None)
    c = client_for(personas["collector"])
    text = _pdf_text(c.get(f"/collections/demands/{d.pk}/pdf/").content)
    assert unit_owner.name in text and "04-01-1-UB" in text and "unit B" in text
    com = commitment_create(tax_fiscal_year=2028, committed_on=D(2026, 11, 17), demands=[d], acting_user=None)
    csv_text = c.get(f"/collections/commitments/{com.pk}/export.csv").getvalue().decode()
    header, row = csv_text.splitlines()[:2]
    cols = dict(zip(header.split(","), row.split(",")))
    assert cols["parcel_id"] == "04-01-1-UB" and cols["owner"] == unit_owner.name and cols["unit"] == "B"
    page = c.get(f"/collections/commitments/{com.pk}/").content.decode()
    assert "04-01-1-UB" in page and unit_owner.name in page
    pdf = _pdf_text(c.get(f"/collections/commitments/{com.pk}/export.pdf").content)
    assert "04-01-1-UB" in pdf and unit_owner.name in pdf
