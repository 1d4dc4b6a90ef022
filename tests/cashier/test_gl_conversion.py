"""Go-live opening balances in the general ledger export (left-alone note of issue 32): the old system's books
already carry the balances converted at the cut-over (receivable, credit balances), so a converted entry moves the
holder's side against a conversion clearing account the Town Accountant reconciles, never against fee revenue."""
from datetime import date
from decimal import Decimal as D

from stormwater.cashier.gl import gl_journal
from stormwater.rules.town import TownConfig
from stormwater.utility.models import Account, Component, EntryKind, LedgerEntry


def test_a_converted_credit_balance_posts_to_the_conversion_clearing_account_not_revenue(billed):
    a = Account.objects.get(parcel=billed["house"], unit=None)
    LedgerEntry.objects.create(account=a, kind=EntryKind.CONVERSION, component=Component.UNAPPLIED,
                               amount=D("-12.50"), effective_on=date(2026, 11, 2),
                               memo="Converted: credit balance in the old system at the cut-over")
    cfg = TownConfig()
    lines = [ln for ln in gl_journal(start=date(2026, 11, 2), end=date(2026, 11, 2), cfg=cfg)
             if "converted" in ln.description.lower()]
    by_code = {ln.account: (ln.debit, ln.credit) for ln in lines}
    assert by_code == {f"{cfg.gl_fund}-{cfg.gl_conversion}": (D("12.50"), D("0")),
                       f"{cfg.gl_fund}-{cfg.gl_credit_balances}": (D("0"), D("12.50"))}
    assert f"{cfg.gl_fund}-{cfg.gl_fee_revenue}" not in by_code
