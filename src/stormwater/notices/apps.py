from django.apps import AppConfig


class NoticesConfig(AppConfig):
    name = "stormwater.notices"
    label = "notices"
    verbose_name = "Notices sent (what was emailed to whom, when)"
