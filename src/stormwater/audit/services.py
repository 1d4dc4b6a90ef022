from __future__ import annotations

from typing import Any

from django.db import models

from .models import AuditEvent


def actor_or_none(user):
    """The signed-in user who acts, or None for the system (scripts, scheduled jobs, AnonymousUser)."""
    return user if getattr(user, "is_authenticated", False) else None


def audit_record(*, actor, action: str, obj: models.Model | None = None, object_type: str = "",
                 object_id: str = "", why: str = "", data: dict[str, Any] | None = None) -> AuditEvent:
    """Append one audit row. Call inside the service's transaction so both commit or neither."""
    if obj is not None:
        object_type = object_type or obj._meta.label_lower
        object_id = object_id or str(obj.pk)
    return AuditEvent.objects.create(
        actor=actor_or_none(actor),
        action=action, object_type=object_type, object_id=str(object_id), why=why or "", data=data or {},
    )


def audit_record_many(*, actor, action: str, items: list[tuple[models.Model, dict[str, Any]]], why: str = "") -> int:
    """Append one audit row per (object, data) in one insert: a set-based service (a lockbox file's
    payments) records each act as ``audit_record`` would. Call inside the service's transaction."""
    who = actor_or_none(actor)
    rows = [AuditEvent(actor=who, action=action, object_type=obj._meta.label_lower, object_id=str(obj.pk),
                       why=why or "", data=data or {}) for obj, data in items]
    AuditEvent.objects.bulk_create(rows, batch_size=2000)
    return len(rows)
