"""``stormwater permit_clocks``: every running clock of the permit files with its due date (for the
scheduler and the morning list). ``--overdue`` lists only clocks past due; ``--json`` for machines."""
import json
from datetime import date

from django.core.management.base import BaseCommand

from stormwater.cases.models import Clock
from stormwater.cases.selectors import clock_view
from stormwater.permits.workflow import PERMIT, WAIVER


class Command(BaseCommand):
    help = "List the running clocks of permit files with their due dates (Ch. 380 § 380-10)."

    def add_arguments(self, parser):
        parser.add_argument("--as-of", type=date.fromisoformat, default=None, help="YYYY-MM-DD (default today)")
        parser.add_argument("--overdue", action="store_true", help="only clocks past their due date")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args, **opts):
        from django.utils import timezone

        today = opts["as_of"] or timezone.localdate()
        rows = []
        clocks = (Clock.objects.filter(met_on__isnull=True, case__kind__in=[PERMIT, WAIVER])
                  .select_related("case").prefetch_related("tolls", "extensions").order_by("case__number", "start"))
        for c in clocks:
            cv = clock_view(c, today=today)
            if opts["overdue"] and cv.standing.value != "overdue":
                continue
            rows.append({"case": c.case.number, "status": c.case.status, "clock": c.kind, "label": c.label,
                         "citation": c.citation, "start": str(c.start), "length": c.length, "unit": c.unit,
                         "due": str(cv.due) if cv.due else None, "standing": cv.standing.value,
                         "days_left": cv.days_left, "stopped_since": str(cv.state.stopped_since)
                         if cv.state.stopped_since else None,
                         "remaining_when_stopped": cv.state.remaining_when_stopped})
        rows.sort(key=lambda r: (r["due"] is None, r["due"] or "", r["case"]))
        if opts["json"]:
            self.stdout.write(json.dumps({"as_of": str(today), "clocks": rows}, indent=2))
            return
        if not rows:
            self.stdout.write(f"No running permit clocks as of {today}.")
            return
        self.stdout.write(f"Permit clocks as of {today}")
        for r in rows:
            due = r["due"] or f"stopped since {r['stopped_since']} ({r['remaining_when_stopped']} {r['unit']} days left)"
            self.stdout.write(f"{r['case']:<16} {r['label']:<48} {r['citation']:<18} due {due:<12} {r['standing']}")
