"""PostgreSQL: the app runs as a runtime role that cannot undo the append-only guarantee (issue 14: "the
application's own database user can drop the triggers"). The owner role runs the migrations
(``MIGRATE_DATABASE_URL``) and grants the runtime role (``DATABASE_URL``) what running needs; the runtime role loads
and bills the demo town, and cannot UPDATE/DELETE/TRUNCATE an append-only table, ALTER/DISABLE/DROP a trigger or
create a table. docs/security.md describes the set-up this test performs."""
from __future__ import annotations

import os
import subprocess
import sys
import uuid

import pytest
from django.db import connection

pytestmark = pytest.mark.skipif("connection.vendor != 'postgresql'", reason="database roles are PostgreSQL's")


def _superuser_settings() -> dict:
    return connection.settings_dict


@pytest.fixture
def roles(db, tmp_path):
    """A fresh database owned by a new owner role, and a runtime role with no privileges yet (dropped after)."""
    import psycopg

    s = _superuser_settings()
    with connection.cursor() as c:
        c.execute("SELECT rolsuper OR rolcreaterole FROM pg_roles WHERE rolname = current_user")
        if not c.fetchone()[0]:
            pytest.skip("the test database user may not create roles")
    tag = uuid.uuid4().hex[:8]
    owner, app, dbname = f"sw_owner_{tag}", f"sw_app_{tag}", f"sw_roles_{tag}"
    admin = psycopg.connect(host=s["HOST"], port=s["PORT"] or 5432, user=s["USER"], password=s["PASSWORD"] or None,
                            dbname=s["NAME"], autocommit=True)
    admin.execute(f"CREATE ROLE {owner} LOGIN PASSWORD 'owner-pw'")
    admin.execute(f"CREATE ROLE {app} LOGIN PASSWORD 'app-pw'")
    admin.execute(f"CREATE DATABASE {dbname} OWNER {owner}")
    base = f"{s['HOST']}:{s['PORT'] or 5432}/{dbname}"
    yield {"owner": owner, "app": app, "db": dbname, "owner_url": f"postgres://{owner}:owner-pw@{base}",
           "app_url": f"postgres://{app}:app-pw@{base}", "data": tmp_path, "host": s["HOST"],
           "port": s["PORT"] or 5432}
    admin.execute(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{dbname}'")
    admin.execute(f"DROP DATABASE IF EXISTS {dbname}")
    admin.execute(f"DROP ROLE IF EXISTS {app}")
    admin.execute(f"DROP ROLE IF EXISTS {owner}")
    admin.close()


def _stormwater(*args, env: dict) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "MIGRATE_DATABASE_URL")} | env
    return subprocess.run([sys.executable, "-m", "stormwater", *args], env=full, capture_output=True, text=True,
                          timeout=1800)


def _as(r: dict, who: str):
    import psycopg

    return psycopg.connect(host=r["host"], port=r["port"], user=r[who], password=f"{who}-pw", dbname=r["db"],
                           autocommit=True)


def _refused(conn, sql: str) -> str:
    import psycopg

    with pytest.raises(psycopg.Error) as e:
        conn.execute(sql)
    return str(e.value)


def test_the_app_runs_as_a_runtime_role_that_cannot_undo_the_append_only_guarantee(roles):
    env = {"STORMWATER_DATA_DIR": str(roles["data"]), "DATABASE_URL": roles["app_url"]}
    done = _stormwater("migrate", "--no-input", env={**env, "MIGRATE_DATABASE_URL": roles["owner_url"]})
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"Runtime role '{roles['app']}'" in done.stdout
    # the runtime role runs the town: the demo load issues bills, posts payments, opens cases, writes the audit log
    demo = _stormwater("demo_load", "--parcels", "60", env=env)
    assert demo.returncode == 0, demo.stderr[-3000:]
    # and a migrate with nothing to apply gets through as the runtime role (no DDL)
    again = _stormwater("migrate", "--no-input", env=env)
    assert again.returncode == 0, again.stderr[-3000:]

    app = _as(roles, "app")
    (entries,) = app.execute("SELECT count(*) FROM utility_ledgerentry").fetchone()
    (audits,) = app.execute("SELECT count(*) FROM audit_auditevent").fetchone()
    assert entries > 0 and audits > 0
    for sql in ("UPDATE utility_ledgerentry SET memo = 'x'", "DELETE FROM audit_auditevent",
                "UPDATE utility_bill SET amount = 0", "DELETE FROM utility_installment",
                "UPDATE utility_rateresolution SET interest_rate_percent = 18",
                "TRUNCATE utility_ledgerentry", "TRUNCATE audit_auditevent", "TRUNCATE parcels_parcel CASCADE"):
        assert "permission denied" in _refused(app, sql), sql
    for sql in ("ALTER TABLE utility_ledgerentry DISABLE TRIGGER utility_ledgerentry_no_truncate",
                "ALTER TABLE audit_auditevent DISABLE TRIGGER ALL",
                "DROP TRIGGER utility_ledgerentry_append_only ON utility_ledgerentry",
                "DROP FUNCTION utility_ledgerentry_append_only() CASCADE"):
        assert "must be owner" in _refused(app, sql), sql
    assert "permission denied" in _refused(app, "CREATE TABLE sneaky (id int)")
    # row locks need UPDATE on one column (id); an UPDATE of it is the trigger's to refuse
    assert "append-only" in _refused(app, "UPDATE utility_bill SET id = id")
    app.execute("BEGIN")
    app.execute("SELECT id FROM utility_rateresolution FOR UPDATE")
    app.execute("ROLLBACK")
    app.execute("UPDATE parcels_parcel SET address = address WHERE id = (SELECT min(id) FROM parcels_parcel)")
    assert app.execute("SELECT count(*) FROM utility_ledgerentry").fetchone() == (entries,)
    app.close()

    # the owner (kept for migrations only) is refused by the triggers themselves
    owner = _as(roles, "owner")
    assert "append-only" in _refused(owner, "TRUNCATE utility_ledgerentry CASCADE")
    assert "append-only" in _refused(owner, "UPDATE audit_auditevent SET why = 'x'")
    owner.close()
