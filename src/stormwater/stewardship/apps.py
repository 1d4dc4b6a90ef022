from django.apps import AppConfig


class StewardshipConfig(AppConfig):
    name = "stormwater.stewardship"
    label = "stewardship"
    verbose_name = "Stewardship: O&M plans, easements, BMP inventory, annual certifications (Ch. 380 § 380-14)"

    def ready(self):
        from . import workflow  # noqa: F401  registers the stewardship and maintenance state machines
