"""PostgreSQL backend whose ``flush`` (used only to reset a database, e.g. between transactional tests) can empty
the append-only tables: their BEFORE TRUNCATE triggers are disabled around Django's TRUNCATE and enabled again, in
the same transaction. Refused in production; and only a table's owner may disable its triggers, which the runtime
role is not (docs/security.md), so the web app's own connection cannot empty a guarded table this way either.
"""
from django.db.backends.postgresql import base, operations

from stormwater.dbbackends import refuse_flush_in_production


class DatabaseOperations(operations.DatabaseOperations):
    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        from stormwater.appendonly import append_only_tables

        refuse_flush_in_production()
        sql = super().sql_flush(style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade)
        guarded = sorted(append_only_tables() & set(tables))
        if not guarded or not sql:
            return sql
        toggle = lambda verb: [f'ALTER TABLE {self.quote_name(t)} {verb} TRIGGER "{t}_no_truncate";'  # noqa: E731
                               for t in guarded]
        return toggle("DISABLE") + sql + toggle("ENABLE")


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations
