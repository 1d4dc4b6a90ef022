"""The daily sweep as a job: once a day; the outbox's stranded notices sent, reminders and clock lists logged."""
from __future__ import annotations

import io
import json
from datetime import timedelta

import pytest
from django.core import mail
from django.core.management import call_command
from django.utils import timezone

from stormwater.jobs.models import Job
from stormwater.notices.models import NoticeSent

pytestmark = pytest.mark.django_db


def _daily(*args) -> dict:
    out = io.StringIO()
    call_command("daily", *args, stdout=out)
    return json.loads(out.getvalue())


def test_the_daily_sweep_sends_what_a_dead_process_left_queued_once_a_day(db):
    from stormwater.notices.services import notice_record

    stranded = notice_record(to="a@example.org", subject="Decision", body="b", kind="decision", key="decision:1")
    NoticeSent.objects.filter(pk=stranded.pk).update(queued_at=timezone.now() - timedelta(hours=1))
    fresh = notice_record(to="b@example.org", subject="Fresh", body="b", kind="decision")  # its process may still send it
    result = _daily("--day", "2027-03-01")
    assert result["outbox"] == {"tried": 1, "sent": 1} and [m.subject for m in mail.outbox] == ["Decision"]
    assert (result["certification_reminders"], result["permit_clocks_overdue"], result["relief_deadlines_missed"]) \
        == (0, 0, 0)
    job = Job.objects.get(pk=result["job"])
    assert job.state == "succeeded" and (job.done, job.total) == (7, 7) and job.title == "Daily sweep 2027-03-01"
    assert "ran already" in _daily("--day", "2027-03-01")["skipped"]
    assert _daily("--day", "2027-03-01", "--force")["outbox"] == {"tried": 0}
    assert len(mail.outbox) == 1 and NoticeSent.objects.get(pk=fresh.pk).status == "queued"


def test_the_daily_sweep_lists_overdue_permit_clocks_in_its_log(db):
    from unittest import mock

    clocks = {"as_of": "2027-03-01", "clocks": [{"case": "SW-2027-001", "label": "Action on the application",
                                                  "citation": "§ 380-10 I", "due": "2027-02-26"}]}
    real = call_command

    def fake(name, *args, **kw):
        if name == "permit_clocks":
            kw["stdout"].write(json.dumps(clocks))
            return None
        return real(name, *args, **kw)

    with mock.patch("stormwater.jobs.kinds.daily.call_command", fake):
        result = _daily("--day", "2027-03-01")
    assert result["permit_clocks_overdue"] == 1
    lines = list(Job.objects.get(pk=result["job"]).log_lines.values_list("line", flat=True))
    assert "Permit clock past due: SW-2027-001 Action on the application (§ 380-10 I) due 2027-02-26" in lines


def test_a_bad_day_is_refused_by_name():
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="^day: 'tomorrow'"):
        call_command("daily", "--day", "tomorrow")


def test_the_daily_sweep_purges_old_double_submission_tokens(db, town_toml):
    """Issue 16: the guard's one-time tokens (web/once.py) were never deleted. The sweep keeps the town's
    submit_token_keep_days of them (TownConfig) and purges the older ones, once."""
    from stormwater.audit.models import AuditEvent
    from stormwater.web.models import SubmitToken

    town_toml(submit_token_keep_days=7)
    now = timezone.now()
    for token, age in (("old", 30), ("edge", 8), ("week", 6), ("fresh", 0)):
        row = SubmitToken.objects.create(token=token, path="/x/")
        SubmitToken.objects.filter(pk=row.pk).update(created_at=now - timedelta(days=age))
    result = _daily("--day", timezone.localdate().isoformat())
    assert result["submit_tokens_purged"] == 2
    assert sorted(SubmitToken.objects.values_list("token", flat=True)) == ["fresh", "week"]
    assert AuditEvent.objects.get(action="submit_tokens.purge").data["deleted"] == 2
    assert _daily("--day", timezone.localdate().isoformat(), "--force")["submit_tokens_purged"] == 0
    assert "Double-submission tokens purged: 0." in Job.objects.latest("pk").log_lines.values_list("line", flat=True)
