"""Fixtures of the fund tests: a FY2027 budget, and fee payments in the ledger."""
from datetime import date
from decimal import Decimal as D

import pytest


@pytest.fixture
def budget2027(db, personas):
    """Budget $10,000 in lines, $1,640 other revenue (one grant received): the fee must raise $8,360."""
    from stormwater.fund import services as s

    u = personas["collector"]
    s.budget_line_create(fiscal_year=2027, category="direct", allowed_use="D", description="Catch basin cleaning",
                         amount=D("6000"), acting_user=u)
    s.budget_line_create(fiscal_year=2027, category="indirect", allowed_use="K", description="Collector's office",
                         amount=D("1500"), acting_user=u)
    s.budget_line_create(fiscal_year=2027, category="capital", allowed_use="E", description="Culvert replacement",
                         amount=D("2000"), acting_user=u)
    s.budget_line_create(fiscal_year=2027, category="reserve", allowed_use="B", description="Emergency reserve",
                         amount=D("500"), acting_user=u)
    s.other_revenue_create(fiscal_year=2027, kind="grant", source="MassDEP 604(b)", amount=D("1000"),
                           dated=date(2026, 10, 1), received=True, acting_user=u)
    s.other_revenue_create(fiscal_year=2027, kind="loan", source="SRF low-interest loan", amount=D("640"),
                           dated=date(2027, 3, 1), received=False, acting_user=u)
    return 2027


@pytest.fixture
def billed(town, resolution):
    from stormwater.utility.services import bill_run_issue, fiscal_year

    label, start, end = fiscal_year(2027)
    bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2026, 9, 15),
                   acting_user=None)
    return town


@pytest.fixture
def payments(billed):
    """Payments: Oct 3 $53.16 and $100.00, Nov 20 $2,828.11 (bounced, reversed Dec 2), Jan 5 $26.58.
    A reversed charge and an interest entry, which are not receipts."""
    from stormwater.utility.models import Account, EntryKind, LedgerEntry

    acct = {a.parcel.parcel_id: a for a in Account.objects.select_related("parcel").filter(unit__isnull=True)}

    def pay(pid, amount, on):
        return LedgerEntry.objects.create(account=acct[pid], kind=EntryKind.PAYMENT, amount=-D(amount), effective_on=on)

    pay("01-01-1", "53.16", date(2026, 10, 3))
    pay("01-01-2", "100.00", date(2026, 10, 3))
    bounced = pay("02-01-1", "2828.11", date(2026, 11, 20))
    LedgerEntry.objects.create(account=acct["02-01-1"], kind=EntryKind.REVERSAL, amount=D("2828.11"),
                               effective_on=date(2026, 12, 2), reverses=bounced, memo="returned check")
    pay("01-01-2", "26.58", date(2027, 1, 5))
    charge = LedgerEntry.objects.filter(account=acct["01-01-1"], kind=EntryKind.CHARGE).first()
    LedgerEntry.objects.create(account=acct["01-01-1"], kind=EntryKind.REVERSAL, amount=-charge.amount,
                               effective_on=date(2026, 10, 15), reverses=charge, memo="charge reversed: not cash")
    LedgerEntry.objects.create(account=acct["01-01-2"], kind=EntryKind.INTEREST, amount=D("1.23"),
                               effective_on=date(2026, 12, 1))
    return acct
