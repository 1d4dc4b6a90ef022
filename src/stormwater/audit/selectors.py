from __future__ import annotations

from django.db import models

from .models import AuditEvent


def audit_for_object(obj: models.Model):
    return AuditEvent.objects.filter(object_type=obj._meta.label_lower, object_id=str(obj.pk)).select_related("actor")
