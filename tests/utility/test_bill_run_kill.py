"""A bill run killed with SIGKILL mid-run (issue 15): nothing of it is visible, and running the same command
again — or, for the proof as a background job, the next worker taking the job back — ends with exactly one
correct run, the same as a run never interrupted. Real processes, on SQLite (a data
folder of its own) and, under bin/pg-temp, PostgreSQL (a database of its own).

The kill lands mid-run by condition, not by time: once slices are recorded, the test takes the database's write
lock (SQLite) or the run's row lock (PostgreSQL), so the process is stuck at its next slice when it is killed."""
from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

pytestmark = [pytest.mark.database, pytest.mark.slow]  # its child processes use the run's database (DATABASE_URL)

HERE = Path(__file__).resolve().parent
N = 200  # parcels: 100 slices of 2


class Db:
    """A fresh database for child processes: a data folder (SQLite) or a database on DATABASE_URL's server."""

    def __init__(self, tmp: Path):
        self.env = {**os.environ, "STORMWATER_DATA_DIR": str(tmp / "data"),
                    "DJANGO_SETTINGS_MODULE": "stormwater.settings"}
        self.url = os.environ.get("DATABASE_URL")
        self.path = tmp / "data" / "stormwater.sqlite3"
        if self.url:
            import psycopg

            self.name = f"billrun_kill_{uuid.uuid4().hex[:10]}"
            with psycopg.connect(self.url, autocommit=True) as c:
                c.execute(f'CREATE DATABASE "{self.name}"')
            self.env["DATABASE_URL"] = urlunsplit(urlsplit(self.url)._replace(path="/" + self.name))

    def helper(self, *args):
        r = subprocess.run([sys.executable, str(HERE / "billrun_live.py"), *args], env=self.env, capture_output=True,
                           text=True, timeout=600)
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout) if args[0] in ("run", "enqueue", "approve") else \
            json.loads(r.stdout.strip().splitlines()[-1])

    def worker(self):
        """``stormwater worker --batch``, the real command (what systemd's restart runs): recovery, then the queue."""
        r = subprocess.run([sys.executable, "-m", "stormwater", "worker", "--batch"], env=self.env,
                           capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stdout + r.stderr

    def connect(self):
        if self.url:
            import psycopg

            return psycopg.connect(self.env["DATABASE_URL"])
        return sqlite3.connect(self.path, isolation_level=None, timeout=60)

    def seed_as(self, other: "Db") -> None:
        """This database made a copy of ``other``'s, already seeded (a migrate costs tens of seconds; issue 24):
        the data folder copied (SQLite), or a database made from the other as its template (PostgreSQL)."""
        import shutil

        if self.url:
            import psycopg

            with psycopg.connect(self.url, autocommit=True) as c:
                c.execute(f'DROP DATABASE "{self.name}"')
                c.execute(f'CREATE DATABASE "{self.name}" TEMPLATE "{other.name}"')
        else:
            shutil.copytree(other.path.parent, self.path.parent)

    def rows(self, sql: str):
        with self.connect() as c:
            return c.execute(sql).fetchall()

    def scalar(self, sql: str):
        with self.connect() as c:
            return c.execute(sql).fetchone()[0]

    def close(self):
        if self.url:
            import psycopg

            with psycopg.connect(self.url, autocommit=True) as c:
                c.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')


@pytest.fixture
def dbs(tmp_path, request):
    made = [Db(tmp_path / "killed"), Db(tmp_path / "clean")]
    if not made[0].url:  # the run's migrated SQLite database (tests/conftest.py::migrated_sqlite): the seed's
        request.getfixturevalue("migrated_sqlite")(made[0].path.parent)  # migrate then has nothing to apply
    try:
        yield made
    finally:
        for d in made:
            d.close()


def _wait_for(what: str, cond, proc):
    """Poll a condition (the database's state) until it holds; fail if the process ended first."""
    import time

    deadline = time.monotonic() + 300
    while not cond():
        assert proc.poll() is None, f"the bill run ended before {what}: {proc.stdout.read()}"
        assert time.monotonic() < deadline, f"no {what} in 300 s"
        time.sleep(0.02)


def test_a_bill_run_killed_mid_run_reruns_to_exactly_one_correct_run(dbs):
    killed, clean = dbs
    killed.helper("seed", str(N))
    clean.seed_as(killed)
    assert clean.helper("run")["bills"] == N
    expected = clean.helper("snapshot")
    assert expected["runs"] == ["issued"] and len(expected["bills"]) == N and expected["charges"] == 4 * N

    proc = subprocess.Popen([sys.executable, str(HERE / "billrun_live.py"), "run"], env=killed.env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    _wait_for("5 slices recorded", lambda: killed.scalar("SELECT COUNT(*) FROM utility_billrunchunk") >= 5, proc)
    hold = killed.connect()
    try:
        if killed.url:  # the run's row: the next slice waits for it
            hold.execute("SELECT id FROM utility_billrun FOR UPDATE")
        else:  # the write lock: the next slice's BEGIN IMMEDIATE waits for it
            hold.execute("BEGIN IMMEDIATE")
        state, chunks = hold.execute("SELECT r.state, COUNT(c.id) FROM utility_billrun r LEFT JOIN "
                                     "utility_billrunchunk c ON c.run_id = r.id GROUP BY r.state").fetchone()
        assert state == "preparing" and 5 <= chunks < N // 2
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    finally:
        hold.rollback() if killed.url else hold.execute("ROLLBACK")
        hold.close()

    # Killed: the run half-prepared, nothing of it visible (no charge, no issued bill).
    assert killed.scalar("SELECT COUNT(*) FROM utility_ledgerentry") == 0
    assert killed.scalar("SELECT state FROM utility_billrun") == "preparing"
    again = killed.helper("run")  # the same command again (what a restarted worker does)
    assert again["state"] == "issued" and again["bills"] == N
    assert killed.helper("snapshot") == expected
    assert killed.helper("run")["bills"] == 0  # and again: nothing changes
    assert killed.helper("snapshot") == expected


def test_a_worker_killed_mid_proof_is_taken_back_and_ends_with_exactly_one_correct_run(dbs):
    """Issue 15 with the jobs framework: the proof is a background job; its worker is killed (SIGKILL) mid-run;
    the next worker takes the job back (its process is gone) and resumes it; approved, the run equals one never
    interrupted."""
    killed, clean = dbs
    killed.helper("seed", str(N))
    clean.seed_as(killed)
    run_id = clean.helper("enqueue")["run_id"]
    clean.worker()
    assert clean.scalar("SELECT state FROM utility_billrun") == "proof"
    assert clean.helper("approve", str(run_id))["state"] == "issued"
    expected = clean.helper("snapshot")
    assert expected["runs"] == ["issued"] and len(expected["bills"]) == N and expected["charges"] == 4 * N

    queued = killed.helper("enqueue")
    assert queued["state"] == "preparing"
    proc = subprocess.Popen([sys.executable, str(HERE / "billrun_live.py"), "worker"], env=killed.env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    _wait_for("5 slices recorded", lambda: killed.scalar("SELECT COUNT(*) FROM utility_billrunchunk") >= 5, proc)
    hold = killed.connect()
    try:
        if killed.url:
            hold.execute("SELECT id FROM utility_billrun FOR UPDATE")
        else:
            hold.execute("BEGIN IMMEDIATE")
        assert hold.execute("SELECT state FROM jobs_job").fetchone()[0] == "running"
        assert 5 <= hold.execute("SELECT COUNT(*) FROM utility_billrunchunk").fetchone()[0] < N // 2
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    finally:
        hold.rollback() if killed.url else hold.execute("ROLLBACK")
        hold.close()

    # Killed: the job "running" on a dead process, the run half-prepared, nothing of it visible.
    assert killed.rows("SELECT state, attempts FROM jobs_job") == [("running", 1)]
    assert killed.scalar("SELECT state FROM utility_billrun") == "preparing"
    assert killed.scalar("SELECT COUNT(*) FROM utility_ledgerentry") == 0
    killed.worker()  # restarted: recovery takes the job back and runs it again, resuming after the slices done
    assert killed.rows("SELECT state, attempts FROM jobs_job") == [("succeeded", 2)]
    assert killed.rows("SELECT id, state FROM utility_billrun") == [(queued["run_id"], "proof")]
    assert killed.helper("approve", str(queued["run_id"]))["state"] == "issued"
    assert killed.helper("snapshot") == expected
