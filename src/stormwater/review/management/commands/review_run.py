"""stormwater review_run PLAN.yaml [--json] [--title T] [--case NUMBER] [--user USERNAME]

Run the engineering review on a plan file, store it like a web upload, print the result per standard
(or the whole report as JSON). Exit 0 on pass, 1 on fail or not assessable, 2 on an unreadable plan.
"""
from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from stormwater.review.services import ReviewInputError, review_run


class Command(BaseCommand):
    help = "Review a stormwater management plan file (JSON/YAML) against Ch. 380 § 380-11 and store the report."

    def add_arguments(self, parser):
        parser.add_argument("plan")
        parser.add_argument("--json", action="store_true", help="print the whole report as JSON")
        parser.add_argument("--title", default="")
        parser.add_argument("--case", default="", help="permit case number to attach the review to")
        parser.add_argument("--user", default="", help="run as this user (for the audit row and case access)")

    def handle(self, *args, **o):
        from stormwater.accounts.models import User

        path = Path(o["plan"])
        if not path.exists():
            raise CommandError(f"plan: {path} does not exist")
        user = User.objects.filter(username=o["user"]).first() if o["user"] else None
        if o["user"] and user is None:
            raise CommandError(f"user: no user {o['user']!r}")
        from stormwater.imports.pipeline import ImportRefused, read_text

        try:  # the pipeline's reading rules (issue 20): encoding detected, a binary file named, never a traceback
            text = read_text(path).text
        except ImportRefused as e:
            self.stderr.write(f"error: {'; '.join(p.message for p in e.problems)}")
            raise SystemExit(2) from None
        try:
            review = review_run(input_text=text, input_name=path.name,
                                title=o["title"], case_number=o["case"], acting_user=user)
        except ReviewInputError as e:
            self.stderr.write(f"error: {e}")
            raise SystemExit(2) from None
        r = review.results
        if o["json"]:
            self.stdout.write(json.dumps({"id": review.pk, **r}, indent=2, ensure_ascii=False))
        else:
            self.stdout.write(f"Review {review.pk}: {r['project']['name']} -- {r['overall_label']}"
                              f"{' (provisional)' if r['provisional'] else ''}")
            for s in r["standards"]:
                flag = " [provisional]" if s["provisional"] else ""
                self.stdout.write(f"  {s['status_label']:<15} {s['title']}: required {s['required'] or '-'}; "
                                  f"provided {s['provided'] or '-'}{flag}" + (f" -- {s['reason']}" if s["reason"] else ""))
        if review.overall != "pass":
            raise SystemExit(1)
