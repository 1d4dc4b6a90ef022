"""``stormwater relief_clocks``: the relief work queue for the scheduler and the morning list — every
running clock of an open credit, abatement, appeal or §16E case, due first; a Town deadline missed is
flagged MISSED. ``--missed`` lists only those; ``--json`` for machines."""
import json
from datetime import date

from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "List the running clocks of credit, abatement and appeal cases, due first (Ch. 295 Art. IV)."

    def add_arguments(self, parser):
        parser.add_argument("--as-of", type=date.fromisoformat, default=None, help="YYYY-MM-DD (default today)")
        parser.add_argument("--missed", action="store_true", help="only Town deadlines missed")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args, **opts):
        from django.utils import timezone

        from stormwater.relief.selectors import work_queue

        today = opts["as_of"] or timezone.localdate()
        rows = [{"case": r.case.number, "kind": r.case.kind, "status": r.case.status, "clock": r.view.clock.kind,
                 "label": r.view.clock.label, "citation": r.view.clock.citation, "who_acts": r.party,
                 "due": str(r.view.due) if r.view.due else None, "days_left": r.view.days_left,
                 "standing": r.view.standing.value, "missed": r.missed}
                for r in work_queue(today=today) if r.missed or not opts["missed"]]
        if opts["json"]:
            self.stdout.write(json.dumps({"as_of": str(today), "clocks": rows}, indent=2))
            return
        if not rows:
            self.stdout.write(f"No running relief clocks as of {today}.")
            return
        self.stdout.write(f"Relief clocks as of {today} (due first)")
        for r in rows:
            flag = "MISSED" if r["missed"] else r["standing"]
            self.stdout.write(f"{r['due'] or 'stopped':<11} {r['days_left'] if r['days_left'] is not None else '':>5}  "
                              f"{r['case']:<15} {r['label']:<48} {r['who_acts']:<6} {flag}")
