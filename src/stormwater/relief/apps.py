from django.apps import AppConfig


class ReliefConfig(AppConfig):
    name = "stormwater.relief"
    label = "relief"
    verbose_name = "Credits, abatements and appeals (Ch. 295 Art. IV)"

    def ready(self):
        from . import workflow  # noqa: F401  registers the credit, abatement, appeal and §16E state machines
