from django.apps import AppConfig


class CashierConfig(AppConfig):
    name = "stormwater.cashier"
    label = "cashier"
    verbose_name = "The Collector's office"
