from django.apps import AppConfig


class GisConfig(AppConfig):
    name = "stormwater.gis"
    label = "gis"
    verbose_name = "GIS: impervious surveys, ERU, change reports, maps"
