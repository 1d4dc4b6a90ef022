"""``stormwater association <subcommand>``: a property association's recorded instruments (Ch. 295 Art. IV ¶G).

    stormwater association import FILE.csv --parcel ID --reference "Book 24001 Page 12" --recorded-on YYYY-MM-DD
                                  [--effective-on YYYY-MM-DD] [--name NAME] [--note TEXT] [--dry-run]
        the unit shares (CSV: unit_parcel_id,share_percent) of a new instrument of the association whose master
        parcel is ID, through the import pipeline; JSON out (what is or would be recorded)
    stormwater association show --parcel ID [--on YYYY-MM-DD]
        the association, the instrument in force on the day (default today) and every instrument on file (JSON)

A refused file exits 1 with every finding (row and column) on stderr; nothing changed.
"""
from __future__ import annotations

import json
from datetime import date
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from stormwater.imports.pipeline import ImportRefused


class Command(BaseCommand):
    help = "Property associations' instruments (Ch. 295 Art. IV ¶G): import unit shares, show the history."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        p = sub.add_parser("import", help="a new instrument's unit shares (CSV: unit_parcel_id,share_percent)")
        p.add_argument("path", metavar="FILE.csv")
        p.add_argument("--parcel", required=True, help="the association's master parcel id")
        p.add_argument("--reference", required=True, help="Registry book/page or Land Court document number")
        p.add_argument("--recorded-on", required=True, type=date.fromisoformat, metavar="YYYY-MM-DD")
        p.add_argument("--effective-on", type=date.fromisoformat, metavar="YYYY-MM-DD",
                       help="bills made from this day use it (default: the recording date)")
        p.add_argument("--name", default="", help="the association's name (required for its first instrument)")
        p.add_argument("--note", default="")
        p.add_argument("--dry-run", action="store_true", help="check the file and show what would be recorded")
        p = sub.add_parser("show", help="the instrument in force and the history (JSON)")
        p.add_argument("--parcel", required=True, help="the association's master parcel id")
        p.add_argument("--on", type=date.fromisoformat, default=None, metavar="YYYY-MM-DD")

    def handle(self, *args, **o):
        return getattr(self, "do_" + o["action"])(o)

    def _parcel(self, pid: str):
        from stormwater.parcels.models import Parcel

        try:
            return Parcel.objects.get(parcel_id=pid)
        except Parcel.DoesNotExist:
            raise CommandError(f"--parcel: {pid} is not a parcel in the Assessors' records") from None

    def do_import(self, o):
        from stormwater.parcels.instrument_import import association_import

        path = Path(o["path"])
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        parcel = self._parcel(o["parcel"])
        try:
            res = association_import(parcel=parcel, path=path, source=path.name, reference=o["reference"],
                                     recorded_on=o["recorded_on"], effective_on=o["effective_on"], name=o["name"],
                                     note=o["note"], acting_user=None, dry_run=o["dry_run"])
        except ImportRefused as e:
            for p in e.problems:
                self.stderr.write("  " + p.summary())
            raise CommandError(str(e)) from None
        self.stdout.write(json.dumps(res.as_json(), indent=2))

    def do_show(self, o):
        from stormwater.parcels.api import association_json

        self.stdout.write(json.dumps(association_json(self._parcel(o["parcel"]), on=o["on"] or date.today()),
                                     indent=2))
