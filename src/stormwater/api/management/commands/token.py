"""``stormwater token issue NAME --role ROLE | list | revoke NAME``: API tokens for other systems (issue 15).

The secret is printed once, by ``issue``; only its hash is kept. ``--by USERNAME`` records who acted
(the Director); without it the act is recorded as the system's."""
from __future__ import annotations

import json

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from stormwater.accounts.roles import Perm, Role
from stormwater.api.tokens import TokenError, api_token_get, api_token_issue, api_token_revoke, api_tokens


class Command(BaseCommand):
    help = "Issue, list and revoke API tokens (Authorization: Bearer …) for other systems."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="act", required=True)
        issue = sub.add_parser("issue", help="issue a named token with a role; prints the secret once")
        issue.add_argument("name")
        issue.add_argument("--role", required=True, choices=Role.values)
        issue.add_argument("--by", default="", help="username of the Director issuing it")
        issue.add_argument("--json", action="store_true", help="print one JSON object")
        lst = sub.add_parser("list", help="every token: name, role, prefix, issued, revoked")
        lst.add_argument("--json", action="store_true")
        revoke = sub.add_parser("revoke", help="revoke a token by name (it stops working at once)")
        revoke.add_argument("name")
        revoke.add_argument("--by", default="")

    def _actor(self, username: str):
        if not username:
            return None
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"--by: no user {username!r}")
        if not user.can(Perm.API_TOKENS):
            raise CommandError(f"--by: {username} may not issue or revoke API tokens (the Director does)")
        return user

    def handle(self, *args, act: str, **o):
        try:
            if act == "issue":
                token, secret = api_token_issue(name=o["name"], role=o["role"], acting_user=self._actor(o["by"]))
                if o["json"]:
                    self.stdout.write(json.dumps({"name": token.name, "role": token.role, "token": secret}))
                else:
                    self.stdout.write(f"Token {token.name!r} ({token.get_role_display()}) issued. Its secret, shown "
                                      "only this once — send it as 'Authorization: Bearer <secret>':")
                    self.stdout.write(secret)
            elif act == "list":
                rows = [{"name": t.name, "role": t.role, "prefix": t.prefix,
                         "issued": timezone.localtime(t.created_at).isoformat(timespec="minutes"),
                         "revoked": (timezone.localtime(t.revoked_at).isoformat(timespec="minutes")
                                     if t.revoked_at else None)} for t in api_tokens()]
                if o["json"]:
                    self.stdout.write(json.dumps(rows))
                elif not rows:
                    self.stdout.write("No API tokens.")
                else:
                    for r in rows:
                        self.stdout.write(f"{r['name']}\t{r['role']}\t{r['prefix']}…\tissued {r['issued']}"
                                          + (f"\trevoked {r['revoked']}" if r["revoked"] else "\tactive"))
            else:
                token = api_token_revoke(token=api_token_get(name=o["name"]), acting_user=self._actor(o["by"]))
                self.stdout.write(f"Token {token.name!r} revoked.")
        except TokenError as e:
            raise CommandError(str(e)) from None
