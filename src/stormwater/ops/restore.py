"""``stormwater restore IN``: an archive made by ``stormwater backup`` into an EMPTY data folder and database
(issue 14; the format and the three paths are described in ``stormwater.ops.backup`` and docs/deploy.md)."""
from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import subprocess
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path

from django.conf import settings
from django.db import connections, transaction
from django.db.migrations.recorder import MigrationRecorder

from stormwater.ops.archive import (
    BATCH,
    BackupError,
    CHUNK,
    MANIFEST,
    MEDIA,
    SECRET_KEY_MEMBER,
    Say,
    TOWN_TOML,
    _engine,
    _grant_runtime,
    _member_name_ok,
    _models_by_table,
    _pg_env,
    _pg_tool,
    as_owner,
    database_facts,
    facts_differences,
    key_fingerprint,
    read_manifest,
    sqlite_alias,
)


def data_folder_contents() -> list[str]:
    """What in the data folder makes it not empty for a restore (the dev key, static files, .env and an
    SQLite file without tables do not count)."""
    data = Path(settings.DATA_DIR)
    found = []
    media = Path(settings.MEDIA_ROOT)
    if media.is_dir() and any(p.is_file() for p in media.rglob("*")):
        found.append(f"uploaded documents in {media}")
    if (data / TOWN_TOML).exists():
        found.append(str(data / TOWN_TOML))
    return found


def _sqlite_tables(path: Path) -> int:
    if not path.exists():
        return 0
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT COUNT(*) FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"
                            ).fetchone()[0]
    finally:
        conn.close()


def database_is_empty() -> tuple[bool, str]:
    if _engine() == "sqlite":
        path = Path(settings.DATABASES["default"]["NAME"])
        n = _sqlite_tables(path)
        return n == 0, f"the SQLite database {path} has {n} tables"
    tables = connections["default"].introspection.table_names()
    s = connections["default"].settings_dict
    return not tables, f"the PostgreSQL database {s.get('NAME')} on {s.get('HOST') or 'localhost'} has {len(tables)} tables"


def backup_restore(*, archive: Path, new_secret_key: bool = False, say: Say = lambda s: None) -> dict:
    """Restore ``archive`` into this installation's empty data folder and database; returns the manifest."""
    archive = Path(archive).resolve()
    if not archive.is_file():
        raise BackupError(f"{archive}: no such file")
    manifest = read_manifest(archive)
    source, target = manifest["database"]["engine"], _engine()

    problems = data_folder_contents()
    empty, what = database_is_empty()
    if not empty:
        problems.append(what)
    if problems:
        raise BackupError("restore goes into an empty data folder and database; here there are: "
                          + "; ".join(problems) + ". Use a new data folder (STORMWATER_DATA_DIR) and a new "
                          "database (createdb), or remove these first.")
    if source == "postgresql" and target != "postgresql":
        raise BackupError("this archive holds a PostgreSQL dump: it restores into PostgreSQL only "
                          "(set DATABASE_URL to an empty PostgreSQL database)")
    if target not in ("sqlite", "postgresql"):
        raise BackupError(f"restoring into {target} is not supported")
    key_action = _secret_key_decision(archive, manifest, new_secret_key)

    data = Path(settings.DATA_DIR)
    with tempfile.TemporaryDirectory(prefix=".restore-", dir=data) as tmp:
        tmp = Path(tmp)
        _extract_verified(archive, manifest, tmp)
        db_member = tmp / manifest["database"]["member"]
        if source == "sqlite" and target == "sqlite":
            _restore_sqlite_file(db_member, manifest, say)
        else:
            with as_owner() as runtime:
                if source == "sqlite":
                    _restore_sqlite_into_postgresql(db_member, manifest, say)
                else:
                    _restore_pgdump(db_member, manifest, say)
                _grant_runtime(runtime, say)
        _place_files(tmp, manifest)
        key_action(tmp)
    media = sum(1 for n in manifest["members"] if n.startswith(MEDIA))
    say(f"{media} uploaded document(s) restored into {settings.MEDIA_ROOT}"
        + (f"; town.toml into {data}" if TOWN_TOML in manifest["members"] else ""))
    return manifest


def _secret_key_decision(archive: Path, manifest: dict, new_secret_key: bool) -> Callable[[Path], None]:
    """Decide, before anything is written, what happens to the key; returns the step to run at the end."""
    meta = manifest.get("secret_key", {})
    current, source = settings.SECRET_KEY, getattr(settings, "SECRET_KEY_SOURCE", "environment")
    same = key_fingerprint(current) == meta.get("fingerprint")
    if same or new_secret_key:
        return lambda tmp: None
    if meta.get("included") and source == "data folder":
        def put(tmp: Path) -> None:  # development: the key lives in the data folder; take the archive's
            path = Path(settings.DEV_SECRET_KEY_FILE)
            path.write_text((tmp / SECRET_KEY_MEMBER).read_text().strip())
            path.chmod(0o600)
        return put
    how = ("put the archived key in this server's .env as SECRET_KEY= (`stormwater restore --print-secret-key "
           f"{archive}` prints it)" if meta.get("included") else
           "the archive was made without the key (--without-secret-key): set SECRET_KEY to the key the town "
           "keeps for it")
    raise BackupError("this server's SECRET_KEY is not the one the archived town's bills were printed with: the "
                      "sign-up codes on those bills would stop working. " + how[0].upper() + how[1:]
                      + " and run the restore again, or pass --new-secret-key to keep this server's key "
                      "(then print new bills).")


def _extract_verified(archive: Path, manifest: dict, dest: Path) -> None:
    expected = manifest.get("members", {})
    seen = set()
    with tarfile.open(archive, "r:gz") as tar:
        for info in tar:
            if info.name == MANIFEST:
                continue
            if not _member_name_ok(info.name) or not info.isfile() or info.name not in expected:
                raise BackupError(f"{archive}: unexpected member {info.name!r} (not in the manifest)")
            target = dest / info.name
            target.parent.mkdir(parents=True, exist_ok=True)
            h, n = hashlib.sha256(), 0
            src = tar.extractfile(info)
            with target.open("wb") as f:
                while block := src.read(CHUNK):
                    h.update(block)
                    n += len(block)
                    f.write(block)
            want = expected[info.name]
            if n != want["bytes"] or h.hexdigest() != want["sha256"]:
                raise BackupError(f"{archive}: {info.name} does not match the manifest (damaged or altered)")
            seen.add(info.name)
    missing = sorted(set(expected) - seen)
    if missing:
        raise BackupError(f"{archive}: missing {', '.join(missing[:5])} (the manifest lists them)")


def _check(expected: dict, got: dict) -> None:
    diff = facts_differences(expected, got)
    if diff:
        raise BackupError("the restored database does not match the archive's manifest: " + "; ".join(diff[:10]))


def _restore_sqlite_file(db: Path, manifest: dict, say: Say) -> None:
    conn = sqlite3.connect(db)
    try:
        ok = conn.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        conn.close()
    if ok != "ok":
        raise BackupError(f"the archived SQLite database fails its integrity check: {ok}")
    with sqlite_alias(db) as alias:
        _check(manifest, database_facts(alias))
    live = Path(settings.DATABASES["default"]["NAME"])
    connections["default"].close()
    for leftover in (live, live.with_name(live.name + "-wal"), live.with_name(live.name + "-shm")):
        leftover.unlink(missing_ok=True)  # an empty database file (no tables, checked above)
    os.replace(db, live)
    say(f"database: {live} ({sum(manifest['tables'].values())} rows, checked against the manifest)")


def _restore_pgdump(dump: Path, manifest: dict, say: Say) -> None:
    conn = connections["default"]
    conn.ensure_connection()
    tool = _pg_tool("pg_restore", conn.pg_version // 10000)
    conn.close()
    # --no-owner/--no-privileges: the tables belong to whoever restores (the owner role) and the runtime role's
    # privileges are granted afresh, so the archive restores on a server whose roles have other names.
    run = subprocess.run([tool, "--no-owner", "--no-privileges", "--single-transaction", "--exit-on-error",
                          "--dbname", _pg_env()["PGDATABASE"], str(dump)], env=_pg_env(), capture_output=True,
                         text=True)
    if run.returncode:
        raise BackupError(f"pg_restore failed (nothing was restored: one transaction): {run.stderr.strip()}")
    _check(manifest, database_facts("default"))
    say(f"database: pg_restore ({sum(manifest['tables'].values())} rows, checked against the manifest)")


def _restore_sqlite_into_postgresql(db: Path, manifest: dict, say: Say) -> None:
    from django.core.management.sql import emit_post_migrate_signal
    from django.db.migrations.executor import MigrationExecutor

    dst = connections["default"]
    with sqlite_alias(db) as src_alias, transaction.atomic(using="default"):
        executor = MigrationExecutor(dst)
        graph = executor.loader.graph
        wanted = {(a, n) for a, names in manifest["migrations"].items() for n in names}
        unknown = sorted(f"{a}.{n}" for a, n in wanted if (a, n) not in graph.nodes)
        if unknown:
            raise BackupError(f"the archive was made by a newer version (migrations {', '.join(unknown[:3])} "
                              f"are unknown here): install that version to restore it")
        leaves = [n for n in wanted if not any(c.key in wanted for c in graph.node_map[n].children)]
        executor.migrate(leaves)  # the schema exactly as the archive's, in this transaction (PostgreSQL DDL)
        if set(MigrationRecorder(dst).applied_migrations()) != wanted:
            raise BackupError("could not bring the empty database to the archive's migrations")
        q = dst.ops.quote_name
        with dst.cursor() as c:
            for t in dst.introspection.table_names():  # rows the migrations themselves wrote (seed data)
                c.execute(f"SELECT 1 FROM {q(t)} LIMIT 1")
                if c.fetchone():
                    c.execute(f"DELETE FROM {q(t)}")
        by_table = _models_by_table()
        src_tables = connections[src_alias].introspection.table_names()
        for table in _load_order(src_tables, by_table):
            _copy_table(table, by_table.get(table), src_alias, "default")
        _reset_postgresql_sequences(dst)
        _check(manifest, database_facts("default"))
        emit_post_migrate_signal(0, False, "default")  # the append-only triggers re-checked, as after migrate
    say(f"database: SQLite archive copied into PostgreSQL ({sum(manifest['tables'].values())} rows, checked "
        f"against the manifest)")


def _load_order(tables: list[str], by_table: dict) -> list[str]:
    """Referenced tables before the tables that reference them (foreign keys are deferred on PostgreSQL
    anyway; this keeps the load valid for immediate constraints too)."""
    deps = {}
    for t in tables:
        m = by_table.get(t)
        deps[t] = {f.related_model._meta.db_table for f in m._meta.local_concrete_fields
                   if f.is_relation and f.related_model is not None} - {t} if m else set()
    order, done = [], set()

    def visit(t, path=()):
        if t in done or t in path or t not in deps:
            return
        for d in sorted(deps[t]):
            visit(d, (*path, t))
        done.add(t)
        order.append(t)

    for t in sorted(tables):
        visit(t)
    return order


def _copy_table(table: str, model, src: str, dst: str) -> int:
    s, d = connections[src], connections[dst]
    q = d.ops.quote_name
    if model is not None:
        fields = list(model._meta.local_concrete_fields)
        cols = [f.column for f in fields]
        rows = (model._base_manager.using(src).order_by(model._meta.pk.attname)
                .values_list(*[f.attname for f in fields]).iterator(chunk_size=BATCH))

        def prep(row):
            return [f.get_db_prep_save(v, connection=d) for f, v in zip(fields, row)]
    else:  # a table without a model (none today): copied value for value
        with s.cursor() as c:
            c.execute(f"SELECT * FROM {s.ops.quote_name(table)}")
            cols = [x[0] for x in c.description]
            fetched = c.fetchall()
        rows = iter(fetched)

        def prep(row):
            return list(row)
    sql = f"INSERT INTO {q(table)} ({', '.join(q(c) for c in cols)}) VALUES ({', '.join(['%s'] * len(cols))})"
    n = 0
    batch = []
    with d.cursor() as c:
        for row in rows:
            batch.append(prep(row))
            if len(batch) >= BATCH:
                c.executemany(sql, batch)
                n += len(batch)
                batch = []
        if batch:
            c.executemany(sql, batch)
            n += len(batch)
    return n


def _reset_postgresql_sequences(conn) -> None:
    """Every identity/serial column's sequence continues after the highest id loaded."""
    with conn.cursor() as c:
        c.execute("""
            SELECT c.relname, a.attname, pg_get_serial_sequence(quote_ident(c.relname), a.attname)
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
            WHERE c.relkind = 'r' AND n.nspname = current_schema()
              AND pg_get_serial_sequence(quote_ident(c.relname), a.attname) IS NOT NULL""")
        for table, column, seq in c.fetchall():
            q = conn.ops.quote_name
            c.execute(f"SELECT setval(%s, COALESCE(MAX({q(column)}), 1), MAX({q(column)}) IS NOT NULL) "
                      f"FROM {q(table)}", [seq])


def _place_files(tmp: Path, manifest: dict) -> None:
    media_root = Path(settings.MEDIA_ROOT)
    for name in manifest["members"]:
        if name.startswith(MEDIA):
            target = media_root / name[len(MEDIA):]
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(tmp / name, target)  # a rename when MEDIA_ROOT is on the data folder's disk
    if TOWN_TOML in manifest["members"]:
        shutil.move(tmp / TOWN_TOML, Path(settings.DATA_DIR) / TOWN_TOML)
