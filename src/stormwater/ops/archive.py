"""The backup archive's format and what backup and restore share (issue 14; docs/deploy.md).

The format itself (members, manifest, what restore checks) is described in ``stormwater.ops.backup``;
writing is there, reading back is ``stormwater.ops.restore``."""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tarfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.db import connections, models
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
    from stormwater import __version__  # the one place the version lives (issue 28)

    return __version__


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


# ----------------------------------------------------------------------------------------------  tools

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



# ------------------------------------------------------------------------------------- reading an archive

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
