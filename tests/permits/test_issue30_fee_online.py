"""Issue 30 "take the fee (online or recorded at the counter) as part of filing": the permit application fee paid
online through the one pay-online mechanism (receivables/online.py, online_fees.py).

Ch. 380 § 380-10 G(1): "The DPW shall obtain with each submission an application and inspection fee"; no review
begins until the fees are paid. Before: the pay-online hand-off paid accounts only (``OnlinePayment.account`` was
required), so an applicant could pay the fee only at the counter. Now: the filing page → "Pay the fee online and
file" → the Town's confirmation → the processor's page → the signed return: **paid online, pending settlement** (still
a draft: no clock, no notice) → the Collector posts the processor's settlement file → the fee is receipted with the
file (file total, daily cash, deposit, GL) and recorded paid with the counter's act, the application is filed with the
filing's act and the 42-day clock starts. Nothing doubles: the counter refuses a fee paid online, a fee paid online
after the counter took it is held as a refund due, a re-sent return and a re-sent settlement row change nothing.

The demo schedule: 2 acres → $2,000.00 (500 + 2 × 250 + 2 × 500)."""
from datetime import date
from decimal import Decimal as D
from urllib.parse import parse_qs, urlsplit

import pytest

from stormwater.permits import services as sv

from .conftest import complete_package

DAY = date(2026, 3, 2)


def _query(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query, keep_blank_values=True).items()}


@pytest.fixture
def ready(draft, personas, at, town_toml):
    """The owner's draft with every item in but the fee; the town as shipped (the built-in TEST processor)."""
    town_toml()
    at(DAY)
    complete_package(draft, personas["staff"], skip={"fees"})
    return draft


def _returned(op, **changes):
    from stormwater.receivables import online

    back = {"reference": op.reference, "confirmation": "TEST-FEE1", "amount": f"{op.amount:.2f}", "status": "paid"}
    back["signature"] = online.sign(op.processor, online.return_values(**back))
    return {**back, **changes}


def _paid_online(app, user):
    from stormwater.receivables import online, online_fees

    op = online_fees.fee_payment_start(application=app, acting_user=user)
    return online.online_payment_return(_returned(op)).online


def _settle(collector, *, content=None):
    """The Collector posts the TEST processor's settlement file (the bills' settlement path)."""
    from stormwater.receivables.processor import processor_file_post
    from stormwater.receivables.testprocessor import pay_test_settlement
    from django.test import RequestFactory

    if content is None:
        req = RequestFactory().get("/pay/test/settlement.csv")
        req.user = collector
        content = b"".join(pay_test_settlement(req).streaming_content)
    return processor_file_post(filename="settlement.csv", content=content, acting_user=collector), content


def test_the_applicant_pays_online_pending_then_the_settlement_receipts_it_and_files(ready, client_for, personas):
    from stormwater.cashier.gl import gl_journal
    from stormwater.cashier.selectors import daily_cash, deposit_lines
    from stormwater.cashier.services import deposit_create
    from stormwater.receivables.models import OnlinePayment
    from stormwater.receivables.processor import processor_file_post
    from stormwater.receivables.suspense import file_reconciliation
    from stormwater.townconfig import town_config

    app, n = ready, ready.case.number
    c = client_for(personas["owner"])
    page = c.get(f"/permits/{n}/").content.decode()
    assert f'href="/pay/permit/{n}/"' in page and "Pay the fee online and file" in page  # not offered before
    confirm = c.get(f"/pay/permit/{n}/")
    text = confirm.content.decode()
    assert confirm.status_code == 200 and "$2,000.00" in text and n in text and "pending settlement" in text
    r = c.post(f"/pay/permit/{n}/", {"amount": "2000.00"})
    assert r.status_code == 302 and r["Location"].startswith("/pay/test/?"), r
    q = _query(r["Location"])
    assert (q["account"], q["amount"], q["bill"]) == (n, "2000.00", "")  # the processor is told the permit
    assert c.get(r["Location"]).status_code == 200
    back = c.post("/pay/test/", {**q, "card_number": "4242 4242 4242 4242"})
    done = c.get(back["Location"])
    assert done.status_code == 302 and done["Location"] == f"/permits/{n}/"
    op = OnlinePayment.objects.get()
    assert (op.state, op.permit_id, op.account_id, op.amount) == ("paid", app.pk, None, D("2000.00"))

    # paid online, pending settlement: not money yet — still a draft, no clock, no notice, filing refused
    page = c.get(f"/permits/{n}/").content.decode()
    assert "Paid online, pending settlement" in page and op.confirmation in page
    assert "Pay the fee online and file" not in page  # not offered twice
    app.case.refresh_from_db()
    assert app.case.status == "draft" and not app.case.clocks.exists() and not app.filing_notices.exists()
    assert c.post(f"/permits/{n}/file/").status_code == 400
    api = c.get(f"/api/permits/{n}/").json()
    assert api["fees_paid_online"][0]["state"] == "pending_settlement" and api["fees_paid_on"] is None
    replay = c.get(back["Location"])  # the processor's return re-sent
    assert replay.status_code == 400 and OnlinePayment.objects.get().paid_at == op.paid_at

    # the Collector posts the processor's settlement file, as for bills
    coll = client_for(personas["collector"])
    csv = b"".join(coll.get("/pay/test/settlement.csv").streaming_content)
    assert f"{n},2000.00,03/02/2026,{op.confirmation}" in csv.decode()
    check = processor_file_post(filename="settlement.csv", content=csv, acting_user=personas["collector"],
                                dry_run=True)
    assert "permit fee paid online would be receipted ($2000.00): " + n in check.message
    assert OnlinePayment.objects.get().settled_file_id is None  # a check writes nothing
    res = processor_file_post(filename="settlement.csv", content=csv, acting_user=personas["collector"])
    assert res.batch.total == D("2000.00") and "permit fee paid online was receipted" in res.message
    op.refresh_from_db()
    app.refresh_from_db()
    assert (op.settled_file_id, op.settled_on) == (res.batch.pk, DAY)
    assert app.fees_paid_on == DAY and app.fees_receipt == f"online {op.confirmation}"
    assert app.fees_total == D("2000.00")
    # the filing proceeded with the filing's own act: filed on the day paid, the 42-day clock started, notices sent
    assert app.case.status == "filed" and app.case.filed_on == DAY
    clock = app.case.clocks.get(kind="action")
    assert clock.start == DAY and app.filing_notices.exists()
    assert c.get(f"/api/permits/{n}/").json()["fees_paid_online"][0]["state"] == "settled"

    # receipted the way the office's money is: the file's totals, the daily cash, the deposit, the GL
    rec = file_reconciliation(res.batch)
    assert rec.balanced and rec.permit_fees == D("2000.00") and rec.posted == 0
    assert daily_cash(DAY).files_total == D("2000.00")
    dep = deposit_create(deposited_on=DAY, bank_amount="2000.00", files=[res.batch], acting_user=personas["collector"])
    assert deposit_lines([dep])[0].difference == 0
    cfg = town_config()
    gl = [x for x in gl_journal(start=DAY, end=DAY, cfg=cfg) if x.account == f"{cfg.gl_fund}-{cfg.gl_permit_fees}"]
    assert [(x.credit, x.entries) for x in gl] == [(D("2000.00"), 1)]

    # the processor's cumulative file the next day (the fee's row again, and a new row): the fee is receipted once
    later = csv.rstrip(b"\r\n") + b"\r\nSWP-2026-9999,5.00,03/02/2026,TEST-OTHER\r\n"
    again, _ = _settle(personas["collector"], content=later)
    assert again.batch.pk != res.batch.pk and again.batch.total == 0 and again.skipped == (2,)
    app.refresh_from_db()
    assert app.case.clocks.filter(kind="action").count() == 1 and OnlinePayment.objects.get().settled_file_id == \
        res.batch.pk and app.filing_notices.count() == len(set(app.filing_notices.values_list("recipient_key",
                                                                                                flat=True)))


def test_the_counter_refuses_a_fee_paid_online_and_online_refuses_a_fee_paid_at_the_counter(
        ready, personas, client_for):
    from stormwater.receivables import online_fees

    n = ready.case.number
    op = _paid_online(ready, personas["owner"])
    with pytest.raises(ValueError, match="paid online") as e:  # the same act, the same refusal (service, page, API)
        sv.permit_fees_paid(application=ready, paid_on=DAY, receipt="DPW-9", acting_user=personas["staff"])
    assert op.confirmation in str(e.value) and "pending settlement" in str(e.value)
    staff = client_for(personas["staff"])
    assert 'name="receipt"' not in staff.get(f"/permits/{n}/").content.decode()  # no counter form meanwhile
    r = staff.post(f"/api/permits/{n}/fees-paid/", {"receipt": "DPW-9"}, content_type="application/json")
    assert r.status_code == 400 and "paid online" in r.json()["error"]
    with pytest.raises(ValueError, match="pending settlement"):  # and not twice online
        online_fees.fee_payment_start(application=ready, acting_user=personas["owner"])
    ready.refresh_from_db()
    assert ready.fees_paid_on is None


def test_paying_online_is_refused_when_the_fee_is_paid_or_items_are_missing(draft, personas, at, town_toml,
                                                                            client_for):
    from stormwater.receivables import online_fees
    from stormwater.receivables.models import OnlinePayment

    town_toml()
    at(DAY)
    n = draft.case.number
    c = client_for(personas["owner"])
    page = c.get(f"/permits/{n}/").content.decode()
    assert "Paying online is offered once every other item is in" in page and f"/pay/permit/{n}/" not in page
    r = c.post(f"/pay/permit/{n}/", {"amount": "2000.00"})  # the package is empty: the fee would file nothing
    assert r.status_code == 400 and "Add the missing items first" in r.content.decode()
    complete_package(draft, personas["staff"])  # the fee recorded at the counter too
    with pytest.raises(ValueError, match="are paid"):
        online_fees.fee_payment_start(application=draft, acting_user=personas["owner"])
    page = c.get(f"/pay/permit/{n}/").content.decode()
    assert "are paid" in page and "Continue to the payment page" not in page
    assert not OnlinePayment.objects.exists()
    assert client_for(personas["outsider"]).get(f"/pay/permit/{n}/").status_code == 404  # not theirs


def test_a_fee_paid_online_after_the_counter_took_it_is_a_refund_due(ready, personas):
    """The applicant started the online payment, staff took the fee at the counter meanwhile, then the processor
    took the money: the settlement row is not a second fee but a refund due (held in suspense for the Collector's
    refund, issue 25's exceptions list); nothing else changes."""
    from stormwater.receivables import online, online_fees
    from stormwater.receivables.models import SuspenseItem

    op = online_fees.fee_payment_start(application=ready, acting_user=personas["owner"])
    sv.permit_fees_paid(application=ready, paid_on=DAY, receipt="DPW-7", acting_user=personas["staff"])
    online.online_payment_return(_returned(op))
    res, csv = _settle(personas["collector"])
    item = SuspenseItem.objects.get()
    assert (item.reason, item.amount, item.account_text) == ("fee_already_paid", D("2000.00"), ready.case.number)
    assert "refund" in item.detail and res.batch.total == 0
    ready.refresh_from_db()
    op.refresh_from_db()
    assert ready.fees_receipt == "DPW-7" and op.settled_file_id is None and online_fees.fee_pending(ready) is None
    assert online_fees.fees_paid_online(ready)[0]["state"] == "refund_due"
    again, _ = _settle(personas["collector"], content=csv.replace(b"\n", b"\r\n"))  # re-sent: held once
    assert SuspenseItem.objects.count() == 1


def test_an_online_payment_pays_an_account_or_a_permit_fee_never_both(ready, house_account):
    from django.db import IntegrityError, transaction

    from stormwater.receivables.models import OnlinePayment

    for kw in ({}, {"account": house_account, "permit": ready}):
        with pytest.raises(IntegrityError), transaction.atomic():
            OnlinePayment.objects.create(reference=f"OP-x{len(kw)}", amount=D("1.00"), processor="test", **kw)


@pytest.fixture
def house_account(town):
    from stormwater.utility.models import Account

    return Account.objects.create(parcel=town["house"], number="T-1")
