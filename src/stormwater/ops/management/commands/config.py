"""``stormwater config check [FILE]``: validate a town's town.toml before it is put in place (issue 28).

FILE defaults to the data folder's town.toml. Every problem is printed on its own line (unknown tables and settings,
wrong types, values out of range); exit 0 when the file is good, 1 when not. town.example.toml lists every setting.
"""
from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from stormwater.townconfig import config_check, config_path


class Command(BaseCommand):
    help = "check FILE: validate a town.toml (default: the data folder's); every problem on its own line."
    requires_system_checks = []

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        check = sub.add_parser("check", help="validate a town.toml")
        check.add_argument("file", nargs="?", default="", help="the file (default: DATA_DIR/town.toml)")

    def handle(self, *args, action="", file="", **o):
        path = Path(file) if file else config_path()
        problems, count = config_check(path)
        if problems:
            for p in problems:
                self.stderr.write(f"{path}: {p}")
            raise CommandError(f"{path}: {len(problems)} problem(s); nothing was changed", returncode=1)
        self.stdout.write(f"{path}: OK ({count} setting(s) set; the others keep their defaults)")
