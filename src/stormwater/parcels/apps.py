from django.apps import AppConfig


class ParcelsConfig(AppConfig):
    name = "stormwater.parcels"
    label = "parcels"
