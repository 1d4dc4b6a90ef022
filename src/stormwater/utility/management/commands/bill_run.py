import json
from datetime import date

from django.core.management.base import BaseCommand, CommandError

from stormwater.utility.services import BillingError, bill_run_issue, fiscal_year


class Command(BaseCommand):
    help = "Issue the bill run of a fiscal year (idempotent: accounts already billed are skipped). Prints JSON."

    def add_arguments(self, parser):
        parser.add_argument("--fiscal-year", type=int, required=True, help="e.g. 2027 for July 2026–June 2027")
        parser.add_argument("--issue-date", type=date.fromisoformat, default=date.today())

    def handle(self, *args, **opts):
        label, start, end = fiscal_year(opts["fiscal_year"])
        try:
            result = bill_run_issue(period_label=label, period_start=start, period_end=end,
                                    issue_date=opts["issue_date"], acting_user=None)
        except BillingError as e:
            raise CommandError(str(e)) from None
        self.stdout.write(json.dumps(result.as_json(), indent=2))
