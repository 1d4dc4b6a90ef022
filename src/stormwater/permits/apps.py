from django.apps import AppConfig


class PermitsConfig(AppConfig):
    name = "stormwater.permits"
    label = "permits"
    verbose_name = "Stormwater management and land disturbance permits (Ch. 380)"

    def ready(self):
        from . import workflow  # noqa: F401  registers the permit and waiver state machines
