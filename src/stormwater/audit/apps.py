from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _ensure_append_only(sender, using="default", **kwargs):
    from django.db import connections

    from stormwater.appendonly import ensure_append_only

    ensure_append_only(connections[using])


class AuditConfig(AppConfig):
    name = "stormwater.audit"
    label = "audit"

    def ready(self):
        # Once per migrate run (sender = this app), after every app's migrations.
        post_migrate.connect(_ensure_append_only, sender=self, dispatch_uid="stormwater.ensure_append_only")
