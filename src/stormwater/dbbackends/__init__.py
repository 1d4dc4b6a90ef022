"""Database backends whose ``flush`` (a reset of the whole database: the test suite, a developer) lifts the
append-only guards for the reset only and puts them back, and is refused in production (issue 14: ``stormwater
flush`` with STORMWATER_ENV=production emptied the ledger and the audit log). ``settings.DATABASES`` names them:
``stormwater.dbbackends.sqlite3`` and ``stormwater.dbbackends.postgresql``."""
from __future__ import annotations

ERR_FLUSH_PRODUCTION = ("flush is refused in production (STORMWATER_ENV=production): it would empty every table, "
                        "the ledger and the audit log with them. Restore a backup into a new database instead.")


def refuse_flush_in_production() -> None:
    from django.conf import settings
    from django.core.management.base import CommandError

    if getattr(settings, "PRODUCTION", False):
        raise CommandError(ERR_FLUSH_PRODUCTION)
