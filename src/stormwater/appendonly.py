"""Append-only tables: the database itself refuses UPDATE and DELETE (STYLE.md: ledger, audit).

Use ``AppendOnly("table_name")`` as a migration operation; it installs triggers on SQLite and
PostgreSQL. Model classes also refuse ``save()`` of an existing row and ``delete()``.
"""
from __future__ import annotations

from django.db import models
from django.db.migrations.operations.base import Operation

APPEND_ONLY_MESSAGE = "append-only table: rows are never changed or deleted; post a reversing entry"


def sqlite_create_sql(table: str) -> list[str]:
    return [f"CREATE TRIGGER IF NOT EXISTS {table}_no_{op.lower()} BEFORE {op} ON {table} "
            f"BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY_MESSAGE}'); END;" for op in ("UPDATE", "DELETE")]


def sqlite_drop_sql(table: str) -> list[str]:
    return [f"DROP TRIGGER IF EXISTS {table}_no_{op};" for op in ("update", "delete")]


def postgres_create_sql(table: str) -> list[str]:
    return [
        f"CREATE OR REPLACE FUNCTION {table}_append_only() RETURNS trigger AS $$ "
        f"BEGIN RAISE EXCEPTION '{APPEND_ONLY_MESSAGE}'; END; $$ LANGUAGE plpgsql;",
        f"DROP TRIGGER IF EXISTS {table}_append_only ON {table};",
        f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
        f"FOR EACH ROW EXECUTE FUNCTION {table}_append_only();",
    ]


def ensure_append_only(connection) -> None:
    """(Re)install the triggers of every append-only table. Run after every migrate (post_migrate):
    SQLite drops a table's triggers whenever a migration rebuilds the table (e.g. AddField), so the
    guarantee must not depend on each migration remembering it."""
    tables = set(connection.introspection.table_names()) & append_only_tables()
    make = sqlite_create_sql if connection.vendor == "sqlite" else postgres_create_sql \
        if connection.vendor == "postgresql" else None
    if make is None:
        return
    with connection.cursor() as c:
        for t in sorted(tables):
            for sql in make(t):
                c.execute(sql)


def append_only_tables() -> set[str]:
    from django.apps import apps

    return {m._meta.db_table for m in apps.get_models() if issubclass(m, AppendOnlyModel)}


class AppendOnly(Operation):
    reduces_to_sql = True
    reversible = True

    def __init__(self, table: str):
        self.table = table

    def state_forwards(self, app_label, state):
        pass

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        t = self.table
        if schema_editor.connection.vendor == "sqlite":
            for sql in sqlite_create_sql(t):
                schema_editor.execute(sql)
        elif schema_editor.connection.vendor == "postgresql":
            for sql in postgres_create_sql(t):
                schema_editor.execute(sql)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        t = self.table
        if schema_editor.connection.vendor == "sqlite":
            for sql in sqlite_drop_sql(t):
                schema_editor.execute(sql)
        elif schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(f"DROP TRIGGER IF EXISTS {t}_append_only ON {t};")
            schema_editor.execute(f"DROP FUNCTION IF EXISTS {t}_append_only();")

    def describe(self):
        return f"Make {self.table} append-only"

    def deconstruct(self):
        return (self.__class__.__name__, [self.table], {})


class AppendOnlyModel(models.Model):
    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        if self.pk is not None and not self._state.adding:
            raise ValueError(APPEND_ONLY_MESSAGE)
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ValueError(APPEND_ONLY_MESSAGE)
