"""stormwater bmp_table_load FILE.csv --name NAME --source "CITATION" [--provisional] [--user USERNAME]

Load an official BMP performance table (CSV of points) as the next version of NAME (§ 380-11 A(4)).
"""
from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from stormwater.review.services import bmp_table_load


class Command(BaseCommand):
    help = "Load an official BMP performance table (bmp, pollutant, infiltration_rate_in_hr, storage_depth_in, removal)."

    def add_arguments(self, parser):
        parser.add_argument("csv")
        parser.add_argument("--name", required=True)
        parser.add_argument("--source", required=True, help="document, table, page and date of the numbers")
        parser.add_argument("--provisional", action="store_true")
        parser.add_argument("--user", default="")

    def handle(self, *args, **o):
        from stormwater.accounts.models import User

        from stormwater.imports.pipeline import read_text

        user = User.objects.filter(username=o["user"]).first() if o["user"] else None
        try:
            # The pipeline's reader (issue 26): UTF-16, a BOM, Windows-1252 read; a binary file named, never a raw
            # UnicodeDecodeError.
            t = bmp_table_load(name=o["name"], source_citation=o["source"], provisional=o["provisional"],
                               csv_text=read_text(Path(o["csv"])).text, acting_user=user)
        except (OSError, ValueError) as e:
            raise CommandError(str(e)) from None
        self.stdout.write(f"Loaded {t.label}: {t.summary['curves']} curves, {', '.join(t.summary['pollutants'])}")
