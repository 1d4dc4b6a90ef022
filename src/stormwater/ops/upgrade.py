"""``stormwater upgrade``: what an administrator runs after installing a new release (issue 28; docs/deploy.md
"Upgrades", CHANGELOG.md).

1. Compares the installed code's version (stormwater.__version__) with the version the data folder last ran
   (``DATA_DIR/installed-version``, written by this command); an older release than the data's is refused
   (rolling back is restoring the backup made before the upgrade, docs/deploy.md "Rolling back").
2. Backs up with ``stormwater backup`` (ops.backup) into ``--backup-dir`` (default ``$STORMWATER_BACKUP_DIR``,
   else ``DATA_DIR/backups``) — unless the database has no table yet (a new install has nothing to keep).
3. Migrates (``stormwater migrate``: as the owner role where one is configured, docs/security.md).
4. Checks: Django's system checks, and ``stormwater books check`` where the release has it.
5. Records the new version and says what changed: versions from → to, the backup, each migration applied.
"""
from __future__ import annotations

import io
import os
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from django.conf import settings
from django.core.management import call_command, get_commands
from django.core.management.base import CommandError
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.executor import MigrationExecutor

from stormwater import __version__

VERSION_FILE = "installed-version"


class UpgradeError(Exception):
    """The upgrade stopped; the message says where and what to do."""


@dataclass
class UpgradeReport:
    version_from: str
    version_to: str
    backup: str = ""
    migrations: list[str] = field(default_factory=list)
    checks: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"version_from": self.version_from, "version_to": self.version_to, "backup": self.backup,
                "migrations_applied": self.migrations, "checks": self.checks, "warnings": self.warnings}


def _key(version: str) -> tuple:
    return tuple(int(p) if p.isdigit() else 0 for p in version.split("."))


def installed_version() -> str:
    """The version the data folder last ran under ``stormwater upgrade``; "" when none did."""
    try:
        return (Path(settings.DATA_DIR) / VERSION_FILE).read_text().strip()
    except OSError:
        return ""


def pending_migrations() -> list[str]:
    """``app.name`` of every migration not applied yet, in the order ``migrate`` applies them."""
    executor = MigrationExecutor(connections[DEFAULT_DB_ALIAS])
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    return [f"{m.app_label}.{m.name}" for m, backwards in plan if not backwards]


def _database_is_empty() -> bool:
    return not connections[DEFAULT_DB_ALIAS].introspection.table_names()


def default_backup_dir() -> Path:
    return Path(os.environ.get("STORMWATER_BACKUP_DIR") or (Path(settings.DATA_DIR) / "backups"))


def upgrade(*, backup_dir: Path | None = None, backup: bool = True, say=lambda s: None) -> UpgradeReport:
    report = UpgradeReport(version_from=installed_version() or "unknown", version_to=__version__)
    if report.version_from != "unknown" and _key(report.version_from) > _key(__version__):
        raise UpgradeError(f"this data folder last ran {report.version_from}, newer than the installed "
                           f"{__version__}: to go back, restore the backup made before that upgrade "
                           "(docs/deploy.md \"Rolling back\"); nothing was changed")
    pending = pending_migrations()
    if backup and not _database_is_empty():
        folder = Path(backup_dir or default_backup_dir())
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        out = folder / f"before-upgrade-{report.version_from}-to-{__version__}-{stamp}.tar.gz"
        from stormwater.ops.archive import BackupError
        from stormwater.ops.backup import backup_create

        try:
            backup_create(out=out, say=say)
        except BackupError as e:
            raise UpgradeError(f"the backup before the upgrade failed, nothing was migrated: {e}") from None
        report.backup = str(out)
        say(f"backup written: {out}")
    try:
        call_command("migrate", interactive=False, verbosity=0)
    except Exception as e:  # noqa: BLE001 - the migration's own error, said with what to do next
        raise UpgradeError(f"migrate failed: {e}. The database is as the failed migration left it; "
                           f"restore {report.backup or 'the last backup'} to go back (docs/deploy.md)") from None
    report.migrations = [m for m in pending if m not in set(pending_migrations())]
    report.checks = _checks()
    if settings.PRODUCTION and (Path(settings.DATA_DIR) / "dev-secret-key").exists():
        report.warnings.append(f"{Path(settings.DATA_DIR) / 'dev-secret-key'} is a development key left in a "
                               "production data folder (production signs with SECRET_KEY): delete it")
    (Path(settings.DATA_DIR) / VERSION_FILE).write_text(__version__ + "\n")
    return report


def _checks() -> list[str]:
    """Run the checks; each passed one is named. A failed one raises UpgradeError naming it."""
    done = []
    out = io.StringIO()
    try:
        call_command("check", stdout=out, stderr=out)
    except Exception as e:  # noqa: BLE001 - SystemCheckError carries the list of problems
        raise UpgradeError(f"system checks failed after migrating:\n{e}") from None
    done.append("system checks")
    if "books" in get_commands():  # `stormwater books check` (the books' integrity), in releases that have it
        try:
            call_command("books", "check", stdout=out, stderr=out)
        except (CommandError, SystemExit) as e:
            code = getattr(e, "code", 1)
            if code not in (0, None):
                raise UpgradeError(f"books check failed after migrating: {out.getvalue().strip() or e}") from None
        done.append("books check")
    return done
