from django.apps import AppConfig


class ApiConfig(AppConfig):
    """The JSON API's contract: the OpenAPI document and its reference page, and tokens for other systems."""

    name = "stormwater.api"
    label = "api"
    verbose_name = "JSON API"
