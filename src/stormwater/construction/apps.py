from django.apps import AppConfig


class ConstructionConfig(AppConfig):
    name = "stormwater.construction"
    label = "construction"
    verbose_name = "Construction oversight to the certificate of completion (Ch. 380 § 380-15 – § 380-19)"

    def ready(self):
        from . import workflow  # noqa: F401  registers the construction state machine
