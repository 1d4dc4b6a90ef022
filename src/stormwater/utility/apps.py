from django.apps import AppConfig


class UtilityConfig(AppConfig):
    name = "stormwater.utility"
    label = "utility"
