"""Sending from the outbox, each message in short transactions of its own (models.py explains the states).

``outbox_send`` claims one message (queued/failed → sending, in its own transaction), hands it to the mail
backend outside any transaction, then records sent / failed / unknown in another. Claiming is one UPDATE …
WHERE status IN (queued, failed): two processes can never both send the same message.
"""
from __future__ import annotations

import logging
import smtplib
import socket
from datetime import timedelta

from django.core.mail import EmailMessage
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from stormwater.jobs.workers import worker_lost, worker_name

from .models import NoticeSent, NoticeStatus
from .selectors import attachment_path

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 3
# Errors after which the mail server certainly did not take the message: safe to try again.
NEVER_ACCEPTED = (smtplib.SMTPConnectError, smtplib.SMTPHeloError, smtplib.SMTPAuthenticationError,
                  smtplib.SMTPSenderRefused, smtplib.SMTPRecipientsRefused, smtplib.SMTPDataError,
                  smtplib.SMTPNotSupportedError, ConnectionRefusedError, socket.gaierror)
ERR_LOST = ("The process sending this notice stopped (killed or crashed) before the mail server's answer was "
            "recorded: it may or may not have gone out. Look for its Message-ID in the mail server's log, then "
            "mark it sent or send it again.")


def _message(n: NoticeSent) -> EmailMessage:
    msg = EmailMessage(subject=n.subject, body=n.body, from_email=n.from_email or None,
                       to=[a.strip() for a in n.to.split(",") if a.strip()],
                       headers={"Message-ID": n.message_id} if n.message_id else None)
    if n.attachment_sha256:
        msg.attach(n.attachment_name, attachment_path(n.attachment_sha256).read_bytes(), n.attachment_mimetype)
    return msg


def outbox_send(*, notice_id: int, worker: str | None = None) -> str:
    """Send one queued (or failed, not yet MAX_ATTEMPTS times) notice; returns its status afterwards."""
    worker = worker or worker_name()
    with transaction.atomic():
        claimed = NoticeSent.objects.filter(pk=notice_id, status__in=[NoticeStatus.QUEUED, NoticeStatus.FAILED],
                                            attempts__lt=MAX_ATTEMPTS).update(
            status=NoticeStatus.SENDING, claimed_by=worker, sending_at=timezone.now(), attempts=F("attempts") + 1)
    n = NoticeSent.objects.get(pk=notice_id)
    if not claimed:
        return n.status
    mine = NoticeSent.objects.filter(pk=notice_id, status=NoticeStatus.SENDING, claimed_by=worker)
    try:
        _message(n).send(fail_silently=False)
    except Exception as e:  # noqa: BLE001 — recorded on the notice; staff see it
        log.exception("notice %s to %s not sent", n.pk, n.to)
        status = NoticeStatus.FAILED if isinstance(e, NEVER_ACCEPTED + (FileNotFoundError,)) else NoticeStatus.UNKNOWN
        with transaction.atomic():
            mine.update(status=status, error=f"{type(e).__name__}: {e}"[:2000])
        return status
    with transaction.atomic():
        mine.update(status=NoticeStatus.SENT, sent_at=timezone.now(), error="")
    return NoticeStatus.SENT


def outbox_recover(*, starting: bool = False) -> list[NoticeSent]:
    """Notices left ``sending`` by a process that is gone → ``unknown`` (never re-sent without a person).
    ``starting``: called by a worker before it sends anything (nothing is being sent under its own name)."""
    me = worker_name() if starting else None
    out = []
    for n in NoticeSent.objects.filter(status=NoticeStatus.SENDING):
        if worker_lost(n.claimed_by, n.sending_at, me=me):
            with transaction.atomic():
                if NoticeSent.objects.filter(pk=n.pk, status=NoticeStatus.SENDING, claimed_by=n.claimed_by).update(
                        status=NoticeStatus.UNKNOWN, error=ERR_LOST):
                    out.append(n)
    return out


def outbox_send_pending(*, older_than: timedelta = timedelta(minutes=10), progress=None) -> dict:
    """The sweep: send notices left queued by a process that died after its commit, and retry the failed ones
    (fewer than MAX_ATTEMPTS tries). Recent queued ones are left to the process that queued them."""
    outbox_recover()
    cutoff = timezone.now() - older_than
    ids = list(NoticeSent.objects.filter(status=NoticeStatus.QUEUED, queued_at__lt=cutoff).values_list("pk", flat=True))
    ids += list(NoticeSent.objects.filter(status=NoticeStatus.FAILED, attempts__lt=MAX_ATTEMPTS)
                .values_list("pk", flat=True))
    counts: dict[str, int] = {}
    for i, pk in enumerate(ids, 1):
        status = outbox_send(notice_id=pk)
        counts[status] = counts.get(status, 0) + 1
        if progress:
            progress(i, len(ids))
    return {"tried": len(ids), **counts}
