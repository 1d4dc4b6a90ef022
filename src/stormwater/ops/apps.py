from django.apps import AppConfig


class OpsConfig(AppConfig):
    name = "stormwater.ops"
    label = "ops"
    verbose_name = "Operations (serve, backup, restore)"
