"""The Director's API tokens on the one list mechanism (issue 16): search, role, active or revoked; revoke from
the row; exported (never a secret: only the prefix shown on screen)."""
from __future__ import annotations

import django_tables2 as tables
from django.urls import reverse
from django.utils.html import format_html

from stormwater.accounts.roles import Role
from stormwater.web.lists import ActionsColumn, DateColumn, ListFilter, ListPage, ListTable, SearchFilter, choice_filter

from .models import ApiToken


class TokenFilter(ListFilter):
    q = SearchFilter(fields=["name", "prefix", "created_by__username"], label="Search (name, prefix, issued by)")
    role = choice_filter("role", "Role", Role.choices)
    state = choice_filter(None, "State", [("active", "Active"), ("revoked", "Revoked")], method="_state")

    def _state(self, qs, name, value):
        return qs.filter(revoked_at__isnull=value == "active")


class TokenTable(ListTable):
    name = tables.Column("Name")
    role = tables.Column("Role")
    prefix = tables.Column("Starts with")
    created_at = DateColumn("Issued", time=True)
    created_by = tables.Column("Issued by", accessor="created_by__username", default="—")
    revoked_at = DateColumn("Revoked", time=True, default="—")
    act = ActionsColumn("Act")

    def render_prefix(self, value):
        return format_html("<code>{}…</code>", value)

    def value_prefix(self, value):
        return value

    def render_revoked_at(self, value):
        return format_html('<span class="badge bad">revoked {}</span>', value.date())

    def render_act(self, record):
        if record.revoked_at:
            return ""
        return self.post_button(reverse("api_token_revoke", args=[record.pk]), "Revoke",
                                aria_label=f"Revoke {record.name}")


class TokenList(ListPage):
    table_class = TokenTable
    filter_class = TokenFilter
    noun = ("token", "tokens")
    export_name = "api-tokens"
    default_sort = ("-created_at",)

    def __init__(self, request):
        super().__init__(request, ApiToken.objects.select_related("created_by"))
