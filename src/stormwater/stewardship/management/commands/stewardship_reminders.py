"""Annual O&M certification reminders and the overdue list (Ch. 380 § 380-14 C(2)(l)). A scheduler runs it
daily; each reminder is sent once (upcoming: 30 days before the due date; overdue: the day after)."""
from datetime import date

from django.core.management.base import BaseCommand
from django.utils import timezone

from stormwater.stewardship.selectors import certifications_overdue
from stormwater.stewardship.services import certification_reminders_send


class Command(BaseCommand):
    help = "Send annual O&M certification reminders and print the overdue list."

    def add_arguments(self, parser):
        parser.add_argument("--today", type=date.fromisoformat, default=None, help="YYYY-MM-DD (default: today)")

    def handle(self, *args, today=None, **opts):
        today = today or timezone.localdate()
        sent = certification_reminders_send(today=today)
        for r in sent:
            self.stdout.write(f"reminder {r.kind}: {r.plan.site.name} year {r.seq} → {r.to or '(no email: print)'}")
        overdue = certifications_overdue(today=today)
        self.stdout.write(f"{len(overdue)} certification(s) overdue as of {today}")
        for d in overdue:
            self.stdout.write(f"  {d.site.case.number} {d.site.name}: year {d.seq} due {d.due_on}")
