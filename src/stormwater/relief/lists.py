"""The credits, abatements and appeals list (issue 16) on the one list mechanism (``web.lists``): search, kind,
status, open or closed, the next running clock (overdue, due soon, stopped), filing dates. Cases come through
``relief_cases_for_user`` (an owner sees their own)."""
from __future__ import annotations

import django_tables2 as tables

from stormwater.cases.lists import (ClockFilterMixin, annotate_clocks, clock_cell, clock_choice_filter, running_clocks,
                                    status_choices)
from stormwater.web.lists import DateColumn, ListFilter, ListPage, ListTable, SearchFilter, choice_filter, date_filter_field

from . import workflow as wf

KIND_LABELS = {wf.CREDIT: "Credit", wf.ABATEMENT: "Abatement", wf.APPEAL: "Appeal to the Select Board",
               wf.LIEN: "Abatement of a tax-bill lien (MGL c.83 §16E)"}


class ReliefFilter(ClockFilterMixin, ListFilter):
    q = SearchFilter(fields=["number", "title", "applicant__username", "applicant__last_name", "parties__name"],
                     label="Search (case, title, applicant)")
    kind = choice_filter("kind", "Kind", list(KIND_LABELS.items()))
    status = choice_filter("status", "Status", status_choices(wf.KINDS))
    open = choice_filter(None, "Open or closed", [("open", "Open"), ("closed", "Closed")], method="_open")
    clock = clock_choice_filter("Next date")
    filed_from = date_filter_field("filed_on", "gte", "Filed on or after")
    filed_to = date_filter_field("filed_on", "lte", "Filed on or before")

    def _open(self, qs, name, value):
        return qs.filter(closed_at__isnull=value == "open")

    def filter_queryset(self, queryset):
        # A search over parties joins a row per party: the same case once.
        qs = super().filter_queryset(queryset)
        return qs.distinct() if self.form.cleaned_data.get("q") else qs


class ReliefTable(ListTable):
    number = tables.Column("Case", linkify=lambda record: f"/relief/{record.number}/")
    kind = tables.Column("Kind")
    title = tables.Column("Title")
    status = tables.Column("Status")
    filed_on = DateColumn("Filed", default="—")
    clock_due = DateColumn("Next date", default="—")

    def render_kind(self, value):
        return KIND_LABELS.get(value, value)

    value_kind = render_kind

    def render_status(self, record):
        return record.status_label

    value_status = render_status

    def value_clock_due(self, value):
        return value

    def render_clock_due(self, record):
        return clock_cell(self.clocks.get(record.pk), with_label=True)


class ReliefList(ListPage):
    table_class = ReliefTable
    filter_class = ReliefFilter
    noun = ("case", "cases")
    export_name = "relief-cases"
    default_sort = ("-number",)

    def __init__(self, request, queryset):
        clocks = running_clocks(queryset.values("pk"))
        super().__init__(request, annotate_clocks(queryset, clocks, case_field="pk"))
        self.table.clocks = clocks
