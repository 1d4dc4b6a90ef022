"""The accounts and payments lists (issue 16) on the one list mechanism (``web.lists``). Accounts come through
``accounts_for_user`` (an owner sees their own); payments are the Collector's and billing staff's."""
from __future__ import annotations

from datetime import date

import django_filters
import django_tables2 as tables
from django.db.models import Count, Exists, OuterRef, QuerySet, Subquery, Sum
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils import timezone
from django.utils.functional import cached_property
from django.utils.html import format_html

from stormwater.utility.balances import BALANCE_CHOICES, MONEY_FIELD, balance_filter
from stormwater.web.lists import (DateColumn, ListFilter, ListPage, ListTable, MoneyColumn, NumberColumn,
                                  SearchFilter, amount_range_filters, choice_filter, date_filter_field)

from .owed import DueNow, due_now_total
from .models import Commitment, CommitmentLine, Demand, Payment, PaymentMethod, PaymentReversal


# --- accounts -------------------------------------------------------------------------------------------------

def accounts_annotated(qs: QuerySet, *, as_of: date) -> QuerySet:
    """Each account with its billed-to name and mailing address (the unit's owner for a condominium unit, else the
    parcel's: Ch. 295 Art. IV ¶G) and what it owes, "Due now" (``owed.DueNow``, interest to the day: the one figure
    of issue 25), in the list's one query."""
    return qs.annotate(owner_name=Coalesce("unit__owner__name", "parcel__owner__name"),
                       mailing_address=Coalesce("unit__owner__mailing_address", "parcel__owner__mailing_address"),
                       balance=DueNow(as_of=as_of))


class AccountFilter(ListFilter):
    q = SearchFilter(fields=["number", "parcel__parcel_id", "parcel__address", "unit__unit", "unit__owner__name",
                             "parcel__owner__name"], label="Search (account, parcel, address, unit or owner)")
    balance = choice_filter(None, "Due now", BALANCE_CHOICES, method="_balance")
    due_min, due_max = amount_range_filters("balance", "Due now")
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
    mailing_address = tables.Column("Mailing address", default="", orderable=False)
    balance = MoneyColumn("Due now")


class AccountList(ListPage):
    table_class = AccountTable
    filter_class = AccountFilter
    noun = ("account", "accounts")
    export_name = "accounts"
    default_sort = ("number",)

    def __init__(self, request, queryset, *, as_of: date | None = None):
        self.as_of = as_of or timezone.localdate()
        super().__init__(request, accounts_annotated(queryset, as_of=self.as_of))

    @cached_property
    def summary(self) -> dict:
        """The count, and "Due now" over every matching account in one set-based statement (``owed.due_now_total``)."""
        return {**super().summary, "balance": due_now_total(self.queryset, as_of=self.as_of)}


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


# --- demands served and commitments made (the demands and commitments pages) ---------------------------------

class DemandServedFilter(ListFilter):
    q = SearchFilter(fields=["account__number", "account__parcel__address", "account__parcel__owner__name",
                             "account__unit__owner__name"], label="Search (account, address or owner)")
    committed = choice_filter(None, "Committed to the tax bill", [("no", "Not yet"), ("yes", "Committed")],
                              method="_committed")
    served_from = date_filter_field("served_on", "gte", "Mailed on or after")
    served_to = date_filter_field("served_on", "lte", "Mailed on or before")

    def _committed(self, qs, name, value):
        return qs.filter(commitment_line__isnull=value == "no")


class DemandServedTable(ListTable):
    served_on = DateColumn("Mailed")
    account = tables.Column("Account", accessor="account__number",
                            linkify=lambda record: f"/accounts/{record.account.number}/")
    demand_charge = MoneyColumn("Demand charge")
    total_due = MoneyColumn("Total due")
    statement = tables.Column("Statement", empty_values=(), orderable=False, exclude_from_export=True)

    def render_statement(self, record):
        return format_html('<a href="{}" aria-label="PDF of the demand on {}">PDF</a>',
                           reverse("demand_pdf", args=[record.pk]), record.account.number)


class DemandServedList(ListPage):
    """Every demand served (Ch. 295 Art. IV billing ¶D), no longer the latest 100."""

    table_class = DemandServedTable
    filter_class = DemandServedFilter
    noun = ("demand served", "demands served")
    export_name = "demands-served"
    totals = {"demand_charge": Sum("demand_charge"), "total_due": Sum("total_due")}
    default_sort = ("-served_on",)
    prefix = "served"

    def __init__(self, request, queryset=None):
        super().__init__(request, (queryset if queryset is not None else Demand.objects.all()).select_related("account"))


class CommitmentMadeFilter(ListFilter):
    tax_fiscal_year = django_filters.NumberFilter(field_name="tax_fiscal_year", label="Tax bill fiscal year (FY)")
    committed_from = date_filter_field("committed_on", "gte", "Committed on or after")
    committed_to = date_filter_field("committed_on", "lte", "Committed on or before")


class CommitmentMadeTable(ListTable):
    committed_on = DateColumn("Committed")
    tax_fiscal_year = tables.Column("Tax bill", linkify=("commitment_detail", [tables.A("pk")]))
    line_count = NumberColumn("Accounts")
    line_total = MoneyColumn("Total committed")

    def render_tax_fiscal_year(self, value):
        return f"FY{value}"

    value_tax_fiscal_year = render_tax_fiscal_year


class CommitmentMadeList(ListPage):
    """Every commitment to the Board of Assessors (billing ¶D), no longer the latest 50."""

    table_class = CommitmentMadeTable
    filter_class = CommitmentMadeFilter
    noun = ("commitment", "commitments")
    export_name = "commitments"
    default_sort = ("-committed_on",)
    prefix = "made"

    def __init__(self, request, queryset=None):
        lines = CommitmentLine.objects.filter(commitment=OuterRef("pk")).order_by().values("commitment")
        qs = (queryset if queryset is not None else Commitment.objects.all()).annotate(
            line_count=Coalesce(Subquery(lines.annotate(n=Count("pk")).values("n")), 0),
            line_total=Subquery(lines.annotate(t=Sum("total")).values("t"), output_field=MONEY_FIELD))
        super().__init__(request, qs)
