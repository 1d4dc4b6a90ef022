"""The accounts and payments lists (issue 16) on the one list mechanism (``web.lists``). Accounts come through
``accounts_for_user`` (an owner sees their own); payments are the Collector's and billing staff's."""
from __future__ import annotations

import django_filters
import django_tables2 as tables
from django.db.models import Exists, OuterRef, QuerySet, Sum
from django.db.models.functions import Coalesce
from django.utils.html import format_html

from stormwater.utility.balances import BALANCE_CHOICES, MONEY_FIELD, balance_filter, ledger_sum
from stormwater.web.lists import (DateColumn, ListFilter, ListPage, ListTable, MoneyColumn, SearchFilter,
                                  choice_filter, date_filter_field)

from .models import Payment, PaymentMethod, PaymentReversal


# --- accounts -------------------------------------------------------------------------------------------------

def accounts_annotated(qs: QuerySet) -> QuerySet:
    """Each account with its billed-to name (the unit's owner for a condominium unit, else the parcel's: Ch. 295
    Art. IV ¶G) and its posted balance, in the list's one query."""
    return qs.annotate(owner_name=Coalesce("unit__owner__name", "parcel__owner__name"),
                       balance=ledger_sum(account=OuterRef("pk")))


class AccountFilter(ListFilter):
    q = SearchFilter(fields=["number", "parcel__parcel_id", "parcel__address", "unit__unit", "unit__owner__name",
                             "parcel__owner__name"], label="Search (account, parcel, address, unit or owner)")
    balance = choice_filter(None, "Balance", BALANCE_CHOICES, method="_balance")
    kind = choice_filter(None, "Billed for", [("parcel", "A whole parcel"), ("unit", "A condominium unit (¶G)")],
                         method="_kind")

    def _balance(self, qs, name, value):
        return balance_filter(qs, value)

    def _kind(self, qs, name, value):
        return qs.filter(unit__isnull=value == "parcel")


class AccountTable(ListTable):
    number = tables.Column("Account", linkify=("account_statement", [tables.A("number")]))
    parcel = tables.Column("Parcel", accessor="parcel__parcel_id",
                           linkify=lambda record: f"/parcels/{record.parcel.parcel_id}/")
    address = tables.Column("Address", accessor="parcel__address")
    unit = tables.Column("Unit", accessor="unit__unit", default="—")
    owner_name = tables.Column("Billed to", default="— none on record —")
    balance = MoneyColumn("Balance (posted)")


class AccountList(ListPage):
    table_class = AccountTable
    filter_class = AccountFilter
    noun = ("account", "accounts")
    export_name = "accounts"
    totals = {"balance": Sum(ledger_sum(account=OuterRef("pk")), output_field=MONEY_FIELD)}
    default_sort = ("number",)

    def __init__(self, request, queryset):
        super().__init__(request, accounts_annotated(queryset))


# --- payments -------------------------------------------------------------------------------------------------

class PaymentFilter(ListFilter):
    q = SearchFilter(fields=["account__number", "reference", "batch__filename", "account__parcel__address"],
                     label="Search (account, reference, file or address)")
    method = choice_filter("method", "Method", PaymentMethod.choices)
    state = choice_filter(None, "Status", [("posted", "Posted"), ("reversed", "Reversed")], method="_state")
    received_from = date_filter_field("received_on", "gte", "Received on or after")
    received_to = date_filter_field("received_on", "lte", "Received on or before")
    amount_min = django_filters.NumberFilter(field_name="amount", lookup_expr="gte", label="Amount at least ($)")
    amount_max = django_filters.NumberFilter(field_name="amount", lookup_expr="lte", label="Amount at most ($)")

    def _state(self, qs, name, value):
        return qs.filter(is_reversed=value == "reversed")


class PaymentTable(ListTable):
    received_on = DateColumn("Received")
    account = tables.Column("Account", accessor="account__number",
                            linkify=lambda record: f"/accounts/{record.account.number}/")
    amount = MoneyColumn("Amount")
    method = tables.Column("Method")
    reference = tables.Column("Reference", default="")
    batch = tables.Column("File", accessor="batch__filename", default="")
    is_reversed = tables.Column("Status")

    def render_is_reversed(self, value, record):
        if value:
            return format_html('<span class="badge bad">reversed {}</span>', record.reversal.reversed_on)
        return "posted"

    def value_is_reversed(self, value, record):
        return f"reversed {record.reversal.reversed_on}" if value else "posted"


class PaymentList(ListPage):
    table_class = PaymentTable
    filter_class = PaymentFilter
    noun = ("payment", "payments")
    export_name = "payments"
    totals = {"amount": Sum("amount", output_field=MONEY_FIELD)}
    default_sort = ("-received_on",)

    def __init__(self, request, queryset=None):
        qs = (queryset if queryset is not None else Payment.objects.all()).select_related(
            "account", "batch", "reversal").annotate(is_reversed=Exists(PaymentReversal.objects.filter(
                payment=OuterRef("pk"))))
        super().__init__(request, qs)
