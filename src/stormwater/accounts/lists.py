"""The Director's users page on the one list mechanism (issue 16): the same parameters as before (``q``, ``role``:
empty = the staff roles, ``all``, or one role; ``status``: active by default, ``inactive``, ``all``), sortable,
paged, exported."""
from __future__ import annotations

import django_filters
import django_tables2 as tables
from django.utils.html import format_html

from stormwater.web.lists import DateColumn, ListFilter, ListPage, ListTable, SearchFilter

from .roles import Role
from .selectors import STAFF_ROLES, user_list


class UserFilter(ListFilter):
    q = SearchFilter(fields=["username", "first_name", "last_name", "email"], label="Search")
    role = django_filters.ChoiceFilter(label="Role", empty_label="Staff roles", method="_role",
                                       choices=[("all", "All roles"), *Role.choices])
    status = django_filters.ChoiceFilter(label="Status", empty_label=None, method="_status",
                                         choices=[("active", "Active"), ("inactive", "Deactivated"), ("all", "All")])

    def filter_queryset(self, queryset):
        d = self.form.cleaned_data
        if not d.get("role"):
            queryset = queryset.filter(role__in=STAFF_ROLES)
        if not d.get("status"):
            queryset = queryset.filter(is_active=True)
        return super().filter_queryset(queryset)

    def _role(self, qs, name, value):
        return qs if value == "all" else qs.filter(role=value)

    def _status(self, qs, name, value):
        return qs if value == "all" else qs.filter(is_active=value == "active")


class UserTable(ListTable):
    username = tables.Column("Username", linkify=("user_detail", [tables.A("pk")]))
    name = tables.Column("Name", empty_values=(), order_by=("last_name", "first_name"))
    role = tables.Column("Role")
    email = tables.Column("E-mail", default="—")
    two_factor = tables.Column("Two-factor")
    last_login = DateColumn("Last sign-in", time=True, default="never")
    is_active = tables.Column("Status")

    def render_name(self, record):
        return record.get_full_name() or "—"

    def render_two_factor(self, value, record):
        if value:
            return "On"
        if record.role in self.required_roles:
            return format_html('<span class="badge bad">{}</span>', "Not set up")
        return "Off"

    def value_two_factor(self, value, record):
        return "On" if value else ("Not set up" if record.role in self.required_roles else "Off")

    def render_is_active(self, value):
        return "Active" if value else format_html('<span class="badge bad">{}</span>', "Deactivated")

    def value_is_active(self, value):
        return "Active" if value else "Deactivated"


class UserList(ListPage):
    table_class = UserTable
    filter_class = UserFilter
    noun = ("account", "accounts")
    export_name = "users"
    default_sort = ("role", "username")

    def __init__(self, request, *, required_roles=()):
        super().__init__(request, user_list(role="all", status="all"))
        self.table.required_roles = set(required_roles)
