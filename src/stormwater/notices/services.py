"""notice_email: the one way a notice is emailed, through the outbox (models.py explains the states).

Call it inside the service's transaction: the record (with the message and its attachment stored) is written
with the state change, and the email goes out only after commit (transaction.on_commit → outbox.outbox_send),
so a rolled-back decision never emails anyone; a mail outage never undoes a recorded decision. A process
that dies after the commit leaves the notice ``queued``: the daily sweep sends it (outbox_send_pending).

``notice_record`` is the same without the send: bulk senders (the bills of a run, a job) record first, then
send each in its own short transaction. ``key`` makes a notice idempotent: one row per key, ever.
"""
from __future__ import annotations

import hashlib
import os
import uuid
from email.utils import parseaddr

from django.conf import settings
from django.db import IntegrityError, models, transaction

from stormwater.audit.services import audit_record

from .models import NoticeSent, NoticeStatus
from .selectors import attachment_path

ERR_NOT_UNKNOWN = "Only a notice whose sending is unknown can be resolved; this one is {status}."


def _store_attachment(content: bytes) -> str:
    sha = hashlib.sha256(content).hexdigest()
    path = attachment_path(sha)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{sha}.{os.getpid()}.part")
        tmp.write_bytes(content)
        os.replace(tmp, path)  # never half a file under the final name
    return sha


def _message_id() -> str:
    """``<random.notice@DOMAIN>`` (RFC 5322 §3.6.4), DOMAIN the sender's: DEFAULT_FROM_EMAIL may be a bare address or
    ``Name <address>`` (docs/deploy.md's example), so the address is parsed out of it first (issue 28: the raw
    text's part after ``@`` kept the closing ``>``, giving ``…@longmeadow.example>>``)."""
    address = parseaddr(settings.DEFAULT_FROM_EMAIL)[1]
    domain = address.rpartition("@")[2].strip() if "@" in address else ""
    domain = domain if domain and all(c.isalnum() or c in ".-" for c in domain) else "localhost"
    return f"<{uuid.uuid4().hex}.notice@{domain}>"


def notice_record(*, to: list[str] | str, subject: str, body: str, kind: str, case=None,
                  obj: models.Model | None = None, attachment: tuple[str, bytes, str] | None = None,
                  key: str | None = None) -> NoticeSent | None:
    """Record one email in the outbox (queued), not sending it. None when there is no address, or when a
    notice with ``key`` exists already (it is never queued twice)."""
    addresses = [a.strip() for a in ([to] if isinstance(to, str) else to) if a and a.strip()]
    if not addresses:
        return None
    name, content, mimetype = attachment if attachment else ("", b"", "")
    sha = _store_attachment(content) if attachment else ""
    fields = dict(case=case, kind=kind, key=key, to=", ".join(addresses)[:500], subject=subject[:300], body=body,
                  from_email=settings.DEFAULT_FROM_EMAIL, message_id=_message_id(), attachment_name=name[:255],
                  attachment_sha256=sha, attachment_mimetype=mimetype,
                  object_type=obj._meta.label_lower if obj is not None else "",
                  object_id=str(obj.pk) if obj is not None else "")
    if key is None:
        return NoticeSent.objects.create(**fields)
    try:
        with transaction.atomic():
            return NoticeSent.objects.create(**fields)
    except IntegrityError:
        return None  # recorded already (by an earlier run)


def notice_email(*, to: list[str] | str, subject: str, body: str, kind: str, case=None,
                 obj: models.Model | None = None, attachment: tuple[str, bytes, str] | None = None,
                 key: str | None = None) -> NoticeSent | None:
    """Queue one email (with an optional (filename, content, mimetype) attachment), sent after commit; None when
    no address (or the key was queued before)."""
    rec = notice_record(to=to, subject=subject, body=body, kind=kind, case=case, obj=obj, attachment=attachment,
                        key=key)
    if rec is not None:
        from .outbox import outbox_send

        transaction.on_commit(lambda: outbox_send(notice_id=rec.pk))
    return rec


@transaction.atomic
def notice_resolve(*, notice: NoticeSent, was_sent: bool, acting_user, why: str = "") -> NoticeSent:
    """Staff settle a notice whose sending is unknown: it was sent (found in the mail server's log by its
    Message-ID), or it was not and goes back to the queue to be sent."""
    n = NoticeSent.objects.select_for_update().get(pk=notice.pk)
    if n.status != NoticeStatus.UNKNOWN:
        raise ValueError(ERR_NOT_UNKNOWN.format(status=n.get_status_display().lower()))
    n.status = NoticeStatus.SENT if was_sent else NoticeStatus.QUEUED
    n.save(update_fields=["status"])
    audit_record(actor=acting_user, action="notice.resolve", obj=n, why=why,
                 data={"was_sent": was_sent, "message_id": n.message_id})
    return n
