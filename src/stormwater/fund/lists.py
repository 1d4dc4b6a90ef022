"""A fiscal year's budget lines and other revenue on the one list mechanism (issue 16): two lists on the year's
overview (parameters ``lines-…`` and ``other-…``), each searchable, filtered, sorted, totalled and exported."""
from __future__ import annotations

import django_tables2 as tables
from django.db.models import Sum
from django.urls import reverse
from django.utils.html import format_html

from stormwater.web.lists import (DateColumn, ListFilter, ListPage, ListTable, MoneyColumn, SearchFilter, choice_filter,
                                  date_filter_field)

from .models import AllowedUse, BudgetLine, Category, OtherRevenue, RevenueKind


class BudgetLineFilter(ListFilter):
    q = SearchFilter(fields=["description"], label="Search (description)")
    category = choice_filter("category", "Category", Category.choices)
    allowed_use = choice_filter("allowed_use", "Allowed use of the fee", AllowedUse.choices)


class BudgetLineTable(ListTable):
    category = tables.Column("Category")
    allowed_use = tables.Column("Allowed use")
    description = tables.Column("Description")
    amount = MoneyColumn("Amount")
    edit = tables.Column("Edit", empty_values=(), orderable=False, exclude_from_export=True)

    def render_allowed_use(self, record):
        return format_html('<abbr title="{}">¶{}</abbr>', record.use_text, record.allowed_use)

    def value_allowed_use(self, record):
        return record.get_allowed_use_display()

    def render_edit(self, record):
        return format_html('<a href="{}">Edit<span class="visually-hidden"> {}</span></a>',
                           reverse("fund_line_edit", args=[record.pk]), record.description) if self.can_edit else ""


class BudgetLineList(ListPage):
    table_class = BudgetLineTable
    filter_class = BudgetLineFilter
    noun = ("budget line", "budget lines")
    totals = {"amount": Sum("amount")}
    default_sort = ("category", "allowed_use")
    prefix = "lines"

    def __init__(self, request, *, fiscal_year: int, can_edit: bool):
        self.export_name = f"fund-FY{fiscal_year}-budget-lines"
        super().__init__(request, BudgetLine.objects.filter(budget__fiscal_year=fiscal_year))
        self.table.can_edit = can_edit
        if not can_edit:
            self.table.columns.hide("edit")


class OtherRevenueFilter(ListFilter):
    q = SearchFilter(fields=["source", "notes"], label="Search (source, notes)")
    kind = choice_filter("kind", "Kind", RevenueKind.choices)
    received = choice_filter(None, "Status", [("received", "Received"), ("anticipated", "Anticipated")],
                             method="_received")
    dated_from = date_filter_field("dated", "gte", "Dated on or after")
    dated_to = date_filter_field("dated", "lte", "Dated on or before")

    def _received(self, qs, name, value):
        return qs.filter(received=value == "received")


class OtherRevenueTable(ListTable):
    dated = DateColumn("Date")
    kind = tables.Column("Kind")
    source = tables.Column("Source")
    notes = tables.Column("Notes", default="")
    received = tables.Column("Status")
    amount = MoneyColumn("Amount")
    edit = tables.Column("Edit", empty_values=(), orderable=False, exclude_from_export=True)

    def render_received(self, value):
        return "received" if value else "anticipated"

    value_received = render_received

    def render_edit(self, record):
        return format_html('<a href="{}">Edit<span class="visually-hidden"> {}</span></a>',
                           reverse("fund_revenue_edit", args=[record.pk]), record.source) if self.can_edit else ""


class OtherRevenueList(ListPage):
    table_class = OtherRevenueTable
    filter_class = OtherRevenueFilter
    noun = ("other revenue item", "other revenue items")
    totals = {"amount": Sum("amount")}
    default_sort = ("dated",)
    prefix = "other"

    def __init__(self, request, *, fiscal_year: int, can_edit: bool):
        self.export_name = f"fund-FY{fiscal_year}-other-revenue"
        super().__init__(request, OtherRevenue.objects.filter(budget__fiscal_year=fiscal_year))
        self.table.can_edit = can_edit
        if not can_edit:
            self.table.columns.hide("edit")
