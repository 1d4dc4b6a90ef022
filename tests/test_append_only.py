"""Every append-only table is guarded by database triggers after all migrations (even those that rebuild
a table, which on SQLite drops its triggers)."""
from django.db import connection

from stormwater.appendonly import append_only_tables


def test_every_append_only_table_has_its_triggers(db):
    tables = append_only_tables()
    assert {"utility_ledgerentry", "audit_auditevent"} <= tables
    with connection.cursor() as c:
        if connection.vendor == "sqlite":
            c.execute("SELECT tbl_name, name FROM sqlite_master WHERE type = 'trigger'")
            have = {(t, n) for t, n in c.fetchall()}
            missing = [t for t in tables if not {(t, f"{t}_no_update"), (t, f"{t}_no_delete")} <= have]
        else:
            c.execute("SELECT tgrelid::regclass::text, tgname FROM pg_trigger WHERE NOT tgisinternal")
            have = {(t, n) for t, n in c.fetchall()}
            missing = [t for t in tables if (t, f"{t}_append_only") not in have]
    assert missing == []
