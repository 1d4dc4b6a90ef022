from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "stormwater.accounts"
    label = "accounts"
