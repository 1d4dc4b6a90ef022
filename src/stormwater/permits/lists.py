"""The permit applications list (issue 16): search, status, the final-action clock (§ 380-10 I(2): overdue, due
soon, stopped), filing dates; sortable, paged, exported — on the one list mechanism (``web.lists``)."""
from __future__ import annotations

import django_tables2 as tables
from django.db.models import Sum

from stormwater.cases.lists import ClockFilterMixin, annotate_clocks, clock_cell, clock_choice_filter, running_clocks
from stormwater.web.lists import (DateColumn, ListFilter, ListPage, ListTable, NumberColumn, SearchFilter,
                                  choice_filter, date_filter_field)

from . import workflow as wf


class PermitFilter(ClockFilterMixin, ListFilter):
    q = SearchFilter(fields=["case__number", "site_address", "owner_name", "agent_name", "description"],
                     label="Search (file, site, permittee, agent or description)")
    status = choice_filter("case__status", "Status", wf.Status.choices)
    open = choice_filter(None, "Open or closed", [("open", "Open"), ("closed", "Closed")], method="_open")
    clock = clock_choice_filter("Final action due (§ 380-10 I(2))")
    # § 380-4 A: the files flagged at applicability as possible segmentation, for the Director's finding.
    segmentation = choice_filter(None, "Segmentation (§ 380-4 A)",
                                 [("awaiting", "Flagged, awaiting the Director's finding"),
                                  ("flagged", "Flagged (any finding)")], method="_segmentation")
    filed_from = date_filter_field("case__filed_on", "gte", "Filed on or after")
    filed_to = date_filter_field("case__filed_on", "lte", "Filed on or before")

    def _segmentation(self, qs, name, value):
        qs = qs.filter(segmentation_flagged=True)
        return qs.filter(segmentation_finding="") if value == "awaiting" else qs

    def _open(self, qs, name, value):
        return qs.filter(case__closed_at__isnull=value == "open")


class PermitTable(ListTable):
    number = tables.Column("File", accessor="case__number", linkify=lambda record: f"/permits/{record.case.number}/")
    site_address = tables.Column("Site")
    owner_name = tables.Column("Permittee")
    status = tables.Column("Status", accessor="case__status")
    filed_on = DateColumn("Filed", accessor="case__filed_on", default="—")
    disturbance_sqft = NumberColumn("Disturbance ft²")
    clock_due = DateColumn("Final action due (§ 380-10 I(2))", default="—")

    def render_status(self, record):
        return record.case.status_label

    value_status = render_status

    def render_disturbance_sqft(self, value):
        return f"{value:,.0f}"

    def value_disturbance_sqft(self, value):
        return value

    def value_clock_due(self, value):
        return value

    def render_clock_due(self, record):
        return clock_cell(self.clocks.get(record.case_id))


class PermitList(ListPage):
    table_class = PermitTable
    filter_class = PermitFilter
    noun = ("permit application", "permit applications")
    export_name = "permit-applications"
    totals = {"disturbance_sqft": Sum("disturbance_sqft")}
    default_sort = ("-number",)

    def __init__(self, request, queryset):
        clocks = running_clocks(queryset.values("case_id"), kinds=[wf.ACTION])
        super().__init__(request, annotate_clocks(queryset, clocks))
        self.table.clocks = clocks
