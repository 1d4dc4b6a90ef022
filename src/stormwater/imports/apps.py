from django.apps import AppConfig


class ImportsConfig(AppConfig):
    name = "stormwater.imports"
    label = "imports"
    verbose_name = "Imports (the one pipeline every importer uses; issue 20)"
