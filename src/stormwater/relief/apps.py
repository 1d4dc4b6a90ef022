from django.apps import AppConfig


class ReliefConfig(AppConfig):
    name = "stormwater.relief"
    label = "relief"
    verbose_name = "Credits, abatements and appeals (Ch. 295 Art. IV)"

    def ready(self):
        from stormwater.utility import credits

        from . import workflow  # noqa: F401  registers the credit, abatement, appeal and §16E state machines
        from .selectors import credit_percent_by_parcel

        # The fee path (utility) reads the credits in force through the registry it owns: the utility sits below.
        credits.register(credit_percent_by_parcel)
