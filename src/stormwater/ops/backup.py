"""One archive of a town: ``stormwater backup OUT`` and ``stormwater restore IN`` (issue 14; docs/deploy.md).

The archive is a gzip'd tar holding

``database/stormwater.sqlite3``
    on SQLite: a copy made with SQLite's online backup API (consistent while the app keeps running);
``database/stormwater.pgdump``
    on PostgreSQL: ``pg_dump --format=custom`` of one exported snapshot;
``media/…``
    every uploaded document (MEDIA_ROOT), byte for byte;
``town.toml``
    the town configuration, when there is one;
``keys/SECRET_KEY``
    the key the sign-up code printed on every mailed bill is derived from (portal/codes.py). It is in the
    archive whatever its source (the environment / .env in production, the data folder's dev-secret-key
    in development), so the archive is as secret as the key: keep it like the .env. ``--without-secret-key``
    leaves it out (the town keeps it elsewhere); the manifest then holds only its fingerprint;
``manifest.json``
    format, version, the migrations applied, rows per table, the sum of every money column (ledgers
    included), and the size and SHA-256 of every other member — all read from the database copy itself,
    so they describe exactly what was archived.

Restore goes into an EMPTY data folder and database and refuses anything else. SQLite → SQLite puts the
copy in place; PostgreSQL → PostgreSQL is ``pg_restore``; SQLite → PostgreSQL (a town outgrowing the
embedded default) migrates the empty database to the archive's migrations and copies every table through
the ORM's field conversions in one transaction (rows inserted raw, so ``auto_now_add`` timestamps and ids
are kept; the append-only triggers refuse only UPDATE/DELETE, so loading is allowed), then sets every
sequence past the highest id. Every path ends by counting the restored database against the manifest.

On PostgreSQL with an owner role (``MIGRATE_DATABASE_URL``, docs/security.md) both run as the owner, and a restore
grants the runtime role (``DATABASE_URL``) what running needs, as ``stormwater migrate`` does.

No audit row is written by either: the archive must reproduce the town exactly; both are administrator
operations recorded in the system log (the command's output under systemd/cron).
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import sqlite3
import subprocess
import tarfile
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from django.conf import settings
from django.db import connections, transaction

from stormwater.ops.archive import (
    BackupError,
    DB_PGDUMP,
    DB_SQLITE,
    FORMAT,
    FORMAT_VERSION,
    MANIFEST,
    MEDIA,
    SECRET_KEY_MEMBER,
    Say,
    TOWN_TOML,
    _Member,
    _app_version,
    _engine,
    _pg_env,
    _pg_tool,
    as_owner,
    database_facts,
    key_fingerprint,
    sqlite_alias,
)


def backup_create(*, out: Path, include_secret_key: bool = True, say: Say = lambda s: None) -> dict:
    """Write the archive ``out`` (refuses to overwrite); returns its manifest."""
    out = Path(out).resolve()
    if out.exists():
        raise BackupError(f"{out} already exists: give a new file name (backups are never overwritten)")
    if not out.parent.is_dir():
        raise BackupError(f"{out.parent} is not a folder")
    with tempfile.TemporaryDirectory(prefix=".stormwater-backup-", dir=out.parent) as tmp:
        tmp = Path(tmp)
        engine = _engine()
        if engine == "sqlite":
            db = _member_sqlite(tmp / "stormwater.sqlite3")
            with sqlite_alias(db.path) as alias:
                facts = database_facts(alias)
            say(f"database: SQLite copy (online backup API), {sum(facts['tables'].values())} rows")
        elif engine == "postgresql":
            with as_owner():
                db, facts = _member_pgdump(tmp / "stormwater.pgdump")
            say(f"database: pg_dump of one snapshot, {sum(facts['tables'].values())} rows")
        else:
            raise BackupError(f"the {engine} database is not supported (SQLite or PostgreSQL)")
        members = [db, *_media_members(), *_town_members()]
        key = settings.SECRET_KEY
        if include_secret_key:
            (tmp / "SECRET_KEY").write_text(key + "\n")
            (tmp / "SECRET_KEY").chmod(0o600)
            members.append(_Member(SECRET_KEY_MEMBER, tmp / "SECRET_KEY"))
        manifest = {
            "format": FORMAT, "format_version": FORMAT_VERSION,
            "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "app_version": _app_version(), "town": settings.TOWN_NAME,
            "database": {"engine": engine, "member": db.name},
            "secret_key": {"source": getattr(settings, "SECRET_KEY_SOURCE", "unknown"),
                           "included": include_secret_key, "fingerprint": key_fingerprint(key)},
            **facts,
            "members": {},
        }
        partial = out.with_name(out.name + ".partial")
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # it holds the key and owners' data
        try:
            with os.fdopen(fd, "wb") as raw, tarfile.open(fileobj=raw, mode="w:gz", compresslevel=6) as tar:
                for m in members:
                    manifest["members"][m.name] = _add_hashed(tar, m)
                body = json.dumps(manifest, indent=2, sort_keys=True).encode()
                info = tarfile.TarInfo(MANIFEST)
                info.size, info.mode, info.mtime = len(body), 0o600, int(datetime.now().timestamp())
                tar.addfile(info, io.BytesIO(body))
            os.replace(partial, out)
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
    from stormwater.ops.heartbeat import beat

    beat("backup", archive=str(out), app_version=manifest["app_version"])  # /readyz: the last backup (issue 28)
    media = sum(1 for n in manifest["members"] if n.startswith(MEDIA))
    say(f"{media} uploaded document(s), town.toml {'yes' if TOWN_TOML in manifest['members'] else 'none'}, "
        f"SECRET_KEY {'included' if include_secret_key else 'left out (fingerprint only)'}")
    return manifest


def _add_hashed(tar: tarfile.TarFile, m: _Member) -> dict:
    """Add a file, hashing exactly the bytes that go into the archive."""
    st = m.path.stat()
    info = tarfile.TarInfo(m.name)
    info.size, info.mtime, info.mode = st.st_size, int(st.st_mtime), 0o600 if m.name == SECRET_KEY_MEMBER else 0o644
    h = hashlib.sha256()

    class Hashing:  # tarfile copies exactly info.size bytes with read(); hash those
        def __init__(self, f):
            self.f = f

        def read(self, n=-1):
            block = self.f.read(n)
            h.update(block)
            return block

    with m.path.open("rb") as f:
        tar.addfile(info, Hashing(f))
    return {"bytes": st.st_size, "sha256": h.hexdigest()}


def _member_sqlite(dest: Path) -> _Member:
    conn = connections["default"]
    conn.ensure_connection()
    target = sqlite3.connect(dest)
    try:
        conn.connection.backup(target)  # SQLite's online backup API: one consistent copy, writers keep going
        target.execute("PRAGMA journal_mode=DELETE")  # one self-contained file (the live database is WAL)
    finally:
        target.close()
    return _Member(DB_SQLITE, dest)


def _member_pgdump(dest: Path) -> tuple[_Member, dict]:
    conn = connections["default"]
    with transaction.atomic():
        with conn.cursor() as c:
            # The counts and pg_dump see the same snapshot: one REPEATABLE READ transaction exports it and
            # stays open while pg_dump runs with --snapshot.
            c.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            c.execute("SELECT pg_export_snapshot()")
            snapshot = c.fetchone()[0]
        facts = database_facts("default")
        tool = _pg_tool("pg_dump", conn.pg_version // 10000)
        run = subprocess.run([tool, "--format=custom", f"--snapshot={snapshot}", "--file", str(dest)],
                             env=_pg_env(), capture_output=True, text=True)
        if run.returncode:
            hint = ("" if getattr(settings, "MIGRATE_DATABASE", None) else
                    " (with a runtime role that owns nothing, run the backup as the owner: MIGRATE_DATABASE_URL, "
                    "docs/security.md)")
            raise BackupError(f"pg_dump failed: {run.stderr.strip()}{hint}")
    return _Member(DB_PGDUMP, dest), facts


def _media_members() -> list[_Member]:
    root = Path(settings.MEDIA_ROOT)
    if not root.is_dir():
        return []
    out = []
    for path in sorted(root.rglob("*")):
        if path.is_symlink():
            raise BackupError(f"{path}: a symbolic link in the uploads folder (not archived; replace it by the file)")
        if path.is_file():
            out.append(_Member(MEDIA + path.relative_to(root).as_posix(), path))
    return out


def _town_members() -> list[_Member]:
    path = Path(settings.DATA_DIR) / TOWN_TOML
    return [_Member(TOWN_TOML, path)] if path.is_file() else []

