"""Append-only tables: the database itself refuses to change or remove a row (STYLE.md: ledger, audit; issue 14).

What each table gets (docs/security.md):
- SQLite: BEFORE UPDATE and BEFORE DELETE triggers that raise; and a BEFORE INSERT trigger that refuses an insert
  whose primary key or any unique key already exists — ``INSERT OR REPLACE`` (and ``REPLACE INTO``) would otherwise
  delete the existing row without firing its DELETE trigger ("delete triggers fire if and only if recursive
  triggers are enabled", sqlite.org/lang_conflict.html) and insert a rewritten one. ``INSERT ... ON CONFLICT DO
  UPDATE`` fires the UPDATE trigger. SQLite's DELETE without WHERE skips its truncate optimisation on a table with
  triggers, so it is refused too.
- PostgreSQL: a row trigger BEFORE UPDATE OR DELETE and a statement trigger BEFORE TRUNCATE (row triggers do not
  see TRUNCATE; it also fires when a ``TRUNCATE ... CASCADE`` of another table reaches this one). The runtime
  database role holds only SELECT and INSERT on these tables and owns none of them, so it cannot disable or drop
  the triggers (``grant_runtime_role``; the owner role runs migrations).

Use ``AppendOnly("table_name")`` as a migration operation; ``ensure_append_only`` reinstalls every table's triggers
after every migrate (post_migrate), because SQLite drops a table's triggers when a migration rebuilds it. Model
classes (``AppendOnlyModel``) also refuse ``save()`` of an existing row and ``delete()``. Only a database reset
(``flush``, never in production; ``stormwater.dbbackends``) lifts the guards, for the reset.
"""
from __future__ import annotations

from django.db import models
from django.db.migrations.operations.base import Operation

APPEND_ONLY_MESSAGE = "append-only table: rows are never changed or deleted; post a reversing entry"
REPLACE_MESSAGE = "append-only table: a row with this key exists and is never replaced (INSERT OR REPLACE refused)"


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def unique_column_sets(model) -> list[tuple[str, ...]]:
    """The primary key and every unconditional unique key of a model, as database column names."""
    meta = model._meta
    sets: list[tuple[str, ...]] = [(meta.pk.column,)]
    sets += [(f.column,) for f in meta.local_concrete_fields if f.unique and not f.primary_key]
    sets += [tuple(meta.get_field(n).column for n in fields) for fields in meta.unique_together]
    sets += [tuple(meta.get_field(n).column for n in c.fields) for c in meta.total_unique_constraints]
    return list(dict.fromkeys(sets))


def conditional_unique_keys(model, connection=None) -> list[tuple[tuple[str, ...], str]]:
    """(columns, condition as SQL over the table's unqualified columns) of each unique constraint with a
    condition (a partial unique index, e.g. one charge per installment), for the INSERT OR REPLACE guard: REPLACE
    resolves a conflict on a partial unique index too. A unique constraint on expressions is not supported."""
    from django.db import connection as default_connection
    from django.db.models import UniqueConstraint
    from django.db.models.sql.query import Query

    connection = connection or default_connection
    out = []
    for c in model._meta.constraints:
        if not isinstance(c, UniqueConstraint) or c.condition is None:
            continue
        if c.contains_expressions:
            raise ValueError(f"{model._meta.db_table}.{c.name}: no INSERT OR REPLACE guard for a unique expression")
        query = Query(model=model, alias_cols=False)
        where = query.build_where(c.condition)
        sql, params = where.as_sql(query.get_compiler(connection=connection), connection)
        editor = connection.schema_editor()
        out.append((tuple(model._meta.get_field(n).column for n in c.fields),
                    sql % tuple(editor.quote_value(p) for p in params)))
    return out


def _on_new(condition: str, columns) -> str:
    """``condition`` (unqualified quoted columns) about the row being inserted: each column as NEW.column."""
    for col in sorted(columns, key=len, reverse=True):
        condition = condition.replace(_q(col), f"NEW.{_q(col)}")
    return condition


def sqlite_create_sql(table: str, unique_sets: list[tuple[str, ...]] | None = None,
                      conditional: list[tuple[tuple[str, ...], str]] = (), all_columns=()) -> list[str]:
    t = _q(table)
    sql = [f"CREATE TRIGGER {_q(f'{table}_no_{op.lower()}')} BEFORE {op} ON {t} "
           f"BEGIN SELECT RAISE(ABORT, '{APPEND_ONLY_MESSAGE}'); END;" for op in ("UPDATE", "DELETE")]
    match = lambda cols: " AND ".join(f"{_q(c)} = NEW.{_q(c)}" for c in cols)  # noqa: E731
    exists = [f"EXISTS (SELECT 1 FROM {t} WHERE {match(cols)})" for cols in (unique_sets or [("id",)])]
    # A partial unique key conflicts only when both the existing row and the new one meet its condition.
    exists += [f"(({_on_new(cond, all_columns)}) AND EXISTS (SELECT 1 FROM {t} WHERE {match(cols)} AND ({cond})))"
               for cols, cond in conditional]
    sql.append(f"CREATE TRIGGER {_q(f'{table}_no_replace')} BEFORE INSERT ON {t} WHEN {' OR '.join(exists)} "
               f"BEGIN SELECT RAISE(ABORT, '{REPLACE_MESSAGE}'); END;")
    return sql


def sqlite_guard_sql(table: str, model, connection=None) -> list[str]:
    """The SQLite triggers of ``model``'s table: every unique key, conditional ones with their condition."""
    return sqlite_create_sql(table, unique_column_sets(model), conditional_unique_keys(model, connection),
                             [f.column for f in model._meta.concrete_fields])


def sqlite_drop_sql(table: str) -> list[str]:
    return [f"DROP TRIGGER IF EXISTS {_q(f'{table}_no_{op}')};" for op in ("update", "delete", "replace")]


def postgres_create_sql(table: str) -> list[str]:
    t = _q(table)
    return [
        f"CREATE OR REPLACE FUNCTION {_q(f'{table}_append_only')}() RETURNS trigger AS $$ "
        f"BEGIN RAISE EXCEPTION '{APPEND_ONLY_MESSAGE}'; END; $$ LANGUAGE plpgsql;",
        *postgres_drop_trigger_sql(table),
        f"CREATE TRIGGER {_q(f'{table}_append_only')} BEFORE UPDATE OR DELETE ON {t} "
        f"FOR EACH ROW EXECUTE FUNCTION {_q(f'{table}_append_only')}();",
        f"CREATE TRIGGER {_q(f'{table}_no_truncate')} BEFORE TRUNCATE ON {t} "
        f"FOR EACH STATEMENT EXECUTE FUNCTION {_q(f'{table}_append_only')}();",
    ]


def postgres_drop_trigger_sql(table: str) -> list[str]:
    return [f"DROP TRIGGER IF EXISTS {_q(f'{table}_{name}')} ON {_q(table)};"
            for name in ("append_only", "no_truncate")]


def _create_sql(connection, table: str, model=None) -> list[str]:
    if connection.vendor == "sqlite":
        return sqlite_drop_sql(table) + (sqlite_guard_sql(table, model, connection) if model
                                         else sqlite_create_sql(table))
    if connection.vendor == "postgresql":
        return postgres_create_sql(table)
    return []


def ensure_append_only(connection) -> None:
    """(Re)install the triggers of every append-only table. Run after every migrate (post_migrate): SQLite drops a
    table's triggers whenever a migration rebuilds the table (e.g. AddField), and a new unique key must join the
    INSERT OR REPLACE guard, so the guarantee must not depend on each migration remembering it."""
    existing = set(connection.introspection.table_names())
    with connection.cursor() as c:
        installed = set()
        if connection.vendor == "postgresql":
            # Only missing triggers are created: a role that owns no table (the runtime role running a migrate with
            # nothing to apply) must get through without DDL.
            c.execute("SELECT tgrelid::regclass::text, tgname FROM pg_trigger WHERE NOT tgisinternal")
            installed = set(c.fetchall())
        for table, model in sorted(append_only_models().items()):
            if table not in existing:
                continue
            if {(table, f"{table}_append_only"), (table, f"{table}_no_truncate")} <= installed:
                continue
            for sql in _create_sql(connection, table, model):
                c.execute(sql)


def append_only_models() -> dict[str, type]:
    from django.apps import apps

    return {m._meta.db_table: m for m in apps.get_models() if issubclass(m, AppendOnlyModel)}


def append_only_tables() -> set[str]:
    return set(append_only_models())


def grant_runtime_role(connection, role: str) -> None:
    """PostgreSQL: give the runtime role (the web app's and the worker's ``DATABASE_URL``) exactly what running
    needs, run by the owner role after its migrations: SELECT, INSERT, UPDATE, DELETE on ordinary tables; SELECT
    and INSERT on append-only tables, and UPDATE of their ``id`` column only — PostgreSQL's row locks (``SELECT ...
    FOR UPDATE``: the bill run locks its resolution, an abatement its bill) need UPDATE privilege on one column, and
    the trigger refuses any UPDATE anyway; USAGE and SELECT on sequences. No DELETE or TRUNCATE of an append-only
    table, no ownership (so no ALTER TABLE, no DROP/ALTER/DISABLE TRIGGER), no CREATE on the schema.
    See docs/security.md."""
    guarded = append_only_tables()
    r = _q(role)
    with connection.cursor() as c:
        c.execute("SELECT current_schema()")
        schema = c.fetchone()[0]
        c.execute("SELECT tablename FROM pg_tables WHERE schemaname = %s", [schema])
        tables = sorted(row[0] for row in c.fetchall())
        c.execute(f"GRANT USAGE ON SCHEMA {_q(schema)} TO {r}")
        for t in tables:
            c.execute(f"REVOKE ALL ON {_q(schema)}.{_q(t)} FROM {r}")
            privileges = "SELECT, INSERT, UPDATE (id)" if t in guarded else "SELECT, INSERT, UPDATE, DELETE"
            c.execute(f"GRANT {privileges} ON {_q(schema)}.{_q(t)} TO {r}")
        c.execute(f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {_q(schema)} TO {r}")


class AppendOnly(Operation):
    reduces_to_sql = True
    reversible = True

    def __init__(self, table: str):
        self.table = table

    def state_forwards(self, app_label, state):
        pass

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        model = next((m for m in to_state.apps.get_models() if m._meta.db_table == self.table), None)
        for sql in _create_sql(schema_editor.connection, self.table, model):
            schema_editor.execute(sql)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        t = self.table
        if schema_editor.connection.vendor == "sqlite":
            for sql in sqlite_drop_sql(t):
                schema_editor.execute(sql)
        elif schema_editor.connection.vendor == "postgresql":
            for sql in postgres_drop_trigger_sql(t):
                schema_editor.execute(sql)
            schema_editor.execute(f"DROP FUNCTION IF EXISTS {_q(f'{t}_append_only')}();")

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
