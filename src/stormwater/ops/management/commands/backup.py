"""``stormwater backup OUT``: one archive of the town (database, uploaded documents, town.toml, the
SECRET_KEY behind the bills' sign-up codes, a manifest). See stormwater.ops.backup and docs/deploy.md."""
from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from stormwater.ops.backup import BackupError, backup_create


class Command(BaseCommand):
    help = ("Write one archive (.tar.gz) of the database, the uploaded documents, town.toml and the SECRET_KEY, "
            "with a manifest of rows per table and money sums. Never overwrites a file.")
    requires_system_checks = []

    def add_arguments(self, parser):
        parser.add_argument("out", metavar="OUT.tar.gz")
        parser.add_argument("--without-secret-key", action="store_true",
                            help="leave SECRET_KEY out (keep it elsewhere; the manifest keeps its fingerprint)")
        parser.add_argument("--json", action="store_true", help="print the manifest")

    def handle(self, *args, **o):
        try:
            manifest = backup_create(out=Path(o["out"]), include_secret_key=not o["without_secret_key"],
                                     say=self.stderr.write)
        except BackupError as e:
            raise CommandError(str(e)) from None
        if o["json"]:
            self.stdout.write(json.dumps(manifest, indent=2, sort_keys=True))
        else:
            self.stdout.write(f"backup written: {Path(o['out']).resolve()} "
                              f"({sum(manifest['tables'].values())} rows in {len(manifest['tables'])} tables, "
                              f"{len(manifest['members'])} files; made {manifest['created_at']})")
