from django.apps import AppConfig


class GoliveConfig(AppConfig):
    name = "stormwater.golive"
    label = "golive"
    verbose_name = "Go-live: the open books and cases brought in from the old systems (issue 32)"
