"""The e-mail outbox for staff on the one list mechanism (issue 16): by default the notices not sent yet or to
check (``?status=`` as before: unknown, failed, queued, sending; now also sent and all), searchable, sortable,
paged, exported; an unknown one is settled from its row."""
from __future__ import annotations

import django_filters
import django_tables2 as tables
from django.urls import reverse
from django.utils.html import format_html

from stormwater.web.lists import (ActionsColumn, DateColumn, ListFilter, ListPage, ListTable, SearchFilter,
                                  date_filter_field)

from .models import NoticeSent, NoticeStatus

SHOWN = (NoticeStatus.UNKNOWN, NoticeStatus.FAILED, NoticeStatus.QUEUED, NoticeStatus.SENDING)


class NoticeFilter(ListFilter):
    q = SearchFilter(fields=["subject", "to", "kind", "message_id", "case__number"],
                     label="Search (subject, address, kind, Message-ID, case)")
    status = django_filters.ChoiceFilter(label="State", empty_label="Not sent yet or to check", method="_status",
                                         choices=[*[(s.value, s.label) for s in SHOWN], (NoticeStatus.SENT.value,
                                                  NoticeStatus.SENT.label), ("all", "All")])
    queued_from = date_filter_field("queued_at__date", "gte", "Queued on or after")
    queued_to = date_filter_field("queued_at__date", "lte", "Queued on or before")

    def filter_queryset(self, queryset):
        if not self.form.cleaned_data.get("status"):
            queryset = queryset.filter(status__in=SHOWN)
        return super().filter_queryset(queryset)

    def _status(self, qs, name, value):
        return qs if value == "all" else qs.filter(status=value)


class NoticeTable(ListTable):
    subject = tables.Column("Notice")
    kind = tables.Column("Kind")
    to = tables.Column("To")
    status = tables.Column("State")
    queued_at = DateColumn("Queued", time=True)
    message_id = tables.Column("Message-ID", default="")
    settle = ActionsColumn("Settle")

    def render_subject(self, value):
        """The subject as people read it (its ISO dates in the one date form, web/templatetags/sw.py ``people``);
        the export keeps the stored text."""
        from stormwater.web.templatetags.sw import people

        return people(value)

    def value_subject(self, value):
        return value

    def render_status(self, value, record):
        bad = value in (NoticeStatus.UNKNOWN, NoticeStatus.FAILED)
        out = format_html('<span class="badge{}">{}</span>', " bad" if bad else "", record.get_status_display())
        if record.error:
            out += format_html('<br><span class="muted">{}</span>', record.error)
        return out

    def value_status(self, record):
        return record.get_status_display() + (f" ({record.error})" if record.error else "")

    def render_message_id(self, value):
        return format_html("<code>{}</code>", value)

    def value_message_id(self, value):
        return value

    def render_settle(self, record):
        if record.status != NoticeStatus.UNKNOWN:
            return ""
        url = reverse("notice_resolve", args=[record.pk])
        return (self.post_button(url, "It went out", hidden={"was_sent": "1"})
                + self.post_button(url, "It did not: send it", hidden={"was_sent": "0"}, primary=True))


class NoticeList(ListPage):
    table_class = NoticeTable
    filter_class = NoticeFilter
    noun = ("notice", "notices")
    export_name = "outbox"
    default_sort = ("status", "-queued_at")

    def __init__(self, request):
        super().__init__(request, NoticeSent.objects.select_related("case").defer("body"))
