"""The background jobs list (issue 16) on the one list mechanism: every job the user may see (``jobs_visible``),
by state and kind, newest first; sortable, paged, exported."""
from __future__ import annotations

import django_tables2 as tables
from django.utils.html import format_html

from stormwater.web.lists import DateColumn, ListFilter, ListPage, ListTable, SearchFilter, choice_filter, date_filter_field

from .models import JobState
from .registry import KINDS


class JobFilter(ListFilter):
    q = SearchFilter(fields=["title", "kind", "started_by__username"], label="Search (job, kind, who)")
    state = choice_filter("state", "State", JobState.choices)
    kind = choice_filter("kind", "Kind", lambda: sorted(((k.name, k.name.replace("_", " ")) for k in KINDS.values())))
    started_from = date_filter_field("created_at__date", "gte", "Started on or after")
    started_to = date_filter_field("created_at__date", "lte", "Started on or before")


class JobTable(ListTable):
    title = tables.Column("Job", linkify=("job_detail", [tables.A("pk")]))
    number = tables.Column("#", accessor="pk")
    state = tables.Column("State")
    progress = tables.Column("Progress", empty_values=(), order_by=("done",))
    started_by = tables.Column("Started by", accessor="started_by__username", default="the system")
    created_at = DateColumn("Started", time=True)
    finished_at = DateColumn("Finished", time=True, default="—")

    def render_state(self, value, record):
        return format_html('<span class="badge job-state {}">{}</span>', value, record.get_state_display())

    def value_state(self, record):
        return record.get_state_display()

    def render_progress(self, record):
        if record.total is not None:
            return f"{record.done:,} of {record.total:,}"
        return f"{record.done:,}" if record.done else ""


class JobList(ListPage):
    table_class = JobTable
    filter_class = JobFilter
    noun = ("job", "jobs")
    export_name = "jobs"
    default_sort = ("-created_at",)
