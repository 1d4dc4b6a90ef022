"""The outbox page: staff see the notices whose sending is unknown and settle each after checking the mail
server's log — it went out (recorded sent, nothing sent), or it did not (sent now, once)."""
from __future__ import annotations

import pytest
from django.core import mail

from stormwater.audit.models import AuditEvent
from stormwater.notices.models import NoticeSent, NoticeStatus
from stormwater.notices.services import notice_record

pytestmark = pytest.mark.django_db


def _unknown(subject: str) -> NoticeSent:
    n = notice_record(to="a@example.org", subject=subject, body="b", kind="bill", key=f"t:{subject}")
    NoticeSent.objects.filter(pk=n.pk).update(status=NoticeStatus.UNKNOWN, error="process stopped")
    return n


def test_staff_settle_unknown_notices(client_for, personas):
    went, lost = _unknown("Bill A"), _unknown("Bill B")
    c = client_for(personas["collector"])
    page = c.get("/notices/?status=unknown").content.decode()
    assert "Bill A" in page and went.message_id in page.replace("&lt;", "<").replace("&gt;", ">")
    c.post(f"/notices/{went.pk}/resolve/", {"was_sent": "1"})
    c.post(f"/notices/{lost.pk}/resolve/", {"was_sent": "0"})
    went.refresh_from_db()
    lost.refresh_from_db()
    assert (went.status, lost.status) == ("sent", "sent") and [m.subject for m in mail.outbox] == ["Bill B"]
    assert AuditEvent.objects.filter(action="notice.resolve").count() == 2
    r = c.post(f"/notices/{lost.pk}/resolve/", {"was_sent": "0"}, follow=True)  # settled already: refused, not re-sent
    assert "Only a notice whose sending is unknown" in r.content.decode() and len(mail.outbox) == 1
    assert client_for(personas["inspector"]).get("/notices/").status_code == 403
