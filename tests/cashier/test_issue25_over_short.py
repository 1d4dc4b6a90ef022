"""Issue 25 item 11: a batch that is over or short closes with a reason, a second person (another user with the
Collector/Treasurer role) approves it, and the general ledger carries an over/short line so that GL cash equals the
deposit. Written failing first."""
from datetime import date
from decimal import Decimal as D

import pytest
from django.urls import reverse

from stormwater.cashier.gl import gl_journal
from stormwater.cashier.models import BatchState
from stormwater.cashier.services import cash_batch_close, cash_batch_over_short_approve, deposit_create, receipt_post
from stormwater.receivables.services import CollectionError
from stormwater.townconfig import town_config
from stormwater.utility.models import Account


def acct(parcel):
    return Account.objects.get(parcel=parcel, unit=None)


@pytest.fixture
def second_collector(db):
    from stormwater.accounts.models import User
    from stormwater.accounts.roles import Role

    return User.objects.create_user(username="treasurer", password="pw-treasurer", role=Role.COLLECTOR)


def _gl_cash(day: date) -> D:
    cfg = town_config()
    cash = f"{cfg.gl_fund}-{cfg.gl_cash}"
    lines = gl_journal(start=day, end=day, cfg=cfg)
    return sum((x.debit - x.credit for x in lines if x.account == cash), D(0))


def test_a_short_batch_needs_a_reason_and_a_second_persons_approval(billed, personas, second_collector):
    c = personas["collector"]
    r = receipt_post(account=acct(billed["house2"]), amount="40.00", tender="cash", acting_user=c)
    with pytest.raises(CollectionError, match="over_short_reason"):
        cash_batch_close(batch=r.batch, counted={"cash": "39.99"}, acting_user=c)
    assert r.batch.__class__.objects.get(pk=r.batch.pk).state == BatchState.OPEN
    b = cash_batch_close(batch=r.batch, counted={"cash": "39.99"}, reason="a cent short in the drawer", acting_user=c)
    assert b.state == BatchState.CLOSED and b.over_short == D("-0.01") and b.over_short_reason
    assert b.over_short_approved_by is None
    # not deposited before the second person approves
    with pytest.raises(CollectionError, match="approv"):
        deposit_create(deposited_on=date(2026, 11, 2), bank_amount="39.99", batches=[b], acting_user=c)
    # not the cashier who closed it, not a user without the Collector/Treasurer role
    with pytest.raises(CollectionError, match="second person"):
        cash_batch_over_short_approve(batch=b, acting_user=c)
    with pytest.raises(CollectionError, match="Collector"):
        cash_batch_over_short_approve(batch=b, acting_user=personas["staff"])
    b = cash_batch_over_short_approve(batch=b, note="counted again: short", acting_user=second_collector)
    assert b.over_short_approved_by == second_collector and b.over_short_approved_at is not None
    dep = deposit_create(deposited_on=date(2026, 11, 2), bank_amount="39.99", batches=[b], acting_user=c)
    # the general ledger: receipts $40.00 in cash, over/short −$0.01 → GL cash = the deposit
    assert _gl_cash(date(2026, 11, 2)) == dep.bank_amount == D("39.99")
    cfg = town_config()
    lines = [x for x in gl_journal(start=date(2026, 11, 2), end=date(2026, 11, 2), cfg=cfg)
             if x.account == f"{cfg.gl_fund}-{cfg.gl_over_short}"]
    assert [(x.debit, x.credit) for x in lines] == [(D("0.01"), D("0"))]


def test_a_balanced_batch_closes_without_a_reason_or_approval(billed, personas):
    c = personas["collector"]
    r = receipt_post(account=acct(billed["house2"]), amount="40.00", tender="cash", acting_user=c)
    b = cash_batch_close(batch=r.batch, counted={"cash": "40.00"}, acting_user=c)
    assert b.over_short == 0
    deposit_create(deposited_on=date(2026, 11, 2), bank_amount="40.00", batches=[b], acting_user=c)


def test_the_batch_page_asks_the_reason_and_offers_the_approval(billed, personas, second_collector, client_for):
    c = personas["collector"]
    r = receipt_post(account=acct(billed["house2"]), amount="40.00", tender="cash", acting_user=c)
    web = client_for(c)
    url = reverse("cashier_batch", args=[r.batch.pk])
    resp = web.post(url, {"cash": "40.01", "check": "0", "card": "0", "ach": "0"})
    assert resp.status_code == 400 and "say why" in resp.content.decode()
    resp = web.post(url, {"cash": "40.01", "check": "0", "card": "0", "ach": "0", "over_short_reason": "found a cent"})
    assert resp.status_code == 302
    page = web.get(url).content.decode()
    assert "found a cent" in page and "Waiting for a second person" in page
    web = client_for(second_collector)
    resp = web.post(reverse("cashier_batch_approve", args=[r.batch.pk]), {"note": "ok"})
    assert resp.status_code == 302
    r.batch.refresh_from_db()
    assert r.batch.over_short_approved_by == second_collector
    assert _gl_cash(date(2026, 11, 2)) == D("40.01")
