import json

from django.core.management.base import BaseCommand

from stormwater.demo import DEMO_PASSWORD, DEMO_USERS, demo_load


class Command(BaseCommand):
    help = "Load the demo town (synthetic Longmeadow-like parcels, demo rates, one issued bill run)."

    def add_arguments(self, parser):
        parser.add_argument("--parcels", type=int, default=400)
        parser.add_argument("--no-bill-run", action="store_true")

    def handle(self, *args, **opts):
        from django.test.utils import override_settings

        # The demo's notices are kept with their cases; no mail leaves (or floods the terminal).
        with override_settings(EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend"):
            out = demo_load(parcels=opts["parcels"], issue_run=not opts["no_bill_run"])
        if not out["loaded"]:
            self.stdout.write(out["message"])
        else:
            br = out.get("bill_run") or {}
            self.stdout.write(f"Demo town loaded: {out['parcels']} parcels; bill run: {br.get('message', 'none')}")
        self.stdout.write("\nDemo logins (password for all: %s):" % DEMO_PASSWORD)
        for username, role, first, last in DEMO_USERS:
            self.stdout.write(f"  {username:<11} {role.label}")
        if opts["verbosity"] > 1:
            self.stdout.write(json.dumps(out, indent=2, default=str))
