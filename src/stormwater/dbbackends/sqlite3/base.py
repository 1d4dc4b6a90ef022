"""SQLite backend whose ``flush`` (used only to reset a database, e.g. between transactional tests)
can empty the append-only tables: it lifts their triggers for the DELETE and puts them back.

PostgreSQL needs no such thing: its flush is TRUNCATE, which row triggers do not see. Normal
UPDATE/DELETE of ledger and audit rows stays refused on both.
"""
from django.db.backends.sqlite3 import base, operations


class DatabaseOperations(operations.DatabaseOperations):
    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        from stormwater.appendonly import append_only_tables, sqlite_create_sql, sqlite_drop_sql

        sql = super().sql_flush(style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade)
        guarded = sorted(append_only_tables() & set(tables))
        if not guarded or not sql:
            return sql
        drop = [s for t in guarded for s in sqlite_drop_sql(t)]
        create = [s for t in guarded for s in sqlite_create_sql(t)]
        return drop + sql + create


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations
