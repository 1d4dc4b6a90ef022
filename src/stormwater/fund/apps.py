from django.apps import AppConfig


class FundConfig(AppConfig):
    name = "stormwater.fund"
    label = "fund"
    verbose_name = "Stormwater Management Account"
