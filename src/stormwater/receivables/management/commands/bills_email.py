import json

from django.core.management.base import BaseCommand, CommandError

from stormwater.receivables.mailing import bill_run_email
from stormwater.utility.models import BillRun


class Command(BaseCommand):
    help = "Email the bills of a bill run to owners with an address on file (each bill once). Prints JSON."

    def add_arguments(self, parser):
        parser.add_argument("--run", type=int, required=True, help="bill run id")

    def handle(self, *args, **opts):
        run = BillRun.objects.filter(pk=opts["run"]).first()
        if run is None:
            raise CommandError(f"No bill run {opts['run']}.")
        self.stdout.write(json.dumps(bill_run_email(run=run)))
