"""Every script under benchmarks/ runs (issue 24): each at a tiny size in its own process, as someone measuring would
run it, on this checkout's code, and must exit 0 having printed its own correctness line ("correctness: ok — …":
the figures it times checked against an independent computation; a script exits 1 when they differ). No time is
asserted.

The database benchmarks need an empty database: a copy of one migrated once (a migrate takes ~30 s of CPU here; a
copy, none): a data folder on SQLite (migrated once per test run, tests/conftest.py::migrated_sqlite), a template
database on the PostgreSQL run's server (tests see
DATABASE_URL=postgres://… there, as tests/ops/ do). aging.py writes with COPY and runs on PostgreSQL only;
engineering.py, gis_overlay.py and load.py run once, in the SQLite run of bin/test; bill_run.py in both runs."""
from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

REPO = Path(__file__).resolve().parents[2]
BENCHMARKS = REPO / "benchmarks"
# What a shell running a benchmark would not have: the test run's database, key and Django settings (tests/ops/).
SCRUBBED = {"DATABASE_URL", "SECRET_KEY", "STORMWATER_ENV", "DEBUG", "ALLOWED_HOSTS", "DJANGO_SETTINGS_MODULE",
            "STORMWATER_DATA_DIR", "SECURE_PROXY_SSL_HEADER_ON", "SECURE_SSL_REDIRECT", "DJANGO_ALLOW_ASYNC_UNSAFE",
            "MIGRATE_DATABASE_URL"}
POSTGRES_URL = os.environ.get("DATABASE_URL", "") if os.environ.get("DATABASE_URL", "").startswith("postgres") else ""
OK = "correctness: ok"

sqlite_run_only = pytest.mark.skipif(bool(POSTGRES_URL), reason="no database: runs once, in the SQLite run of bin/test")
postgres_run_only = pytest.mark.skipif(not POSTGRES_URL, reason="writes with COPY: needs the PostgreSQL run of "
                                                                "bin/test (bin/pg-temp)")


def env_for(data_dir: Path, **extra: str) -> dict[str, str]:
    """A clean environment (tests/ops/conftest.py's) running this checkout's code."""
    env = {k: v for k, v in os.environ.items() if k not in SCRUBBED and not k.startswith("PYTEST")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "src"), env.get("PYTHONPATH")]))
    env["STORMWATER_DATA_DIR"] = str(data_dir)
    env.update(extra)
    return env


def run(script: str, *args: str, cwd: Path, env: dict, timeout: float = 600) -> str:
    """``python benchmarks/SCRIPT ARGS`` → its output, once it has exited 0 and printed its correctness line."""
    p = subprocess.run([sys.executable, str(BENCHMARKS / script), *args], cwd=cwd, env=env, capture_output=True,
                       text=True, timeout=timeout)
    out = f"{script} {' '.join(args)} exited {p.returncode}\n{p.stdout}\n{p.stderr[-4000:]}"
    assert p.returncode == 0, out
    assert OK in p.stdout, out
    return p.stdout


def _db_url(name: str) -> str:
    return urlunsplit(urlsplit(POSTGRES_URL)._replace(path="/" + name))


def _admin(sql: str) -> None:
    import psycopg

    with psycopg.connect(POSTGRES_URL, autocommit=True) as c:
        c.execute(sql)


@pytest.fixture(scope="session")
def migrated(tmp_path_factory, request):
    """An empty database migrated once: a data folder (SQLite: a copy of the one migrated once per test run,
    tests/conftest.py::migrated_sqlite), or the name of a template database on the PostgreSQL server migrated once
    in this test process (dropped at the end)."""
    root = tmp_path_factory.mktemp("bench-migrated")
    data = root / "data"
    if not POSTGRES_URL:
        yield request.getfixturevalue("migrated_sqlite")(data)
        return
    template = f"bench_tpl_{uuid.uuid4().hex[:10]}"
    _admin(f'CREATE DATABASE "{template}"')
    try:
        p = subprocess.run([sys.executable, "-m", "stormwater", "migrate", "--no-input", "-v0"], cwd=root,
                           env=env_for(data, DATABASE_URL=_db_url(template)), capture_output=True, text=True,
                           timeout=600)
        assert p.returncode == 0, p.stdout + p.stderr
        yield template
    finally:
        _admin(f'DROP DATABASE IF EXISTS "{template}" WITH (FORCE)')


@pytest.fixture
def fresh(migrated, tmp_path):
    """(data folder, environment additions) of an empty, migrated database of this test's own."""
    data = tmp_path / "data"
    if not POSTGRES_URL:
        shutil.copytree(migrated, data)
        yield data, {}
        return
    data.mkdir()
    name = f"bench_{uuid.uuid4().hex[:10]}"
    _admin(f'CREATE DATABASE "{name}" TEMPLATE "{migrated}"')
    try:
        yield data, {"DATABASE_URL": _db_url(name)}
    finally:
        _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@sqlite_run_only
def test_engineering_runs(tmp_path):
    out = run("engineering.py", "--n", "30", cwd=tmp_path, env=env_for(tmp_path / "data"))
    assert "peak (TR-55 graphical)" in out and "hydrograph (NRCS unit hydrograph)" in out


@sqlite_run_only
def test_gis_overlay_runs(tmp_path):
    dask = importlib.util.find_spec("distributed") is not None and importlib.util.find_spec("dask_geopandas")
    out = run("gis_overlay.py", "--parcels", "200", "--impervious", "600", "--crossing", "0.2", "--repeat", "1",
              "--dask-workers", "1" if dask else "0", cwd=tmp_path, env=env_for(tmp_path / "data"))
    assert "geopandas.overlay" in out and ("Dask path" in out) == bool(dask)


@pytest.mark.database
def test_bill_run_runs(fresh, tmp_path):
    data, extra = fresh
    out = run("bill_run.py", "--parcels", "300", cwd=tmp_path, env=env_for(data, **extra))
    assert f"database: {'postgresql' if POSTGRES_URL else 'sqlite'}" in out
    # 300 parcels, one a condominium of three units: 302 bills.
    assert "RESULT" in out and " bills=302 " in out


@postgres_run_only
@pytest.mark.database
def test_aging_runs(fresh, tmp_path):
    data, extra = fresh
    out = run("aging.py", "--accounts", "200", "--repeat", "1", cwd=tmp_path, env=env_for(data, **extra))
    assert "figures agree to the cent: yes" in out


def _free_port_pair() -> int:
    """A port p with p + 1 free too (load.py's runserver listens on its --port + 1)."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port >= 65535:
            continue
        try:
            with socket.socket() as s2:
                s2.bind(("127.0.0.1", port + 1))
        except OSError:
            continue
        return port
    raise AssertionError("no two free neighbouring ports on 127.0.0.1")


@pytest.mark.slow
def test_load_runs(fresh, tmp_path):
    """A few users for two seconds against each server (stormwater serve, runserver) on the demo town. Once, in the
    SQLite run (tests/conftest.py repeats on PostgreSQL only what is marked as using the run's database)."""
    data, extra = fresh
    out = run("load.py", "--users", "3", "--seconds", "2", "--warmup", "1", "--workers", "1", "--port",
              str(_free_port_pair()), "--data", str(data), *(["--postgres"] if POSTGRES_URL else []), cwd=tmp_path,
              env=env_for(data, **extra))
    assert ("PostgreSQL" if POSTGRES_URL else "SQLite") in out
