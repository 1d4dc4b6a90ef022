"""Refund vouchers (a second person approves) and the general ledger export (issue 17)."""
from datetime import date
from decimal import Decimal as D

import pytest
from django.urls import reverse

from stormwater.cashier.gl import gl_journal
from stormwater.cashier.models import RefundState
from stormwater.cashier.refunds import refund_approve, refund_reject, refund_request
from stormwater.receivables.ledger import account_position
from stormwater.receivables.services import CollectionError, payment_post
from stormwater.rules.town import TownConfig
from stormwater.utility.models import Account, EntryKind

from .conftest import pdf_text  # noqa: F401


def acct(parcel):
    return Account.objects.get(parcel=parcel, unit=None)


@pytest.fixture
def overpaid(billed, personas):
    a = acct(billed["house"])
    payment_post(account=a, amount=D("100.00"), received_on=date(2026, 10, 1), acting_user=None)
    return a  # $53.16 billed, both installments paid: a $46.84 credit balance


def test_a_refund_needs_a_second_person_and_takes_the_credit(overpaid, personas):
    collector, director = personas["collector"], personas["director"]
    assert account_position(overpaid, as_of=date(2026, 11, 2)).credit == D("46.84")
    with pytest.raises(CollectionError, match="more than the credit balance"):
        refund_request(account=overpaid, amount="50.00", payee="Olivia", reason="overpaid", acting_user=collector)
    v = refund_request(account=overpaid, amount="46.84", payee="Olivia Owner", reason="overpaid", acting_user=collector)
    with pytest.raises(CollectionError, match="more than the credit balance"):  # the pending voucher counts
        refund_request(account=overpaid, amount="1.00", payee="Olivia", reason="again", acting_user=collector)
    with pytest.raises(CollectionError, match="second person"):
        refund_approve(voucher=v, acting_user=collector)
    v = refund_approve(voucher=v, acting_user=director)
    assert v.state == RefundState.APPROVED and v.entry.kind == EntryKind.REFUND and v.entry.amount == D("46.84")
    pos = account_position(overpaid, as_of=date(2026, 11, 2))
    # no credit left; the second installment (issued in March) stays paid ahead
    assert pos.credit == D("0.00") and pos.total == D("-26.58")
    with pytest.raises(CollectionError, match="already approved"):
        refund_reject(voucher=v, note="no", acting_user=director)


def test_a_rejected_voucher_needs_a_reason_and_frees_the_credit(overpaid, personas):
    v = refund_request(account=overpaid, amount="10.00", payee="O", reason="r", acting_user=personas["collector"])
    with pytest.raises(CollectionError, match="say why"):
        refund_reject(voucher=v, acting_user=personas["director"])
    refund_reject(voucher=v, note="owner asked to keep the credit", acting_user=personas["director"])
    refund_request(account=overpaid, amount="46.84", payee="O", reason="r", acting_user=personas["collector"])


def test_refund_pages(overpaid, personas, client_for):
    c = client_for(personas["collector"])
    r = c.post(reverse("cashier_refund_new", args=[overpaid.number]),
               {"amount": "46.84", "payee": "Olivia Owner", "payee_address": "1 Elm St", "reason": "overpaid"})
    assert r.status_code == 302
    page = c.get(reverse("cashier_refunds")).content.decode()
    assert "a second person decides" in page
    assert client_for(personas["staff"]).get(reverse("cashier_refunds")).status_code == 403
    d = client_for(personas["director"])
    from stormwater.cashier.models import RefundVoucher

    v = RefundVoucher.objects.get()
    r = d.post(reverse("cashier_refund_decide", args=[v.pk, "approve"]), {"note": "ok"}, follow=True)
    assert "approved: the refund is posted" in r.content.decode()


def test_gl_journal_is_balanced_and_uses_the_town_codes(overpaid, billed, personas, client_for):
    v = refund_request(account=overpaid, amount="46.84", payee="O", reason="r", acting_user=personas["collector"])
    refund_approve(voucher=v, acting_user=personas["director"])
    cfg = TownConfig(gl_fund="6200", gl_cash="104100")
    lines = gl_journal(start=date(2026, 7, 1), end=date(2026, 11, 2), cfg=cfg)
    assert sum(x.debit for x in lines) == sum(x.credit for x in lines) > 0
    cash = [x for x in lines if x.account == "6200-104100"]
    # receipts: $100 in (principal 53.16 + credit 46.84); the refund: $46.84 out
    assert sum(x.debit for x in cash) == D("100.00") and sum(x.credit for x in cash) == D("46.84")
    revenue = [x for x in lines if x.account == "6200-424000"]
    assert sum(x.credit for x in revenue) > 0  # the commitment of the bills
    c = client_for(personas["collector"])
    csv = b"".join(c.get(reverse("cashier_gl_export", args=["csv"]),
                         {"start": "2026-07-01", "end": "2026-11-02"}).streaming_content).decode()
    assert "6100-104000" in csv and "Refunds paid" in csv and ",Total," in csv
    assert c.get(reverse("cashier_gl"), {"start": "2026-11-02", "end": "2026-07-01"}).status_code == 200
    assert c.get(reverse("cashier_gl_export", args=["csv"]), {"start": "bad"}).status_code == 302


def test_the_offices_town_settings_are_checked():
    from stormwater.rules.town import town_config_from

    cfg = town_config_from({"lien_certificate_fee": "50", "returned_check_charge": 25, "gl_cash": "104100"})
    assert (cfg.lien_certificate_fee, cfg.returned_check_charge, cfg.gl_cash) == (D("50"), D("25"), "104100")
    for bad in ({"lien_certificate_fee": "-1"}, {"returned_check_charge": "1e9"}):
        with pytest.raises(ValueError, match="between 0 and 9,999.99"):
            town_config_from(bad)
    with pytest.raises(ValueError, match="gl_cash must be a str"):
        town_config_from({"gl_cash": 104100})
