"""``stormwater backup`` / ``stormwater restore`` (issue 14): the demo town round-trips SQLite → SQLite and
SQLite → PostgreSQL (→ PostgreSQL again through pg_dump), and the restored town equals the original in every
row of every table, every account balance, bill, case timeline, document's bytes, audit row and sign-up
code, the later slices' tables (two-factor devices, jobs and their queue, API tokens, the e-mail outbox) and
every file of the uploads folder — and those still work in the restored town. Restore refuses a non-empty
target, a damaged archive, a database that does not match the manifest and, in production, a different
SECRET_KEY."""
from __future__ import annotations

import hashlib
import io
import json
import sqlite3
import tarfile
from decimal import Decimal

import pytest

from stormwater.utility.models import LedgerEntry

from .conftest import POSTGRES_URL, fresh_postgres_database, stormwater, take_snapshot

pytestmark = [pytest.mark.slow]
sqlite_run_only = pytest.mark.skipif(bool(POSTGRES_URL), reason="SQLite restores run in the SQLite run of bin/test")
postgres_run_only = pytest.mark.skipif(not POSTGRES_URL, reason="needs the PostgreSQL run of bin/test (bin/pg-temp)")


def _assert_same_town(got: dict, want: dict) -> None:
    # The town is not trivially empty: each thing the issue names is there to compare.
    for table in ("utility_ledgerentry", "audit_auditevent", "utility_bill", "cases_caseevent", "cases_casedocument"):
        assert want["tables"][table], table
    assert want["documents"] and want["balances"] and want["case_timelines"] and want["audit"]
    # ... and so is each table the later slices added (two-factor, jobs and their queue, API tokens, outbox),
    # with the files the jobs made and the outbox's attachments.
    for table, rows in want["later_slices"].items():
        assert rows, table
    assert any(n.startswith("jobs/") for n in want["media"]) and any(n.startswith("outbox/") for n in want["media"])
    for part in ("balances", "bills", "case_timelines", "documents", "audit", "codes", "later_slices", "media"):
        assert got[part] == want[part], part
    assert sorted(got["tables"]) == sorted(want["tables"])
    for table in want["tables"]:
        assert got["tables"][table] == want["tables"][table], table


def _manifest(archive) -> dict:
    with tarfile.open(archive, "r:gz") as tar:
        return json.loads(tar.extractfile("manifest.json").read())


def test_the_manifest_counts_tables_and_sums_money(demo_town):
    m = _manifest(demo_town.archive)
    snap = demo_town.snapshot
    assert m["database"] == {"engine": "sqlite", "member": "database/stormwater.sqlite3"}
    for table in ("utility_ledgerentry", "audit_auditevent", "utility_bill", "cases_casedocument"):
        assert m["tables"][table] == len(snap["tables"][table])
    amount = [f.name for f in LedgerEntry._meta.local_concrete_fields].index("amount")
    assert m["sums"]["utility_ledgerentry.amount"] == str(sum(Decimal(r[amount])
                                                              for r in snap["tables"]["utility_ledgerentry"]))
    assert {f"media/{n}" for n in snap["documents"]} <= set(m["members"])
    assert m["secret_key"]["included"] and m["secret_key"]["source"] == "data folder"
    assert (demo_town.archive.stat().st_mode & 0o777) == 0o600  # it holds the key and owners' data


@sqlite_run_only
def test_sqlite_backup_restores_into_an_empty_sqlite_data_folder_exactly(demo_town, tmp_path):
    target = tmp_path / "restored"
    p = stormwater("restore", str(demo_town.archive), data_dir=target, cwd=tmp_path)
    assert "Next: `stormwater migrate`" in p.stdout
    _assert_same_town(take_snapshot(target, tmp_path), demo_town.snapshot)
    assert (target / "dev-secret-key").read_text().strip() == (demo_town.data / "dev-secret-key").read_text().strip()
    _still_works(target, tmp_path, {}, demo_town.api_token)


NEW_ROW = ("from stormwater.audit.services import audit_record; "
           "print(audit_record(actor=None, action='ops.after_restore').pk)")

# In a restored town, what the later slices' tables hold still works (run as the runtime role on PostgreSQL,
# so the grants a restore makes cover these tables): the API token signs a request in (and its use is
# logged), the Collector's authenticator app still gives codes the town accepts, and the worker runs the job
# that was queued when the backup was made.
STILL_WORKS = """
import json
from django_otp.oath import totp
from stormwater.accounts.models import User
from stormwater.accounts.twofactor import verify
from stormwater.api.tokens import api_token_authenticate, api_token_use_record
from stormwater.jobs.models import Job
token = api_token_authenticate(SECRET)
api_token_use_record(token=token, method='GET', path='/api/parcels/', status=200)
collector = User.objects.get(username='collector')
d = collector.totpdevice_set.get(confirmed=True)
device, how = verify(user=collector, token=f"{totp(d.bin_key, step=d.step, t0=d.t0, digits=d.digits, drift=1):06d}")
print(json.dumps({'token': token.name, 'two_factor': how, 'queued': list(Job.objects.filter(state='queued')
                  .values_list('kind', flat=True))}))
"""


def _still_works(data, cwd, env, secret) -> None:
    p = stormwater("shell", "--no-imports", "-c", f"SECRET = {secret!r}\n{STILL_WORKS}", data_dir=data, cwd=cwd,
                   env=env)
    assert json.loads(p.stdout) == {"token": "gis-sync", "two_factor": "authenticator app", "queued": ["daily"]}
    stormwater("worker", "--batch", "-v0", data_dir=data, cwd=cwd, env=env)
    code = ("from stormwater.jobs.models import Job; import json; "
            "print(json.dumps(list(Job.objects.order_by('pk').values_list('kind', 'state'))))")
    jobs = json.loads(stormwater("shell", "--no-imports", "-c", code, data_dir=data, cwd=cwd, env=env).stdout)
    assert jobs == [["bill_run_export", "succeeded"], ["bill_run_export", "succeeded"], ["daily", "succeeded"]]


@postgres_run_only
@pytest.mark.database
def test_sqlite_backup_restores_into_postgresql_and_back_out_through_pg_dump(demo_town, tmp_path):
    """The way a town grows out of the embedded default: SQLite archive → empty PostgreSQL database; then that
    PostgreSQL town's own backup (pg_dump) → another empty database. Both equal the original. Each database is
    set up as docs/security.md says: restores and backups run as the owner role (MIGRATE_DATABASE_URL), the
    town runs as the runtime role (DATABASE_URL), which the restore grants what running needs."""
    last_audit_id = max(r[0] for r in demo_town.snapshot["tables"]["audit_auditevent"])
    runtime = {"MIGRATE_DATABASE_URL": None}
    with fresh_postgres_database() as pg, fresh_postgres_database() as pg2:
        first, second = tmp_path / "pg-data", tmp_path / "pg-data-2"
        p = stormwater("restore", str(demo_town.archive), data_dir=first, cwd=tmp_path, env=pg)
        assert "runtime role 'sw_app_" in p.stderr
        _assert_same_town(take_snapshot(first, tmp_path, {**pg, **runtime}), demo_town.snapshot)

        pg_archive = tmp_path / "pg.tar.gz"
        stormwater("backup", str(pg_archive), data_dir=first, cwd=tmp_path, env=pg)
        m = _manifest(pg_archive)
        assert m["database"] == {"engine": "postgresql", "member": "database/stormwater.pgdump"}
        assert m["tables"] == _manifest(demo_town.archive)["tables"]
        assert m["sums"] == _manifest(demo_town.archive)["sums"]
        stormwater("restore", str(pg_archive), data_dir=second, cwd=tmp_path, env=pg2)
        _assert_same_town(take_snapshot(second, tmp_path, {**pg2, **runtime}), demo_town.snapshot)

        # Each restored town takes new rows as the runtime role: its sequences continue after the loaded ids.
        for data, env in ((first, pg), (second, pg2)):
            p = stormwater("shell", "--no-imports", "-c", NEW_ROW, data_dir=data, cwd=tmp_path,
                           env={**env, **runtime})
            assert int(p.stdout.strip()) == last_audit_id + 1
            _still_works(data, tmp_path, {**env, **runtime}, demo_town.api_token)


@sqlite_run_only
def test_restore_refuses_a_data_folder_that_is_not_empty(demo_town, tmp_path):
    p = stormwater("restore", str(demo_town.archive), data_dir=demo_town.data, cwd=tmp_path, check=False)
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert "restore goes into an empty data folder and database" in p.stderr
    assert "uploaded documents" in p.stderr and "tables" in p.stderr


def _rewrite(archive, out, change):
    """Copy the archive, passing every member's bytes through change(name, data) -> data."""
    with tarfile.open(archive, "r:gz") as src, tarfile.open(out, "w:gz") as dst:
        for info in src:
            data = change(info.name, src.extractfile(info).read())
            info.size = len(data)
            dst.addfile(info, io.BytesIO(data))


@sqlite_run_only
def test_restore_refuses_an_altered_document(demo_town, tmp_path):
    bad = tmp_path / "bad.tar.gz"
    _rewrite(demo_town.archive, bad, lambda n, d: d + b"x" if n.startswith("media/") else d)
    p = stormwater("restore", str(bad), data_dir=tmp_path / "t", cwd=tmp_path, check=False)
    assert p.returncode == 1 and "does not match the manifest (damaged or altered)" in p.stderr
    assert not (tmp_path / "t" / "media").exists() and not (tmp_path / "t" / "stormwater.sqlite3").exists()


@sqlite_run_only
def test_restore_checks_the_database_against_the_manifest(demo_town, tmp_path):
    """A database whose rows differ from the manifest's counts is refused, even with matching checksums."""
    db = tmp_path / "db.sqlite3"
    with tarfile.open(demo_town.archive, "r:gz") as tar:
        db.write_bytes(tar.extractfile("database/stormwater.sqlite3").read())
    c = sqlite3.connect(db)
    c.execute("DROP TRIGGER IF EXISTS audit_auditevent_no_delete")
    c.execute("DELETE FROM audit_auditevent WHERE id = (SELECT MAX(id) FROM audit_auditevent)")
    c.commit()
    c.close()
    data = db.read_bytes()

    def change(name, d):
        if name == "database/stormwater.sqlite3":
            return data
        if name == "manifest.json":
            m = json.loads(d)
            m["members"]["database/stormwater.sqlite3"] = {"bytes": len(data),
                                                                    "sha256": hashlib.sha256(data).hexdigest()}
            return json.dumps(m).encode()
        return d

    bad = tmp_path / "bad.tar.gz"
    _rewrite(demo_town.archive, bad, change)
    p = stormwater("restore", str(bad), data_dir=tmp_path / "t", cwd=tmp_path, check=False)
    assert p.returncode == 1, p.stdout
    n = _manifest(demo_town.archive)["tables"]["audit_auditevent"]
    assert f"audit_auditevent: rows {n - 1}, the archive says {n}" in p.stderr
    assert not (tmp_path / "t" / "stormwater.sqlite3").exists()


def _codes(data_dir, cwd, env) -> dict:
    code = ("import json; from stormwater.utility.models import Account; from stormwater.portal.codes import "
            "verification_code as v; print(json.dumps({a: v(a) for a in Account.objects.values_list('number', "
            "flat=True)}))")
    return json.loads(stormwater("shell", "--no-imports", "-c", code, data_dir=data_dir, cwd=cwd, env=env).stdout)


@sqlite_run_only
def test_restore_in_production_keeps_the_bill_codes_or_says_how(demo_town, tmp_path):
    """Production takes SECRET_KEY from the environment/.env: a different key would break every printed
    sign-up code, so restore refuses and says how to use the archived key; with it, the codes match."""
    other = "k3y-" + "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOP"
    prod = {"STORMWATER_ENV": "production", "ALLOWED_HOSTS": "stormwater.example", "SECRET_KEY": other}
    p = stormwater("restore", str(demo_town.archive), data_dir=tmp_path / "a", cwd=tmp_path, env=prod, check=False)
    assert p.returncode == 1 and "sign-up codes" in p.stderr and "--print-secret-key" in p.stderr
    key = stormwater("restore", "--print-secret-key", str(demo_town.archive), data_dir=tmp_path / "a",
                     cwd=tmp_path, env=prod).stdout.strip()
    assert key == (demo_town.data / "dev-secret-key").read_text().strip()
    (tmp_path / ".env").write_text(f"SECRET_KEY={key}\n")  # the administrator puts it in the .env
    env = {k: v for k, v in prod.items() if k != "SECRET_KEY"}
    stormwater("restore", str(demo_town.archive), data_dir=tmp_path / "a", cwd=tmp_path, env=env)
    assert _codes(tmp_path / "a", tmp_path, env) == demo_town.snapshot["codes"]
    # --new-secret-key restores with this server's key: the town is there, the printed codes are not valid.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    stormwater("restore", "--new-secret-key", str(demo_town.archive), data_dir=tmp_path / "b", cwd=elsewhere,
               env=prod)
    codes = _codes(tmp_path / "b", elsewhere, prod)
    assert codes.keys() == demo_town.snapshot["codes"].keys() and codes != demo_town.snapshot["codes"]


@sqlite_run_only
def test_backup_never_overwrites(demo_town, tmp_path):
    p = stormwater("backup", str(demo_town.archive), data_dir=demo_town.data, cwd=tmp_path, check=False)
    assert p.returncode == 1 and "already exists" in p.stderr
