"""Helpers for the deployment tests: the ``stormwater`` command run as an administrator would, in its own
process, on its own data folder, with none of the test run's settings in its environment."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlsplit, urlunsplit

import pytest

from buildonce import built_once

REPO = Path(__file__).resolve().parents[2]
SNAPSHOT_SCRIPT = Path(__file__).resolve().parent / "town_snapshot.py"
MORE_SCRIPT = Path(__file__).resolve().parent / "town_more.py"
# What an administrator's shell would not have: the test run's database, key and Django settings.
# (DJANGO_ALLOW_ASYNC_UNSAFE is set by the browser tests' Playwright fixtures in the same worker.)
SCRUBBED = {"DATABASE_URL", "SECRET_KEY", "STORMWATER_ENV", "DEBUG", "ALLOWED_HOSTS", "DJANGO_SETTINGS_MODULE",
            "STORMWATER_DATA_DIR", "SECURE_PROXY_SSL_HEADER_ON", "SECURE_SSL_REDIRECT", "DJANGO_ALLOW_ASYNC_UNSAFE",
            "MIGRATE_DATABASE_URL"}
POSTGRES_URL = os.environ.get("DATABASE_URL", "") if os.environ.get("DATABASE_URL", "").startswith("postgres") else ""


def clean_env(data_dir: Path | None, **extra: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in SCRUBBED and not k.startswith("PYTEST")}
    if data_dir is not None:
        env["STORMWATER_DATA_DIR"] = str(data_dir)
    env.update({k: v for k, v in extra.items() if v is not None})
    return env


def stormwater(*args: str, data_dir: Path | None, cwd: Path, env: dict | None = None, input: str | None = None,
               check: bool = True, exe: list[str] | None = None) -> subprocess.CompletedProcess:
    """Run ``stormwater ARGS`` (this checkout's, or ``exe``) in ``cwd``; ``env`` adds to a clean environment."""
    p = subprocess.run([*(exe or [sys.executable, "-m", "stormwater"]), *args], cwd=cwd,
                       env=clean_env(data_dir, **(env or {})), input=input, capture_output=True, text=True)
    if check and p.returncode:
        raise AssertionError(f"stormwater {' '.join(args)} exited {p.returncode}\n{p.stdout}\n{p.stderr}")
    return p


def take_snapshot(data_dir: Path, cwd: Path, env: dict | None = None) -> dict:
    out = cwd / f"snapshot-{uuid.uuid4().hex[:8]}.json"
    p = subprocess.run([sys.executable, str(SNAPSHOT_SCRIPT), str(out)], cwd=cwd,
                       env=clean_env(data_dir, **(env or {})), capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return json.loads(out.read_text())


def _town_more(data: Path, cwd: Path) -> str:
    """Rows in the later slices' tables (town_more.py: the Collector's two-factor devices, queued jobs), then as an
    administrator: API tokens (one revoked), the worker running the queued jobs, and one job left queued.
    → the live token's secret."""
    p = subprocess.run([sys.executable, str(MORE_SCRIPT)], cwd=cwd, env=clean_env(data), capture_output=True,
                       text=True)
    assert p.returncode == 0, p.stderr
    issued = stormwater("token", "issue", "gis-sync", "--role", "staff", "--by", "director", "--json",
                        data_dir=data, cwd=cwd)
    stormwater("token", "issue", "old-sync", "--role", "staff", data_dir=data, cwd=cwd)
    stormwater("token", "revoke", "old-sync", "--by", "director", data_dir=data, cwd=cwd)
    stormwater("worker", "--batch", "-v0", data_dir=data, cwd=cwd)
    stormwater("daily", "--enqueue", "--day", "2026-12-03", data_dir=data, cwd=cwd)
    return json.loads(issued.stdout)["token"]


@pytest.fixture(scope="session")
def demo_town(tmp_path_factory, migrated_sqlite):
    """The demo town (the run's migrated database copied in — tests/conftest.py::migrated_sqlite, the same `stormwater
    migrate` — then demo_load, SQLite, as bin/run makes it, with rows in the later slices' tables: _town_more), its
    backup and its snapshot — built once per test run (tests/conftest.py::built_once: the xdist workers share it).
    Tests only read it (or copy it)."""
    def build(root):
        data = migrated_sqlite(root / "data")
        stormwater("demo_load", data_dir=data, cwd=root)
        (root / "api-token").write_text(_town_more(data, root))
        stormwater("backup", str(root / "town.tar.gz"), data_dir=data, cwd=root)
        (root / "snapshot.json").write_text(json.dumps(take_snapshot(data, root)))

    root = built_once(tmp_path_factory, "demo-town", build)
    return SimpleNamespace(root=root, data=root / "data", archive=root / "town.tar.gz",
                           snapshot=json.loads((root / "snapshot.json").read_text()),
                           api_token=(root / "api-token").read_text())


@contextmanager
def fresh_postgres_database():
    """A new, empty database on the PostgreSQL server of this test run (bin/pg-temp), set up as docs/security.md
    says: owned by an owner role, used by a runtime role that owns nothing. Yields the environment of a
    `stormwater` command there: DATABASE_URL (runtime role) and MIGRATE_DATABASE_URL (owner). Dropped after."""
    import psycopg

    tag = uuid.uuid4().hex[:10]
    name, owner, app = f"restore_{tag}", f"sw_owner_{tag}", f"sw_app_{tag}"
    parts = urlsplit(POSTGRES_URL)

    def url(role):
        return urlunsplit(parts._replace(netloc=f"{role}:{role}-pw@{parts.hostname}:{parts.port or 5432}",
                                         path="/" + name))

    with psycopg.connect(POSTGRES_URL, autocommit=True) as c:
        c.execute(f"CREATE ROLE {owner} LOGIN PASSWORD '{owner}-pw'")
        c.execute(f"CREATE ROLE {app} LOGIN PASSWORD '{app}-pw'")
        c.execute(f'CREATE DATABASE "{name}" OWNER {owner}')
    try:
        yield {"DATABASE_URL": url(app), "MIGRATE_DATABASE_URL": url(owner)}
    finally:
        with psycopg.connect(POSTGRES_URL, autocommit=True) as c:
            c.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            c.execute(f"DROP ROLE IF EXISTS {app}")
            c.execute(f"DROP ROLE IF EXISTS {owner}")
