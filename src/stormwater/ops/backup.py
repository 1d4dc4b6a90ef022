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
import re
import shutil
import sqlite3
import subprocess
import tarfile
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.db import connections, models, transaction
from django.db.migrations.recorder import MigrationRecorder

FORMAT = "stormwater-backup"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
DB_SQLITE = "database/stormwater.sqlite3"
DB_PGDUMP = "database/stormwater.pgdump"
MEDIA = "media/"
TOWN_TOML = "town.toml"
SECRET_KEY_MEMBER = "keys/SECRET_KEY"
SNAPSHOT_ALIAS = "stormwater_backup_snapshot"
SQLITE_FILE = "stormwater.sqlite3"
CHUNK = 1 << 20
BATCH = 2000

Say = Callable[[str], None]


class BackupError(Exception):
    """A backup or restore that cannot go on; the message says why and what to do."""


# ---------------------------------------------------------------------------------------------- helpers

def _sha256_file(path: Path) -> tuple[int, str]:
    h, n = hashlib.sha256(), 0
    with path.open("rb") as f:
        while block := f.read(CHUNK):
            h.update(block)
            n += len(block)
    return n, h.hexdigest()


def key_fingerprint(key: str) -> str:
    """Enough to tell two keys apart, nothing to recover one from."""
    return hashlib.sha256(b"stormwater secret key fingerprint\0" + key.encode()).hexdigest()[:16]


def _engine(alias: str = "default") -> str:
    return connections[alias].vendor  # "sqlite" | "postgresql"


def _app_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("longmeadow-stormwater")
    except PackageNotFoundError:
        return "unknown"


@contextmanager
def sqlite_alias(path: Path, alias: str = SNAPSHOT_ALIAS) -> Iterator[str]:
    """A second database connection, on an SQLite file, for the ORM (the snapshot being archived or
    restored), removed again afterwards."""
    cfg = {"ENGINE": "stormwater.dbbackends.sqlite3", "NAME": str(path), "OPTIONS": {"timeout": 20}}
    connections.settings[alias] = connections.configure_settings(
        {"default": connections.settings["default"], alias: cfg})[alias]
    try:
        yield alias
    finally:
        connections[alias].close()
        del connections[alias]
        del connections.settings[alias]


@contextmanager
def as_owner() -> Iterator[str | None]:
    """On PostgreSQL with MIGRATE_DATABASE_URL (the owner role, docs/security.md), the default connection runs as
    the owner for the duration, as `stormwater migrate` does: a restore creates tables and triggers, which only the
    owner may; a backup reads everything. Yields the runtime role's name (None without an owner role)."""
    from stormwater.audit.management.commands.migrate import CONNECTION_KEYS

    owner = getattr(settings, "MIGRATE_DATABASE", None)
    conn = connections["default"]
    if not owner or conn.vendor != "postgresql":
        yield None
        return
    if owner["ENGINE"] != conn.settings_dict["ENGINE"]:
        raise BackupError("MIGRATE_DATABASE_URL is for PostgreSQL, with DATABASE_URL on the same server")
    runtime = dict(conn.settings_dict)
    conn.close()
    conn.settings_dict.update({k: owner[k] for k in CONNECTION_KEYS if k in owner})
    try:
        yield runtime.get("USER")
    finally:
        conn.close()
        conn.settings_dict.update({k: runtime[k] for k in CONNECTION_KEYS if k in runtime})


def _grant_runtime(runtime: str | None, say: Say) -> None:
    """After a restore as the owner: the runtime role gets exactly what running needs (as after migrate)."""
    from stormwater.appendonly import grant_runtime_role

    conn = connections["default"]
    if conn.vendor != "postgresql" or not runtime or runtime == conn.settings_dict.get("USER"):
        return
    grant_runtime_role(conn, runtime)
    say(f"runtime role {runtime!r}: granted what running needs (docs/security.md)")


def _models_by_table() -> dict[str, type[models.Model]]:
    out = {m._meta.db_table: m for m in apps.get_models(include_auto_created=True)
           if m._meta.managed and not m._meta.proxy}
    out[MigrationRecorder.Migration._meta.db_table] = MigrationRecorder.Migration
    return out


# ------------------------------------------------------------------------------ facts of a database copy

def database_facts(alias: str = "default") -> dict:
    """Rows per table, the sum of every decimal (money) column and the migrations applied: what the manifest
    records and what a restore must reproduce. Sums are exact: PostgreSQL's numeric SUM; on SQLite (where a
    decimal is stored as REAL) the sum of the per-row Decimals Django reads back."""
    conn = connections[alias]
    tables = sorted(conn.introspection.table_names())
    q = conn.ops.quote_name
    counts = {}
    with conn.cursor() as c:
        for t in tables:
            c.execute(f"SELECT COUNT(*) FROM {q(t)}")
            counts[t] = c.fetchone()[0]
    sums = {}
    present = set(tables)
    for table, model in sorted(_models_by_table().items()):
        if table not in present:
            continue
        for f in model._meta.local_concrete_fields:
            if not isinstance(f, models.DecimalField):
                continue
            unit = Decimal(1).scaleb(-f.decimal_places)
            qs = model._base_manager.using(alias)
            if conn.vendor == "postgresql":
                total = qs.aggregate(s=models.Sum(f.attname))["s"] or Decimal(0)
            else:
                total = sum((v for v in qs.values_list(f.attname, flat=True).iterator(chunk_size=BATCH)
                             if v is not None), Decimal(0))
            sums[f"{table}.{f.column}"] = str(Decimal(total).quantize(unit))
    applied: dict[str, list[str]] = {}
    if MigrationRecorder.Migration._meta.db_table in present:
        for app, name in MigrationRecorder(conn).applied_migrations():
            applied.setdefault(app, []).append(name)
    return {"tables": counts, "sums": sums, "migrations": {a: sorted(n) for a, n in sorted(applied.items())}}


def facts_differences(expected: dict, got: dict) -> list[str]:
    out = []
    for part, what in (("tables", "rows"), ("sums", "sum")):
        e, g = expected.get(part, {}), got.get(part, {})
        for k in sorted(set(e) | set(g)):
            if e.get(k) != g.get(k):
                out.append(f"{k}: {what} {g.get(k, 'missing')}, the archive says {e.get(k, 'missing')}")
    if expected.get("migrations") != got.get("migrations"):
        out.append("the migrations applied differ from the archive's")
    return out


# ---------------------------------------------------------------------------------------------- backup

@dataclass
class _Member:
    name: str
    path: Path


def _pg_tool(name: str, server_major: int) -> str:
    """The newest pg_dump/pg_restore on this machine, which must not be older than the server."""
    found = []
    for d in Path("/usr/lib/postgresql").glob("*/bin"):
        if (d / name).exists() and d.parent.name.isdigit():
            found.append((int(d.parent.name), str(d / name)))
    if not found and shutil.which(name):
        out = subprocess.run([shutil.which(name), "--version"], capture_output=True, text=True).stdout
        m = re.search(r"(\d+)", out)
        found.append((int(m.group(1)) if m else 0, shutil.which(name)))
    if not found:
        raise BackupError(f"{name} is not installed (Debian: apt-get install postgresql-client-{server_major})")
    major, path = max(found)
    if major < server_major:
        raise BackupError(f"{name} {major} is older than the PostgreSQL {server_major} server: "
                          f"install postgresql-client-{server_major}")
    return path


def _pg_env(alias: str = "default") -> dict[str, str]:
    s = connections[alias].settings_dict
    env = dict(os.environ)
    for var, key in (("PGHOST", "HOST"), ("PGPORT", "PORT"), ("PGUSER", "USER"), ("PGPASSWORD", "PASSWORD"),
                     ("PGDATABASE", "NAME")):
        if s.get(key):
            env[var] = str(s[key])
    for opt, var in (("sslmode", "PGSSLMODE"), ("sslrootcert", "PGSSLROOTCERT")):
        if s.get("OPTIONS", {}).get(opt):
            env[var] = str(s["OPTIONS"][opt])
    return env


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


# ---------------------------------------------------------------------------------------------- restore

_FIXED_MEMBERS = {MANIFEST, DB_SQLITE, DB_PGDUMP, TOWN_TOML, SECRET_KEY_MEMBER}


def _member_name_ok(name: str) -> bool:
    """Only the members a backup writes; a media path stays inside media/ (no '..', no absolute path)."""
    if name in _FIXED_MEMBERS:
        return True
    parts = name.split("/")
    return (name.startswith(MEDIA) and len(parts) > 1 and all(p not in ("", ".", "..") for p in parts)
            and "\x00" not in name and "\\" not in name)


def read_manifest(archive: Path) -> dict:
    try:
        with tarfile.open(archive, "r:gz") as tar:
            f = tar.extractfile(MANIFEST)
            manifest = json.loads(f.read()) if f else None
    except (OSError, tarfile.TarError, KeyError, EOFError) as e:
        raise BackupError(f"{archive}: not a readable stormwater backup ({e})") from None
    except ValueError as e:
        raise BackupError(f"{archive}: its manifest is not valid JSON ({e})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise BackupError(f"{archive}: not a stormwater backup (no {FORMAT} manifest)")
    if manifest.get("format_version") != FORMAT_VERSION:
        raise BackupError(f"{archive}: backup format {manifest.get('format_version')}; this version reads "
                          f"{FORMAT_VERSION}")
    return manifest


def archived_secret_key(archive: Path) -> str | None:
    with tarfile.open(archive, "r:gz") as tar:
        try:
            f = tar.extractfile(SECRET_KEY_MEMBER)
        except KeyError:
            return None
        return f.read().decode().strip() if f else None


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
