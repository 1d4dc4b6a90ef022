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
