"""Running it for years (issue 28): /readyz says what a monitor must know and names what failed; with the database
down the ``stormwater`` command says one line (it printed a 75–87-line traceback) and /readyz answers 503 naming
the database (it answered 200); the worker waits for the database instead of exiting."""
from __future__ import annotations

import json
import socket
import subprocess
import sys
from datetime import datetime, timedelta, timezone

import pytest
from django.db.utils import OperationalError
from django.utils import timezone as djtz

from stormwater.ops.dbwait import run_waiting_for_database
from stormwater.ops.heartbeat import beat

from .conftest import clean_env


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


READYZ_SCRIPT = """
import json, os, django
os.environ["DJANGO_SETTINGS_MODULE"] = "stormwater.settings"
django.setup()
from django.test import Client
r = Client().get("/readyz")
print(json.dumps({"status": r.status_code, **r.json()}))
"""


def test_with_the_database_down_the_command_says_one_line_and_readyz_names_it(tmp_path):
    env = clean_env(tmp_path / "data", DATABASE_URL=f"postgres://app:pw@127.0.0.1:{_closed_port()}/stormwater")
    runs = {" ".join(c): subprocess.Popen([sys.executable, "-m", "stormwater", *c], cwd=tmp_path, env=env, text=True,
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            for c in (["user", "list"], ["daily"], ["backup", str(tmp_path / "b.tar.gz")])}
    ready = subprocess.Popen([sys.executable, "-c", READYZ_SCRIPT], cwd=tmp_path, env=env, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    for what, p in runs.items():
        out, err = p.communicate(timeout=120)
        assert p.returncode == 3, (what, out, err)
        assert err.count("\n") == 1 and "Traceback" not in err, (what, err)
        assert err.startswith("stormwater: the database is unreachable (PostgreSQL stormwater on 127.0.0.1:"), err
        assert "pw" not in err
    out, err = ready.communicate(timeout=120)
    answer = json.loads(out.strip().splitlines()[-1])
    assert answer["status"] == 503 and answer["ok"] is False, answer
    assert answer["failing"][0] == "database" and answer["checks"]["database"]["ok"] is False
    assert not (tmp_path / "b.tar.gz").exists()


@pytest.mark.django_db
def test_readyz_is_200_when_everything_is_fresh_and_503_naming_each_stale_part(client, settings, tmp_path):
    from stormwater.jobs.models import Job, JobState

    settings.DATA_DIR = tmp_path
    answer = client.get("/readyz")
    assert answer.status_code == 503
    assert answer.json()["failing"] == ["worker", "backup", "daily"]  # never ran; database and migrations fine
    assert answer.json()["checks"]["migrations"] == {"ok": True, "pending": 0}

    now = datetime.now(timezone.utc)
    beat("worker", worker="host:1")
    beat("backup", archive="x.tar.gz")
    Job.objects.create(kind="daily", title="Daily", state=JobState.SUCCEEDED, finished_at=djtz.now())
    answer = client.get("/readyz")
    assert answer.status_code == 200, answer.json()
    assert answer.json()["ok"] is True and answer.json()["failing"] == []
    assert "x.tar.gz" not in answer.content.decode()  # states and ages, no paths

    beat("worker", now=now - timedelta(seconds=settings.READYZ_WORKER_SECONDS + 5))
    beat("backup", now=now - timedelta(hours=settings.READYZ_BACKUP_HOURS, minutes=1))
    answer = client.get("/readyz")
    assert answer.status_code == 503 and answer.json()["failing"] == ["worker", "backup"]
    assert "over the" in answer.json()["checks"]["backup"]["error"]
    settings.READYZ_BACKUP_HOURS = 0  # a town that backs up by other means turns the check off
    assert client.get("/readyz").json()["failing"] == ["worker"]
    assert client.get("/healthz").json()["ok"] is True


def test_the_worker_waits_for_the_database_and_carries_on():
    calls, waited, said, states = [], [], [], []
    answers = iter([False, False, False, True])  # the first check right after the failure, then while waiting

    def run():
        calls.append(1)
        if len(calls) == 1:
            raise OperationalError("connection to server at 127.0.0.1 failed: Connection refused")
        return "ran"

    got = run_waiting_for_database(run, ok=lambda: next(answers), wait=waited.append, say=said.append,
                                   waits=(1, 2), on_waiting=states.append)
    assert got == "ran" and len(calls) == 2
    assert waited == [1, 2, 2]  # the last wait repeats
    assert states == [True, False]
    assert "unreachable" in said[0] and "answers again (after 3 tries)" in said[1]


def test_the_worker_does_not_wait_out_errors_that_are_not_the_database_going_away():
    def broken():
        raise OperationalError("no such table: jobs_job")

    with pytest.raises(OperationalError):  # the database answers: a real error, raised at once
        run_waiting_for_database(broken, ok=lambda: True, wait=lambda s: pytest.fail("waited"), say=lambda s: None)
    with pytest.raises(ValueError):
        run_waiting_for_database(lambda: int("x"), ok=lambda: False, wait=lambda s: pytest.fail("waited"),
                                 say=lambda s: None)


def test_alert_mails_the_admins_and_refuses_when_there_are_none(settings, monkeypatch, capsys):
    import io

    from django.core import mail
    from django.core.management import CommandError, call_command

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.ADMINS = [("Town IT", "it@longmeadow.example")]
    monkeypatch.setattr(sys, "stdin", io.StringIO("pg_dump: error: connection refused\n"))
    call_command("alert", "stormwater-backup.service failed")
    assert mail.outbox[-1].to == ["it@longmeadow.example"]
    assert mail.outbox[-1].subject.endswith("stormwater-backup.service failed")
    assert "connection refused" in mail.outbox[-1].body
    settings.ADMINS = []
    with pytest.raises(CommandError, match="ADMINS is not set"):
        call_command("alert", "x failed")
