"""SQLite backend whose ``flush`` (used only to reset a database, e.g. between transactional tests) can empty the
append-only tables: it lifts their triggers for the DELETE and puts them back. Refused in production.

Normal UPDATE/DELETE (and INSERT OR REPLACE) of ledger, audit and money rows stays refused (stormwater.appendonly).
"""
from django.db.backends.sqlite3 import base, operations

from stormwater.dbbackends import refuse_flush_in_production


class DatabaseOperations(operations.DatabaseOperations):
    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        from stormwater.appendonly import append_only_models, sqlite_drop_sql, sqlite_guard_sql

        refuse_flush_in_production()
        sql = super().sql_flush(style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade)
        guarded = {t: m for t, m in sorted(append_only_models().items()) if t in set(tables)}
        if not guarded or not sql:
            return sql
        drop = [s for t in guarded for s in sqlite_drop_sql(t)]
        create = [s for t, m in guarded.items() for s in sqlite_guard_sql(t, m, self.connection)]
        return drop + sql + create


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations
