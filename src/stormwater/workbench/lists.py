"""Pre-application meetings (§ 380-10 A) on the one list mechanism (issue 16): search, state, dates; sortable,
paged, exported. Meetings come through ``meetings_for_user``."""
from __future__ import annotations

import django_tables2 as tables

from stormwater.web.lists import DateColumn, ListFilter, ListPage, ListTable, SearchFilter, choice_filter, date_filter_field

from .models import PreApplicationMeeting


class MeetingFilter(ListFilter):
    q = SearchFilter(fields=["applicant_name", "site_address", "concept", "case__number"],
                     label="Search (applicant, site, concept, file)")
    state = choice_filter("state", "State", PreApplicationMeeting.State.choices)
    on_from = date_filter_field("scheduled_at__date", "gte", "On or after")
    on_to = date_filter_field("scheduled_at__date", "lte", "On or before")


class MeetingTable(ListTable):
    scheduled_at = DateColumn("When", time=True, linkify=("meeting_detail", [tables.A("pk")]))
    applicant_name = tables.Column("Applicant")
    site_address = tables.Column("Site")
    state = tables.Column("State")
    case = tables.Column("File", accessor="case__number", default="—")


class MeetingList(ListPage):
    table_class = MeetingTable
    filter_class = MeetingFilter
    noun = ("meeting", "meetings")
    export_name = "pre-application-meetings"
    default_sort = ("-scheduled_at",)
