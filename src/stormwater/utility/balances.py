"""Balances as annotations: a list of accounts, bills or parcels shows, filters and sorts by what is owed in its
one query (issue 16, the one list mechanism), instead of a query a row."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

from django.db.models import DecimalField, Subquery, Sum, Value
from django.db.models.functions import Coalesce

from .models import LedgerEntry

MONEY_FIELD = DecimalField(max_digits=14, decimal_places=2)
# A balance compared with zero: SQLite sums decimals as floats (26.58 + 26.58 - 53.16 may be 4e-15), so
# "owes" and "in credit" mean past half a cent either way.
HALF_CENT = Decimal("0.005")


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


BALANCE_CHOICES = [("owes", "Owes"), ("credit", "In credit"), ("zero", "Zero")]


def balance_filter(qs, value: str, field: str = "balance"):
    """``owes`` / ``credit`` / ``zero`` on a balance annotation, half a cent either way."""
    if value == "owes":
        return qs.filter(**{f"{field}__gt": HALF_CENT})
    if value == "credit":
        return qs.filter(**{f"{field}__lt": -HALF_CENT})
    return qs.filter(**{f"{field}__gte": -HALF_CENT, f"{field}__lte": HALF_CENT})
