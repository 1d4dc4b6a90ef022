"""Balances as annotations: a list of accounts, bills or parcels shows, filters and sorts by what is owed in its
one query (issue 16, the one list mechanism), instead of a query a row. The filter on such an annotation
(``balance_filter``: owes, in credit, zero — half a cent either way) is the list mechanism's (``web.lists``), named
here too."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

from django.db.models import OuterRef, Subquery, Sum, Value
from django.db.models.functions import Coalesce

from stormwater.web.lists import BALANCE_CHOICES, HALF_CENT, MONEY_FIELD, balance_filter  # noqa: F401

from .models import LedgerEntry


def ledger_sum(*, as_of: date | None = None, entries=None, **outer) -> Coalesce:
    """The sum of the ledger entries (owed > 0) of the row named by ``outer``, e.g.
    ``ledger_sum(account=OuterRef("pk"))``, ``ledger_sum(bill=OuterRef("pk"))`` or
    ``ledger_sum(account__parcel=OuterRef("pk"))``: one correlated subquery. ``entries`` narrows the entries
    (e.g. principal only). Posted entries only: interest earned but not yet charged to the ledger is not in it
    (the account page and the aging report show it)."""
    qs = (entries if entries is not None else LedgerEntry.objects.all()).filter(**outer)
    if as_of is not None:
        qs = qs.filter(effective_on__lte=as_of)
    total = qs.order_by().values(*outer).annotate(s=Sum("amount")).values("s")
    return Coalesce(Subquery(total, output_field=MONEY_FIELD), Value(Decimal("0.00")), output_field=MONEY_FIELD)


def parcel_balance() -> Coalesce:
    """The posted balance of the accounts of the parcel ``OuterRef("pk")`` (a condominium's parcel sums every unit's
    account): what the parcels list shows and filters by (registered in ``parcels.fees``)."""
    return ledger_sum(account__parcel=OuterRef("pk"))
