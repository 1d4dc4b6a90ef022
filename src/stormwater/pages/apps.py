from django.apps import AppConfig


class PagesConfig(AppConfig):
    """The pages that gather several apps (docs/architecture.md "Layers"): the home, the town map, a parcel's whole
    record, the menu, ``demo_load``. They sit above every domain app; nothing below imports them."""

    name = "stormwater.pages"
    label = "pages"

    def ready(self):
        # A parcel's page (parcels.views) shows what other apps hold on the parcel: the parcel app owns the
        # registry (parcels.record), the gathering is registered here.
        from . import parcel_record  # noqa: F401
