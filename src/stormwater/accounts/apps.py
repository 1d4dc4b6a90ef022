from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _first_run_note(sender, using="default", verbosity=1, stdout=None, **kwargs):
    """After `stormwater migrate`: a database without an active Director says how to create one (issue 14)."""
    if verbosity < 1:
        return
    from django.db import DatabaseError

    from .models import User
    from .roles import Role
    from .selectors import FIRST_RUN

    try:
        missing = not User.objects.using(using).filter(role=Role.DIRECTOR, is_active=True).exists()
    except DatabaseError:  # a partial migrate (--plan, one app) may leave the table absent
        return
    if missing:
        import sys

        (stdout or sys.stdout).write("\n" + FIRST_RUN + "\n")


class AccountsConfig(AppConfig):
    name = "stormwater.accounts"
    label = "accounts"

    def ready(self):
        post_migrate.connect(_first_run_note, sender=self, dispatch_uid="stormwater.accounts.first_run")
