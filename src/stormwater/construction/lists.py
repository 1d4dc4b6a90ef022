"""The construction files list (issue 16) on the one list mechanism (``web.lists``): search, status, the next
erosion-control inspection (CGP 2022 Part 4: overdue, due within a week, none scheduled) as a filter and a sort,
start dates. Files come through ``projects_for_user`` (an engineer or owner sees their own)."""
from __future__ import annotations

from datetime import timedelta

import django_tables2 as tables
from django.db.models import DateTimeField
from django.template.defaultfilters import date as date_filter
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from stormwater.cases.lists import due_expression
from stormwater.web.lists import (DATETIME_FORMAT, DateColumn, ListFilter, ListPage, ListTable, SearchFilter,
                                  choice_filter, date_filter_field)

from . import workflow as wf
from .selectors import next_due_by_project

INSPECTION_CHOICES = [("overdue", "Overdue"), ("week", "Due within 7 days"), ("scheduled", "Any due date"),
                      ("none", "None due (not started, suspended or complete)")]


class ConstructionFilter(ListFilter):
    q = SearchFilter(fields=["case__number", "permit__case__number", "permit__site_address", "permit__owner_name",
                             "design_engineer_name", "esc_inspector_name"],
                     label="Search (file, permit, site, permittee, engineer)")
    status = choice_filter("case__status", "Status", wf.Status.choices)
    inspection = choice_filter(None, "Next erosion-control inspection", INSPECTION_CHOICES, method="_inspection")
    started_from = date_filter_field("started_on", "gte", "Started on or after")
    started_to = date_filter_field("started_on", "lte", "Started on or before")

    def _inspection(self, qs, name, value):
        now = timezone.now()
        return {"overdue": lambda: qs.filter(inspection_due__lt=now),
                "week": lambda: qs.filter(inspection_due__gte=now, inspection_due__lte=now + timedelta(days=7)),
                "scheduled": lambda: qs.filter(inspection_due__isnull=False),
                "none": lambda: qs.filter(inspection_due__isnull=True)}[value]()


class ConstructionTable(ListTable):
    number = tables.Column("File", accessor="case__number",
                           linkify=lambda record: f"/construction/{record.case.number}/")
    permit = tables.Column("Permit", accessor="permit__case__number",
                           linkify=lambda record: f"/permits/{record.permit.case.number}/")
    site = tables.Column("Site", accessor="permit__site_address")
    status = tables.Column("Status", accessor="case__status")
    started_on = DateColumn("Started", default="—")
    inspection_due = DateColumn("Next erosion-control inspection (CGP 2022 Part 4)", time=True, default="—")

    def render_status(self, record):
        return format_html('<span class="badge">{}</span>', record.case.status_label)

    def value_status(self, record):
        return record.case.status_label

    def render_inspection_due(self, record):
        d = self.dues.get(record.pk)
        if d is None:
            return "—"
        if d.due_at is None:
            return d.reason
        late = d.due_at < timezone.now()
        return format_html('{}{} <span class="muted">{}</span>', date_filter(timezone.localtime(d.due_at), DATETIME_FORMAT),
                           mark_safe(' <span class="badge bad">overdue</span>') if late else "", d.reason)


class ConstructionList(ListPage):
    table_class = ConstructionTable
    filter_class = ConstructionFilter
    noun = ("construction file", "construction files")
    export_name = "construction-files"
    default_sort = ("-number",)

    def __init__(self, request, queryset):
        dues = next_due_by_project(queryset.filter(certificate_on__isnull=True))
        qs = queryset.annotate(inspection_due=due_expression(
            {pk: d.due_at for pk, d in dues.items() if d is not None}, output_field=DateTimeField()))
        super().__init__(request, qs)
        self.table.dues = dues
