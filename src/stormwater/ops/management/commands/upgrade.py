"""``stormwater upgrade``: back up, migrate, check, and say what changed (stormwater.ops.upgrade; docs/deploy.md)."""
from __future__ import annotations

import json as jsonlib
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from stormwater.ops.upgrade import UpgradeError, default_backup_dir, upgrade


class Command(BaseCommand):
    help = ("After installing a new release: back up the town, migrate, run the checks, and print what changed "
            "(version from → to, the backup, each migration applied). CHANGELOG.md has each version's notes.")
    requires_system_checks = []  # the checks run after migrating

    def add_arguments(self, parser):
        parser.add_argument("--backup-dir", default="",
                            help=f"where the backup goes (default $STORMWATER_BACKUP_DIR, else {default_backup_dir()})")
        parser.add_argument("--no-backup", action="store_true",
                            help="skip the backup (only when one was just made by other means)")
        parser.add_argument("--json", action="store_true", help="print the report as JSON")

    def handle(self, *args, backup_dir="", no_backup=False, **o):
        try:
            report = upgrade(backup_dir=Path(backup_dir) if backup_dir else None, backup=not no_backup,
                             say=self.stderr.write)
        except UpgradeError as e:
            raise CommandError(str(e)) from None
        if o["json"]:
            self.stdout.write(jsonlib.dumps(report.as_dict(), indent=2))
            return
        r = report
        self.stdout.write(f"stormwater {r.version_from} → {r.version_to}")
        self.stdout.write(f"backup: {r.backup or 'none (' + ('skipped' if no_backup else 'empty database') + ')'}")
        self.stdout.write(f"migrations applied: {len(r.migrations)}")
        for m in r.migrations:
            self.stdout.write(f"  {m}")
        self.stdout.write(f"checks passed: {', '.join(r.checks)}")
        for w in r.warnings:
            self.stdout.write(f"warning: {w}")
        self.stdout.write("Read CHANGELOG.md's upgrade notes for this version; then restart the services.")

