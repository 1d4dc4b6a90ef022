"""Issue 25 item 5: "Two answers to what do I owe". The parcels list and the owner's home showed the posted ledger;
the account, the bill, the cashier's window and the lien certificate the ledger with interest to the day. One figure
now, "Due now" (``receivables.owed``), read by every page that shows what an account owes (Ch. 295 Art. IV billing
¶C: interest to the day is owed)."""
from __future__ import annotations

from datetime import date
from decimal import Decimal as D

from stormwater.receivables.owed import DueNow, owed
from stormwater.rules.money import fmt_usd
from stormwater.utility.models import Account


def test_the_same_account_shows_the_same_due_now_on_every_page(billed, personas, client_for, at):
    at(date(2027, 6, 1))  # midday: the office's day is the same day in Longmeadow and on the server
    a = Account.objects.get(parcel=billed["house"], unit=None)
    o = owed(a, as_of=date(2027, 6, 1))
    # FY2027 unpaid since Oct 13, 2026: the posted ledger is the fee; interest to the day is owed on top of it.
    assert o.principal == D("53.16") and o.interest > 0 and o.due_now == D("53.16") + o.interest
    figure, posted = fmt_usd(o.due_now), fmt_usd(D("53.16"))
    owner, collector = client_for(personas["owner"]), None
    pages = {"owner's home": (owner, "/"), "owner's portal": (owner, "/portal/"),
             "account page": (owner, f"/accounts/{a.number}/"),
             "bill page": (owner, f"/bills/{a.bills.get().number}/")}
    for name, (c, url) in pages.items():
        page = c.get(url).content.decode()
        assert figure in page, (name, figure)
        assert "Due now" in page, name
    collector = client_for(personas["collector"])
    for name, url in {"parcels list": "/parcels/?q=01-01-1", "accounts list": f"/accounts/?q={a.number}",
                      "cashier's window": f"/cashier/accounts/{a.number}/"}.items():
        page = collector.get(url).content.decode()
        assert figure in page, (name, figure)
        assert posted not in page, (name, "the posted ledger shown as what is owed")
        assert "Due now" in page, name
    csv = b"".join(collector.get("/parcels/?q=01-01-1&export=csv").streaming_content).decode()
    assert str(o.due_now) in csv and "Due now" in csv


def test_due_now_as_an_expression_is_the_accounts_figure_and_a_parcel_sums_its_units(billed):
    on = date(2027, 6, 1)
    rows = Account.objects.annotate(due=DueNow(as_of=on)).order_by("pk")
    for acct in rows:
        assert acct.due == owed(acct, as_of=on).due_now, acct.number
    from stormwater.parcels.models import Parcel

    condo = Parcel.objects.annotate(due=DueNow(as_of=on, by="parcel")).get(pk=billed["condo"].pk)
    assert condo.due == sum((owed(x, as_of=on).due_now for x in Account.objects.filter(parcel=condo)), D(0))
