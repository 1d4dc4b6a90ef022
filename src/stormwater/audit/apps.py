from django.apps import AppConfig


class AuditConfig(AppConfig):
    name = "stormwater.audit"
    label = "audit"
