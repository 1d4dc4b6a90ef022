"""Crash safety of jobs (issue 15), with real processes: a worker killed with SIGKILL mid-job leaves nothing
half-visible; restarted, it finishes the job to the same result; e-mails go out exactly once across the crash
and a re-run; a payment is posted while a job runs. On SQLite and (under bin/pg-temp) PostgreSQL.

Each kill happens at a point the test waits for by condition (a file the mail backend writes when it has
accepted the n-th message, or a progress value in the database), never after a sleep."""
from __future__ import annotations

import re
import signal
from collections import Counter

import pytest

from .live import Live

pytestmark = [pytest.mark.database, pytest.mark.slow]  # its child processes use the run's database (DATABASE_URL)

N = 8  # bills, each with an owner's e-mail address


@pytest.fixture
def live(tmp_path, request):
    lv = Live(tmp_path)
    try:
        if lv.pg_admin:  # its own new database on the run's PostgreSQL server
            r = lv.run("migrate", "--no-input", "-v0")
            assert r.returncode == 0, r.stderr
        else:  # a copy of the run's migrated SQLite database (tests/conftest.py::migrated_sqlite): no migrate each
            request.getfixturevalue("migrated_sqlite")(tmp_path / "data")
        lv.run_id = lv.script("main", str(N))["run"]
        yield lv
    finally:
        lv.close()


def _bill_subjects(lv: Live) -> Counter:
    return Counter(m for text in lv.mail_files() for m in re.findall(r"^Subject: (Stormwater bill \S+)", text, re.M))


def _notices(lv: Live) -> Counter:
    return Counter(s for (s,) in lv.rows("SELECT status FROM notices_noticesent WHERE kind = 'bill'"))


def _job(lv: Live):
    return lv.rows("SELECT id, state, done, total, attempts, result FROM jobs_job ORDER BY id DESC")[0]


def test_a_worker_killed_while_sending_finishes_on_restart_and_no_email_goes_twice(live):
    r = live.run("bills_email", "--run", str(live.run_id), "--enqueue")
    assert r.returncode == 0, r.stderr
    worker = live.start("worker", BLOCK_AFTER="3")
    live.wait_for("the 3rd e-mail accepted", lambda: (live.tmp / "blocked").exists(), worker)

    # While the job is stuck mid-send, staff work goes on: a payment is posted by another process.
    assert _job(live)[1] == "running"
    account = live.rows("SELECT number FROM utility_account ORDER BY id")[0][0]
    paid = live.script("pay", account, "10.00")
    assert live.rows("SELECT COUNT(*) FROM receivables_payment WHERE id = ?", paid["payment"])[0][0] == 1

    worker.send_signal(signal.SIGKILL)
    worker.wait()
    assert _notices(live)["sending"] == 1  # the 3rd: accepted by the transport, its "sent" never recorded

    r = live.run("worker", "--batch")  # what systemd's restart does
    assert r.returncode == 0, r.stdout + r.stderr
    job_id, state, done, total, attempts, _ = _job(live)
    assert (state, attempts) == ("succeeded", 2)
    # Exactly once: 8 messages delivered in all, no bill twice; the one in flight is "unknown", not re-sent.
    assert sum(_bill_subjects(live).values()) == N and set(_bill_subjects(live).values()) == {1}
    assert _notices(live) == Counter({"sent": N - 1, "unknown": 1})

    # A re-run changes nothing and sends nothing.
    r = live.run("bills_email", "--run", str(live.run_id))
    assert r.returncode == 0, r.stderr
    assert '"queued": 0' in r.stdout and f'"already_sent": {N - 1}' in r.stdout and '"unknown": 1' in r.stdout
    assert sum(_bill_subjects(live).values()) == N


def test_a_worker_killed_while_rendering_leaves_nothing_half_made_and_reruns_to_the_same_result(live):
    r = live.run("bills_email", "--run", str(live.run_id), "--enqueue")
    assert r.returncode == 0, r.stderr
    worker = live.start("worker")
    live.wait_for("3 bills recorded", lambda: live.rows(
        "SELECT COUNT(*) FROM notices_noticesent WHERE kind = 'bill'")[0][0] >= 3, worker)
    worker.send_signal(signal.SIGKILL)
    worker.wait()
    # Every notice recorded so far has its whole PDF stored (file first, then the row, in one short transaction).
    media = live.tmp / "data" / "media" / "outbox"
    for (sha,) in live.rows("SELECT attachment_sha256 FROM notices_noticesent WHERE kind = 'bill'"):
        assert (media / sha[:2] / sha).read_bytes().rstrip().endswith(b"%%EOF")

    r = live.run("worker", "--batch")
    assert r.returncode == 0, r.stdout + r.stderr
    assert _job(live)[1] == "succeeded"
    notices = _notices(live)
    assert notices["sent"] + notices["unknown"] == N and notices["unknown"] <= 1
    assert set(_bill_subjects(live).values()) == {1}  # none twice
    assert live.rows("SELECT COUNT(DISTINCT key) FROM notices_noticesent WHERE kind = 'bill'")[0][0] == N
