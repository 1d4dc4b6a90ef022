"""``stormwater user``: the accounts, from the server's command line (issue 14). The way a new installation
gets its first Director; the same services as the Director's users page, each change audited.

    stormwater user add --username U --role ROLE --email E [--first-name F --last-name L] [--password-stdin]
    stormwater user set-role --username U --role ROLE [--why W]
    stormwater user deactivate --username U [--why W]
    stormwater user reactivate --username U [--why W]
    stormwater user set-password --username U [--password-stdin]
    stormwater user reset-two-factor --username U [--why W]
    stormwater user list [--role ROLE|all] [--inactive|--all] [--json]

The password is asked twice at the terminal (not echoed), or read as one line from standard input with
``--password-stdin`` (for scripts: ``printf '%s\\n' "$PW" | stormwater user add ... --password-stdin``);
never from the command line, where other users of the server could read it. The audit rows name the
operating-system user who ran the command.
"""
from __future__ import annotations

import getpass
import json
import os
import sys

from django.core.management.base import BaseCommand, CommandError

from stormwater.accounts import twofactor
from stormwater.accounts.roles import Role
from stormwater.accounts.selectors import FIRST_RUN, director_exists, user_list
from stormwater.accounts.services import (AccountError, role_parse, user_create, user_deactivate,
                                          user_get_by_username, user_password_set, user_reactivate, user_set_role,
                                          user_two_factor_reset)

ROLES_HELP = "one of: " + ", ".join(Role.values)


def _os_user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no login name (containers): the uid still says who
        return f"uid {os.getuid()}"


class Command(BaseCommand):
    help = "Manage the people who sign in: add, set-role, deactivate, reactivate, set-password, reset-two-factor, list."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION")

        def action(name, help_text, *, username=True, why=False, password=False):
            p = sub.add_parser(name, help=help_text, description=help_text)
            if username:
                p.add_argument("--username", required=True)
            if why:
                p.add_argument("--why", default="", help="the reason, kept in the audit log")
            if password:
                p.add_argument("--password-stdin", action="store_true",
                               help="read the password as one line from standard input instead of asking")
            return p

        p = action("add", "Create an account (the first Director: --role director).", why=True, password=True)
        p.add_argument("--role", required=True, help=ROLES_HELP)
        p.add_argument("--email", required=True, help="where the password-reset link goes")
        p.add_argument("--first-name", default="")
        p.add_argument("--last-name", default="")
        p = action("set-role", "Change an account's role (its open sessions end).", why=True)
        p.add_argument("--role", required=True, help=ROLES_HELP)
        action("deactivate", "Stop an account from signing in (nothing is deleted).", why=True)
        action("reactivate", "Let a deactivated account sign in again.", why=True)
        action("set-password", "Set an account's password (its other sessions end).", password=True)
        action("reset-two-factor", "Remove an account's authenticator app and recovery codes (lost phone).", why=True)
        p = action("list", "List the accounts (staff roles, active, by default).", username=False)
        p.add_argument("--role", default="", help="a role, or 'all' for every role including owners")
        status = p.add_mutually_exclusive_group()
        status.add_argument("--inactive", action="store_true", help="only deactivated accounts")
        status.add_argument("--all", action="store_true", help="active and deactivated accounts")
        p.add_argument("--json", action="store_true", help="one JSON object instead of a table")

    def handle(self, *args, **opts):
        act = opts["action"]
        how = f"stormwater user {act} (command line, operating-system user {_os_user()})"
        why = (opts.get("why") or "").strip()
        why = f"{why} — {how}" if why else how
        try:
            if act == "list":
                return self._list(opts)
            if act == "add":
                role = role_parse(opts["role"])  # before asking for a password
                password = self._password(opts)
                user = user_create(username=opts["username"], role=role, email=opts["email"], password=password,
                                   first_name=opts["first_name"], last_name=opts["last_name"], acting_user=None,
                                   why=why)
                self.stdout.write(f"Created {user.username} ({user.get_role_display()}, {user.email}).")
                if twofactor.required_for(user):
                    self.stdout.write("Two-factor sign-in is required for this role (town configuration): the first "
                                      "sign-in sets up an authenticator app.")
                return
            user = user_get_by_username(opts["username"])
            if act == "set-role":
                user = user_set_role(user=user, role=opts["role"], acting_user=None, why=why)
                self.stdout.write(f"{user.username} is now {user.get_role_display()}; their open sessions end.")
            elif act == "deactivate":
                user_deactivate(user=user, acting_user=None, why=why)
                self.stdout.write(f"{user.username} is deactivated: no more sign-ins (nothing deleted).")
            elif act == "reactivate":
                user_reactivate(user=user, acting_user=None, why=why)
                self.stdout.write(f"{user.username} is active again.")
            elif act == "set-password":
                user_password_set(user=user, password=self._password(opts, user=user), acting_user=None,
                                  how="admin", why=why)
                self.stdout.write(f"{user.username}'s password is set; their other sessions end.")
            elif act == "reset-two-factor":
                user_two_factor_reset(user=user, acting_user=None, why=why)
                self.stdout.write(f"{user.username}'s authenticator app and recovery codes are removed.")
        except AccountError as e:
            raise CommandError(str(e)) from None

    def _password(self, opts, user=None) -> str:
        if opts["password_stdin"]:
            line = sys.stdin.readline()
            password = line[:-1] if line.endswith("\n") else line
            if not password:
                raise CommandError("--password-stdin: standard input had no password line.")
            return password
        if not sys.stdin.isatty():
            raise CommandError("No terminal to ask for the password: run in a terminal, or pass the password on "
                               "standard input with --password-stdin.")
        first = getpass.getpass("Password (at least 12 characters): ")
        if getpass.getpass("Password again: ") != first:
            raise CommandError("The two passwords differ; nothing was changed.")
        return first

    def _list(self, opts):
        role = opts["role"]
        if role not in ("", "all"):
            role = role_parse(role).value
        status = "inactive" if opts["inactive"] else "all" if opts["all"] else "active"
        users = list(user_list(role=role, status=status))
        rows = [{"username": u.username, "name": u.get_full_name(), "role": u.role, "email": u.email,
                 "active": u.is_active, "two_factor": u.two_factor,
                 "last_login": u.last_login.isoformat() if u.last_login else None} for u in users]
        if opts["json"]:
            self.stdout.write(json.dumps({"users": rows, "director_exists": director_exists()}, indent=2))
            return
        if not rows:
            self.stdout.write("No accounts match.")
        else:
            self.stdout.write(f"{'USERNAME':<20} {'ROLE':<11} {'ACTIVE':<7} {'2FA':<4} {'LAST SIGN-IN':<17} EMAIL")
            for r in rows:
                self.stdout.write(f"{r['username']:<20} {r['role']:<11} {'yes' if r['active'] else 'no':<7} "
                                  f"{'on' if r['two_factor'] else 'off':<4} {(r['last_login'] or 'never')[:16]:<17} "
                                  f"{r['email']}")
        if not director_exists():
            self.stdout.write(FIRST_RUN)
