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


def _session_starts_now(sender, request, user, **kwargs):
    """A sign-in starts the idle clock (accounts.middleware): every sign-in, however made — the login page,
    sign-up, or Django's force_login in tests — so the first request after it need not write the session."""
    import time

    from .signin import LAST_SEEN

    if getattr(request, "session", None) is not None:
        request.session[LAST_SEEN] = time.time()


class AccountsConfig(AppConfig):
    name = "stormwater.accounts"
    label = "accounts"

    def ready(self):
        from django.contrib.auth.signals import user_logged_in

        post_migrate.connect(_first_run_note, sender=self, dispatch_uid="stormwater.accounts.first_run")
        user_logged_in.connect(_session_starts_now, dispatch_uid="stormwater.accounts.idle_clock")
