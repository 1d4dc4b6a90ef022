"""``stormwater imports <subcommand>``: the import pipeline's own imports and its records (issue 20).

    stormwater imports water-sewer FILE.csv [--dry-run]   parcel id ↔ Town water/sewer account (JSON out)
    stormwater imports payments FILE.csv [--format lockbox|processor] [--dry-run]
                                                          a lockbox/bank or payment-processor file posted (JSON out)
    stormwater imports list [--kind KIND] [--limit N]      the last imports: outcome, file checksum, counts (JSON)

A refused file exits 1 with every finding (file, rows, columns) on stderr; nothing changed. Assessor records and
GIS layers import with ``stormwater gis assessor`` / ``stormwater gis import`` (the same pipeline).
"""
from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from stormwater.imports.pipeline import ImportRefused


class Command(BaseCommand):
    help = "Imports (issue 20): water/sewer accounts; the record of every import."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        p = sub.add_parser("water-sewer", help="parcel id ↔ water/sewer account (CSV: parcel_id,water_sewer_account)")
        p.add_argument("path", metavar="FILE.csv")
        p.add_argument("--dry-run", action="store_true", help="validate and list the changes only")
        p = sub.add_parser("payments", help="post a lockbox/bank file (account,amount,received_on,reference[,method]) "
                                            "or the payment processor's daily file (receivables.lockbox)")
        p.add_argument("path", metavar="FILE.csv")
        p.add_argument("--format", choices=["lockbox", "processor"], default="lockbox",
                       help="processor: the online processor's file, its columns mapped by the town configuration")
        p.add_argument("--dry-run", action="store_true", help="check the whole file and list what would post")
        p = sub.add_parser("list", help="the last imports (JSON)")
        p.add_argument("--kind", help="assessor, gis_layers, water_sewer_accounts …")
        p.add_argument("--limit", type=int, default=20)

    def handle(self, *args, **o):
        return getattr(self, "do_" + o["action"].replace("-", "_"))(o)

    def do_water_sewer(self, o):
        from stormwater.imports.services import water_sewer_accounts_import

        path = Path(o["path"])
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        try:
            res = water_sewer_accounts_import(path=path, source=path.name, acting_user=None, dry_run=o["dry_run"])
        except ImportRefused as e:
            raise CommandError(str(e)) from None
        for p in res.problems:
            self.stderr.write("  " + p.summary())
        self.stdout.write(json.dumps(res.as_json(), indent=2))

    def do_payments(self, o):
        from stormwater.receivables.lockbox import BatchRejected, payment_batch_post
        from stormwater.receivables.processor import processor_file_post

        path = Path(o["path"])
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        post = processor_file_post if o["format"] == "processor" else payment_batch_post
        try:
            r = post(filename=path.name, content=path.read_bytes(), acting_user=None, dry_run=o["dry_run"])
        except BatchRejected as e:
            raise CommandError(str(e) if path.name in str(e) else f"{path.name}: {e}") from None
        self.stderr.write(r.message)
        self.stdout.write(json.dumps({"posted": r.posted, "total": str(r.total), "already_posted": r.already_posted,
                                      "skipped_rows": list(r.skipped), "dry_run": r.dry_run,
                                      "batch": r.batch.pk if r.batch else None, "message": r.message,
                                      "problems": [p.as_json() for p in r.problems]}, indent=2))

    def do_list(self, o):
        from stormwater.imports.selectors import import_records

        self.stdout.write(json.dumps([
            {"id": r.pk, "kind": r.kind, "source": r.source, "outcome": r.outcome, "checksum": r.checksum,
             "content_checksum": r.content_checksum, "counts": r.counts, "created_at": r.created_at.isoformat(),
             "by": r.created_by.username if r.created_by else None}
            for r in import_records(kind=o.get("kind"), limit=max(1, min(o["limit"], 1000)))], indent=2))
