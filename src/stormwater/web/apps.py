from django.apps import AppConfig


class WebConfig(AppConfig):
    name = "stormwater.web"
    label = "web"
