"""Issue 25 item 10: the municipal lien certificate fee (MGL c.60 § 23) is receipted at the window — into the cashier's
open batch, the daily cash, the deposit and the general ledger under its own revenue line — and a certificate is
requested by address as well as by parcel id. Written failing first (the fee was a free-text reference only)."""
from datetime import date
from decimal import Decimal as D

import pytest
from django.urls import reverse

from stormwater.cashier.gl import gl_journal
from stormwater.cashier.liens import lien_certificate_issue, lien_certificate_request
from stormwater.cashier.models import FeeReceipt, LienCertificate
from stormwater.cashier.selectors import daily_cash
from stormwater.cashier.services import batch_expected, cash_batch_close, deposit_create, lien_fee_receipt
from stormwater.receivables.services import CollectionError
from stormwater.townconfig import town_config


def test_the_fee_is_receipted_into_the_batch_daily_cash_deposit_and_gl(billed, personas):
    c = personas["collector"]
    cert = lien_certificate_request(parcel=billed["shops"], requester_name="Dana Attorney", acting_user=c)
    with pytest.raises(CollectionError, match="check number"):
        lien_fee_receipt(cert=cert, tender="check", acting_user=c)
    fr = lien_fee_receipt(cert=cert, tender="check", reference="881", payer="Dana Attorney", acting_user=c)
    cert.refresh_from_db()
    assert fr.amount == D("25.00") and fr.batch.cashier == c and cert.fee_reference == fr.number
    with pytest.raises(CollectionError, match="already"):
        lien_fee_receipt(cert=cert, tender="cash", acting_user=c)
    assert batch_expected(fr.batch)["check"] == D("25.00")
    rep = daily_cash(date(2026, 11, 2))
    assert rep.fees_total == D("25.00") and rep.total == D("25.00")
    lien_certificate_issue(cert=cert, acting_user=c)  # the fee's receipt is on record: no reference to type
    b = cash_batch_close(batch=fr.batch, counted={"check": "25.00"}, acting_user=c)
    dep = deposit_create(deposited_on=date(2026, 11, 2), bank_amount="25.00", batches=[b], acting_user=c)
    cfg = town_config()
    lines = gl_journal(start=date(2026, 11, 2), end=date(2026, 11, 2), cfg=cfg)
    fees = [x for x in lines if x.account == f"{cfg.gl_fund}-{cfg.gl_lien_certificate_fees}"]
    assert [(x.debit, x.credit) for x in fees] == [(D("0"), D("25.00"))]
    cash = sum((x.debit - x.credit for x in lines if x.account == f"{cfg.gl_fund}-{cfg.gl_cash}"), D(0))
    assert cash == dep.bank_amount


def test_a_certificate_is_requested_by_address(billed, personas, client_for):
    web = client_for(personas["owner"])
    r = web.post(reverse("lien_certificate_request"), {"parcel_id": "01-01-2 test st", "requester_name": "B. Buyer"})
    assert r.status_code == 302 and LienCertificate.objects.get().parcel == billed["house2"]
    r = web.post(reverse("lien_certificate_request"), {"parcel_id": "Test St", "requester_name": "B. Buyer"})
    page = r.content.decode()
    assert r.status_code == 400 and "parcels match" in page and "01-01-2" in page


def test_the_fee_at_the_counter_through_the_pages(billed, personas, client_for):
    web = client_for(personas["collector"])
    r = web.post(reverse("cashier_liens"), {"parcel_id": "02-01-1", "requester_name": "Walk In", "channel": "counter",
                                            "fee_tender": "cash"})
    cert = LienCertificate.objects.get()
    assert r.status_code == 302 and FeeReceipt.objects.get().certificate == cert
    cert2 = lien_certificate_request(parcel=billed["house"], requester_name="Online", acting_user=personas["owner"],
                                     channel="online")
    r = web.post(reverse("cashier_lien_fee", args=[cert2.pk]), {"tender": "check", "reference": "5"})
    assert r.status_code == 302 and FeeReceipt.objects.count() == 2
    page = web.get(reverse("cashier_daily")).content.decode()
    assert "Lien certificate fees" in page and "$50.00" in page
