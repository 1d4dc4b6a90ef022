from django.apps import AppConfig


class ReceivablesConfig(AppConfig):
    name = "stormwater.receivables"
    label = "receivables"
