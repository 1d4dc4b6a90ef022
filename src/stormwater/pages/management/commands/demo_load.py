import json

from django.core.management.base import BaseCommand

from stormwater.demo import DEMO_PASSWORD, DEMO_USERS, demo_load
from stormwater.townconfig import config_path, town_config

# The demo town's own town.toml (written only into a data folder that has none, when the demo is loaded): its
# printed logins sign in with the password alone. A real town has no such line: two-factor sign-in is then
# required for the Director and the Collector (rules/town.py TownConfig.totp_required_roles).
DEMO_TOWN_TOML = """\
# Written by `stormwater demo_load` for the demo town. Delete this file (or the line below) for a real town:
# without it, the Director and the Collector must sign in with an authenticator app as well as a password.
[town]
totp_required_roles = []
"""


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
            self._demo_town_toml()
        self.stdout.write("\nDemo logins (password for all: %s):" % DEMO_PASSWORD)
        for username, role, first, last in DEMO_USERS:
            self.stdout.write(f"  {username:<11} {role.label}")
        required = town_config().totp_required_roles
        if required:
            self.stdout.write(f"Two-factor sign-in is required for: {', '.join(required)} (town.toml): their first "
                              "sign-in sets up an authenticator app on your phone.")
        else:
            self.stdout.write(f"Two-factor sign-in is not required in this demo ({config_path()}); a real town "
                              "requires it for the Director and the Collector.")
        if opts["verbosity"] > 1:
            self.stdout.write(json.dumps(out, indent=2, default=str))

    def _demo_town_toml(self):
        path = config_path()
        if not path.exists():
            path.write_text(DEMO_TOWN_TOML, encoding="utf-8")
            town_config.cache_clear()
