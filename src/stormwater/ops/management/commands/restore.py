"""``stormwater restore IN``: restore a ``stormwater backup`` archive into an EMPTY data folder and
database (refuses anything else), then check it against the archive's manifest. SQLite → SQLite,
PostgreSQL → PostgreSQL, and SQLite → PostgreSQL (set DATABASE_URL to the new, empty database).
See stormwater.ops.backup, stormwater.ops.restore and docs/deploy.md."""
from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from stormwater.ops.archive import BackupError, archived_secret_key, read_manifest
from stormwater.ops.restore import backup_restore


class Command(BaseCommand):
    help = ("Restore a backup archive into an empty data folder and database, checked against its manifest "
            "(SQLite → SQLite, PostgreSQL → PostgreSQL, SQLite → PostgreSQL).")
    requires_system_checks = []

    def add_arguments(self, parser):
        parser.add_argument("archive", metavar="IN.tar.gz")
        parser.add_argument("--new-secret-key", action="store_true",
                            help="keep this server's different SECRET_KEY (the sign-up codes on bills already "
                                 "mailed stop working; print new bills)")
        parser.add_argument("--print-secret-key", action="store_true",
                            help="only print the SECRET_KEY kept in the archive (for this server's .env), restore nothing")

    def handle(self, *args, **o):
        archive = Path(o["archive"])
        try:
            if o["print_secret_key"]:
                read_manifest(archive)
                key = archived_secret_key(archive)
                if not key:
                    raise CommandError("this archive was made with --without-secret-key: it holds no key")
                self.stdout.write(key)
                return
            manifest = backup_restore(archive=archive, new_secret_key=o["new_secret_key"], say=self.stderr.write)
        except BackupError as e:
            raise CommandError(str(e)) from None
        self.stdout.write(f"restored {archive.resolve()} (made {manifest['created_at']} by version "
                          f"{manifest['app_version']}, {manifest['database']['engine']}). "
                          "Next: `stormwater migrate` (applies any newer migrations), then start the server.")
