"""The posted balance of an account, Σ of its ledger entries effective on or before a day (no interest to the day):
what the tests compare across runs, restores and re-runs. Pages show the one figure "Due now"
(``receivables.owed``, issue 25); this sum is the ledger's own, for the tests' checks only."""
from __future__ import annotations

from datetime import date
from decimal import Decimal


def account_balance(account, *, as_of: date) -> Decimal:
    from django.db.models import Sum

    from stormwater.rules.money import ZERO, round_cents
    from stormwater.utility.models import LedgerEntry

    total = LedgerEntry.objects.filter(account=account, effective_on__lte=as_of).aggregate(s=Sum("amount"))["s"]
    return round_cents(total or ZERO)  # SQLite's SUM of decimals comes back with float noise digits
