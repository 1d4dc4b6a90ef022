"""A live database and `stormwater` processes for the crash tests: its own SQLite data folder, or its own
database on the PostgreSQL server of DATABASE_URL, so worker processes can be started, killed and restarted
the way systemd would, while the test reads the database directly."""
from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

HERE = Path(__file__).resolve().parent
STORMWATER = [sys.executable, "-m", "stormwater"]


class Live:
    def __init__(self, tmp: Path):
        self.tmp = tmp
        self.mail = tmp / "mail"
        self.mail.mkdir()
        self.env = {**os.environ, "STORMWATER_DATA_DIR": str(tmp / "data"), "PYTHONPATH": str(HERE),
                    "EMAIL_BACKEND": "blocking_mail.EmailBackend", "EMAIL_FILE_PATH": str(self.mail),
                    "DJANGO_SETTINGS_MODULE": "stormwater.settings"}
        self.env.pop("BLOCK_AFTER", None)
        url = os.environ.get("DATABASE_URL")
        self.pg_admin = None
        if url:
            import psycopg

            name = f"jobs_live_{uuid.uuid4().hex[:10]}"
            parts = urlsplit(url)
            self.pg_admin = url
            self.pg_name = name
            with psycopg.connect(url, autocommit=True) as c:
                c.execute(f'CREATE DATABASE "{name}"')
            self.env["DATABASE_URL"] = urlunsplit(parts._replace(path="/" + name))

    # --- processes -------------------------------------------------------------------------------------
    def run(self, *args: str, **env) -> subprocess.CompletedProcess:
        return subprocess.run([*STORMWATER, *args], env={**self.env, **env}, capture_output=True, text=True,
                              timeout=600)

    def start(self, *args: str, **env) -> subprocess.Popen:
        return subprocess.Popen([*STORMWATER, *args], env={**self.env, **env}, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)

    def script(self, *args: str) -> dict:
        r = subprocess.run([sys.executable, str(HERE / "live_seed.py"), *args], env=self.env, capture_output=True,
                           text=True, timeout=600)
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout.strip().splitlines()[-1])

    # --- the database, read directly -------------------------------------------------------------------
    def rows(self, sql: str, *params) -> list[tuple]:
        if "DATABASE_URL" in self.env:
            import psycopg

            with psycopg.connect(self.env["DATABASE_URL"]) as c:
                return c.execute(sql.replace("?", "%s"), params).fetchall()
        c = sqlite3.connect(self.tmp / "data" / "stormwater.sqlite3", timeout=30)
        try:
            return c.execute(sql, params).fetchall()
        finally:
            c.close()

    def wait_for(self, what: str, condition, proc: subprocess.Popen | None = None, limit: float = 300):
        """Wait until ``condition()`` is true (checked every 50 ms); fail if the process ends first or the
        condition never comes (a safety net against a hung test, not a timing assertion)."""
        deadline = time.monotonic() + limit
        while not condition():
            if proc is not None and proc.poll() is not None:
                raise AssertionError(f"the process ended before {what}: {proc.stdout.read()}")
            if time.monotonic() > deadline:
                raise AssertionError(f"never saw {what}")
            time.sleep(0.05)

    def mail_files(self) -> list[str]:
        return [p.read_text(errors="replace") for p in sorted(self.mail.glob("*.log"))]

    def close(self):
        if self.pg_admin:
            import psycopg

            with psycopg.connect(self.pg_admin, autocommit=True) as c:
                c.execute(f'DROP DATABASE IF EXISTS "{self.pg_name}" WITH (FORCE)')
