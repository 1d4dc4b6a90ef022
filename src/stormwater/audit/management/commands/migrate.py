"""``stormwater migrate``: Django's migrate, run as the database owner when one is configured.

On PostgreSQL the web app and the worker connect as a runtime role that owns no table (DATABASE_URL), so that it
cannot ALTER, DISABLE or DROP the append-only triggers, or TRUNCATE (issue 14). Migrations need the owner: with
MIGRATE_DATABASE_URL set (only where migrations are run), this command runs the whole migrate — schema changes,
data migrations, post-migrate steps, the append-only triggers — on the default connection switched to that owner,
then grants the runtime role of DATABASE_URL exactly what running needs (``appendonly.grant_runtime_role``).
Without it, it is Django's migrate on DATABASE_URL.

In production (STORMWATER_ENV=production) a plan that would unapply a migration of an app holding an append-only
table (the audit log, the ledger, the case timelines …) is refused before anything runs, like ``flush``
(issue 27: ``stormwater migrate audit zero`` dropped ``audit_auditevent``): reversing such a migration drops or
rebuilds a table whose rows are never to be changed. The check reads Django's own plan (the ``pre_migrate``
signal carries it), so a reversal that reaches such an app through dependencies (``migrate accounts zero``) is
refused too. docs/security.md.
"""
from django.conf import settings
from django.core.management.base import CommandError
from django.core.management.commands.migrate import Command as DjangoMigrate
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections
from django.db.models.signals import pre_migrate

CONNECTION_KEYS = ("NAME", "USER", "PASSWORD", "HOST", "PORT", "OPTIONS")
ERR_REVERSE_PRODUCTION = ("reversing a migration of {apps} is refused in production (STORMWATER_ENV=production): "
                          "it would drop or rebuild append-only tables (the audit log, the ledger …), whose rows "
                          "are never changed or removed. Restore a backup into a new database instead.")


def append_only_apps() -> set[str]:
    """The apps holding at least one append-only table (``AppendOnlyModel``)."""
    from stormwater.appendonly import append_only_models

    return {m._meta.app_label for m in append_only_models().values()}


def refuse_reversal_in_production(sender=None, plan=None, **kwargs) -> None:
    """``pre_migrate`` receiver: runs once Django has its plan and before any of it is applied."""
    if not getattr(settings, "PRODUCTION", False) or not plan:
        return
    reached = sorted({m.app_label for m, backwards in plan if backwards} & append_only_apps())
    if reached:
        raise CommandError(ERR_REVERSE_PRODUCTION.format(apps=", ".join(reached)))


class Command(DjangoMigrate):
    help = DjangoMigrate.help + " With MIGRATE_DATABASE_URL (PostgreSQL), as that owner role; then grants the " \
                                "runtime role of DATABASE_URL what running needs (docs/security.md)."

    def handle(self, *args, **options):
        pre_migrate.connect(refuse_reversal_in_production, dispatch_uid="stormwater-refuse-reversal")
        try:
            return self._handle(*args, **options)
        finally:
            pre_migrate.disconnect(dispatch_uid="stormwater-refuse-reversal")

    def _handle(self, *args, **options):
        owner = getattr(settings, "MIGRATE_DATABASE", None)
        if not owner or options["database"] != DEFAULT_DB_ALIAS:
            return super().handle(*args, **options)
        conn = connections[DEFAULT_DB_ALIAS]
        if conn.vendor != "postgresql" or owner["ENGINE"] != conn.settings_dict["ENGINE"]:
            raise CommandError("MIGRATE_DATABASE_URL is for PostgreSQL, with DATABASE_URL on the same server.")
        runtime = dict(conn.settings_dict)
        conn.close()
        conn.settings_dict.update({k: owner[k] for k in CONNECTION_KEYS if k in owner})
        try:
            super().handle(*args, **options)
            self._grant_runtime_role(conn, runtime.get("USER"), options["verbosity"])
        finally:
            conn.close()
            conn.settings_dict.update({k: runtime[k] for k in CONNECTION_KEYS if k in runtime})

    def _grant_runtime_role(self, owner_conn, runtime: str | None, verbosity: int):
        from stormwater.appendonly import grant_runtime_role

        if not runtime or runtime == owner_conn.settings_dict.get("USER"):
            return
        try:
            grant_runtime_role(owner_conn, runtime)
        except DatabaseError as e:
            raise CommandError(f"Could not grant the runtime role {runtime!r} its privileges ({e}). Create it first: "
                               f"CREATE ROLE {runtime} LOGIN PASSWORD '...'; (docs/security.md)") from None
        if verbosity >= 1:
            self.stdout.write(f"Runtime role {runtime!r}: SELECT/INSERT on append-only tables, "
                              "SELECT/INSERT/UPDATE/DELETE on the others; owns nothing.")
