"""notice_email: the one way a notice is emailed, with a NoticeSent record (issue 9).

Call it inside the service's transaction: the record is written with the state change, and the email goes
out only after commit (transaction.on_commit), so a rolled-back decision never emails anyone. The send then
marks the record sent (or failed, with the error: a mail outage must not undo a recorded decision).
"""
from __future__ import annotations

import hashlib
import logging

from django.conf import settings
from django.core.mail import EmailMessage
from django.db import models, transaction
from django.utils import timezone

from .models import NoticeSent, NoticeStatus

log = logging.getLogger(__name__)


def notice_email(*, to: list[str] | str, subject: str, body: str, kind: str, case=None,
                 obj: models.Model | None = None, attachment: tuple[str, bytes, str] | None = None) -> NoticeSent | None:
    """Queue one email (with an optional (filename, content, mimetype) attachment); None when no address."""
    addresses = [a.strip() for a in ([to] if isinstance(to, str) else to) if a and a.strip()]
    if not addresses:
        return None
    name, content, mimetype = attachment if attachment else ("", b"", "")
    rec = NoticeSent.objects.create(
        case=case, kind=kind, to=", ".join(addresses)[:500], subject=subject[:300], attachment_name=name[:255],
        attachment_sha256=hashlib.sha256(content).hexdigest() if attachment else "",
        object_type=obj._meta.label_lower if obj is not None else "", object_id=str(obj.pk) if obj is not None else "")

    def send():
        msg = EmailMessage(subject=subject, body=body, from_email=settings.DEFAULT_FROM_EMAIL, to=addresses)
        if attachment:
            msg.attach(name, content, mimetype)
        try:
            msg.send(fail_silently=False)
        except Exception as e:  # noqa: BLE001 — recorded, and staff see it in the list of failed notices
            log.exception("notice %s to %s failed", rec.pk, rec.to)
            NoticeSent.objects.filter(pk=rec.pk).update(status=NoticeStatus.FAILED, error=str(e)[:2000])
        else:
            NoticeSent.objects.filter(pk=rec.pk).update(status=NoticeStatus.SENT, sent_at=timezone.now())

    transaction.on_commit(send)
    return rec
