from django.apps import AppConfig


class CasesConfig(AppConfig):
    name = "stormwater.cases"
    label = "cases"
    verbose_name = "Cases (permits, credits, abatements, appeals)"
