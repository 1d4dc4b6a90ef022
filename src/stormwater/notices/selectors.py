from pathlib import Path

from django.conf import settings
from django.db.models import QuerySet

from .models import NoticeSent


def attachment_path(sha256: str) -> Path:
    """Where an attachment is kept (by content: the same PDF is stored once). Written by ``services``, read by
    ``outbox`` when it sends."""
    return Path(settings.MEDIA_ROOT) / "outbox" / sha256[:2] / sha256


def notices_for_case(case) -> QuerySet[NoticeSent]:
    return NoticeSent.objects.filter(case=case)
