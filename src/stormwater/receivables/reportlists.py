"""The Collector's set-based reports on the one list mechanism (issue 16): aging, the delinquency list, demand
candidates and commitment candidates. The rows, totals and exports are the reports' own SQL (``positions``: a
constant number of queries whatever the number of accounts, exports streamed); ``web.lists.ReportListPage``
gives them the search, filters, sortable headers, pager, totals row and CSV/Excel of what is shown that every
list has. The as-of date is one of the filters; a search narrows the accounts inside the report's statement."""
from __future__ import annotations

from datetime import date

import django_filters
import django_tables2 as tables
from django import forms
from django.urls import reverse
from django.utils.html import format_html

from stormwater.web.lists import (DateColumn, ListFilter, ListTable, MoneyColumn, ReportListPage, SearchFilter,
                                  choice_filter, report_option)

from . import selectors
from .positions import ALL, AccountFilter, AccountReport

# Past due by more than: the aging buckets (Ch. 295 Art. IV billing ¶C: interest from the day after the due date).
PAST_DUE = [("1", "Past due (any)"), ("30", "More than 30 days"), ("60", "More than 60 days"),
            ("90", "More than 90 days")]
_PAST_DUE_SQL = {"1": "(pa.b_1_30 + pa.b_31_60 + pa.b_61_90 + pa.b_over_90) > 0",
                 "30": "(pa.b_31_60 + pa.b_61_90 + pa.b_over_90) > 0",
                 "60": "(pa.b_61_90 + pa.b_over_90) > 0", "90": "pa.b_over_90 > 0"}
BUCKET_COLUMNS = {"current": "current", "days_1_30": "1-30", "days_31_60": "31-60", "days_61_90": "61-90",
                  "over_90": "over 90"}


def as_of_filter(label: str = "As of") -> django_filters.DateFilter:
    return django_filters.DateFilter(label=label, method=report_option, widget=forms.DateInput(attrs={"type": "date"}))


class PositionFilter(ListFilter):
    """Filters of accounts (search, billed for) and of the report (as of, past due)."""

    q = SearchFilter(fields=["number", "parcel__parcel_id", "parcel__address", "unit__unit", "unit__owner__name",
                             "parcel__owner__name"], label="Search (account, parcel, address, unit or owner)")
    as_of = as_of_filter()
    past_due = choice_filter(None, "Owing past due", PAST_DUE, method=report_option)
    kind = choice_filter(None, "Billed for", [("parcel", "A whole parcel"), ("unit", "A condominium unit (¶G)")],
                         method="_kind")
    # What the account owes as the report says it ("Total"/"Owed": pa.total, the one figure "Due now", issue 25):
    # e.g. the delinquent accounts over $500 (?due_min=500). Report options: a condition of the report's statement.
    due_min = django_filters.NumberFilter(label="Owed at least ($)", method=report_option)
    due_max = django_filters.NumberFilter(label="Owed at most ($)", method=report_option)

    def _kind(self, qs, name, value):
        return qs.filter(unit__isnull=value == "parcel")


class UnpaidFilter(PositionFilter):
    as_of = as_of_filter("Unpaid as of")


def _account_link(value):
    return format_html('<a href="{}">{}</a>', reverse("account_statement", args=[value]), value)


class PositionTable(ListTable):
    sql_tiebreak = ("a.number",)
    sql_order = {"number": "a.number", "total": "pa.total", "principal": "pa.principal", "interest": "pa.interest",
                 "oldest_due": "pa.oldest_due", "current": "pa.b_current", "days_1_30": "pa.b_1_30",
                 "days_31_60": "pa.b_31_60", "days_61_90": "pa.b_61_90", "over_90": "pa.b_over_90"}

    def render_number(self, value):
        return _account_link(value)

    def value_number(self, value):
        return value


class AgingTable(PositionTable):
    number = tables.Column("Account")
    owner_name = tables.Column("Owner", orderable=False)
    address = tables.Column("Address", orderable=False)
    current = MoneyColumn("Current", accessor="buckets__current")
    days_1_30 = MoneyColumn("1–30", accessor="buckets__1-30")
    days_31_60 = MoneyColumn("31–60", accessor="buckets__31-60")
    days_61_90 = MoneyColumn("61–90", accessor="buckets__61-90")
    over_90 = MoneyColumn("Over 90", accessor="buckets__over 90")
    total = MoneyColumn("Total")
    oldest_due = DateColumn("Oldest past due", default="—")
    mailing_address = tables.Column("Mailing address", orderable=False)  # issue 25; last, so the export only gains


class DemandTable(PositionTable):
    serve = tables.Column("Serve", empty_values=(), orderable=False, exclude_from_export=True)
    number = tables.Column("Account")
    owner_name = tables.Column("Owner", orderable=False)
    principal = MoneyColumn("Principal")
    interest = MoneyColumn("Interest")
    total = MoneyColumn("Owed")
    mailing_address = tables.Column("Mailing address", orderable=False)  # issue 25; last, so the export only gains

    def render_serve(self, record):
        return format_html('<input type="checkbox" form="demand-serve" name="account" value="{}" checked '
                           'aria-label="Serve a demand on {}">', record.number, record.number)


class CommitmentTable(PositionTable):
    sql_tiebreak = ("d.id DESC",)
    sql_order = {**PositionTable.sql_order, "served_on": "d.served_on"}
    commit = tables.Column("Commit", empty_values=(), orderable=False, exclude_from_export=True)
    number = tables.Column("Account")
    owner_name = tables.Column("Owner", orderable=False)
    served_on = DateColumn("Demand mailed", accessor="extra__served_on")
    total = MoneyColumn("Owed")
    mailing_address = tables.Column("Mailing address", orderable=False)  # issue 25; last, so the export only gains

    def render_commit(self, record):
        return format_html('<input type="checkbox" form="commit" name="demand" value="{}" checked '
                           'aria-label="Commit {}">', record.extra["demand_id"], record.number)


class PositionList(ReportListPage):
    """One report over account positions as of a day (``selectors``)."""

    filter_class = PositionFilter
    noun = ("account", "accounts")

    @property
    def as_of(self) -> date:
        return self.options.get("as_of") or date.today()

    def build(self, accounts):
        raise NotImplementedError

    def make_report(self, subquery):
        """The report over every account (``subquery`` None) or the filtered ones (``web.lists.ReportListPage``)."""
        report = self.build(AccountFilter(subquery=subquery) if subquery is not None else ALL)
        if self.options.get("past_due") in _PAST_DUE_SQL:
            report.where = f"({report.where}) AND {_PAST_DUE_SQL[self.options['past_due']]}"
        for key, op in (("due_min", ">="), ("due_max", "<=")):
            if self.options.get(key) is not None:  # whole cents as an integer literal (pa.total is in cents)
                report.where = f"({report.where}) AND pa.total {op} {int(round(self.options[key] * 100))}"
        return report

    def report_totals(self, t) -> dict:
        out = {"principal": t.principal, "interest": t.interest, "total": t.total}
        out.update({col: t.buckets[k] for col, k in BUCKET_COLUMNS.items()})
        return {k: v for k, v in out.items() if k in self.table.columns.names()}


class AgingList(PositionList):
    """Accounts receivable aging or the delinquency list (``which``) as of a day."""

    table_class = AgingTable

    def __init__(self, request, queryset, *, which: str = "aging"):
        self.which = which
        self.export_name = which
        super().__init__(request, queryset)

    def build(self, accounts):
        return AccountReport("aging" if self.which == "aging" else "delinquency", as_of=self.as_of, accounts=accounts)


class DemandList(PositionList):
    """Accounts on which interest accrues and no demand charge is unpaid (billing ¶D): the demand candidates."""

    table_class = DemandTable
    filter_class = UnpaidFilter
    export_name = "demand-candidates"

    def build(self, accounts):
        return AccountReport("demand", as_of=self.as_of, accounts=accounts)


class CommitmentList(PositionList):
    """Demands mailed more than 14 days ago whose accounts still owe (billing ¶D): one row per demand."""

    table_class = CommitmentTable
    filter_class = UnpaidFilter
    noun = ("demand", "demands")
    export_name = "commitment-candidates"
    default_sort = ("-served_on",)

    def build(self, accounts):
        return selectors.commitment_report(as_of=self.as_of, accounts=accounts)
