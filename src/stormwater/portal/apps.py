from django.apps import AppConfig


class PortalConfig(AppConfig):
    name = "stormwater.portal"
    label = "portal"
    verbose_name = "Public portal (owners and applicants)"
