"""``stormwater permit``: the people linked to a permit, from the command line (issue 18), JSON out — the same
services and the same rule as the permit page and ``/api/permits/<n>/parties/``: the applicant of the permit or
staff link and unlink; anyone who reaches the permit lists.

    stormwater permit parties NUMBER --by USERNAME
    stormwater permit link-party NUMBER --who USERNAME_OR_EMAIL --role design_engineer|contractor|agent --by USERNAME
    stormwater permit unlink-party NUMBER --party ID --by USERNAME

``--by`` names the person acting (their account decides what they may do, and the timeline and audit rows name
them). Success prints one JSON object and exits 0; a refusal prints ``{"error": "field: message"}`` and exits 1.
"""
from __future__ import annotations

import json

from django.core.exceptions import PermissionDenied
from django.core.management.base import BaseCommand, CommandError
from django.http import Http404

from stormwater.permits import services
from stormwater.permits.selectors import may_act_for_applicant, party_json, permit_get_for_user, permit_people

ERR_BY = "by: no active account {who!r}"


class Command(BaseCommand):
    help = "The people linked to a permit: parties, link-party, unlink-party (JSON out)."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION")

        def action(name, help_text):
            p = sub.add_parser(name, help=help_text, description=help_text)
            p.add_argument("number", help="the permit's case number, e.g. SWP-2026-0001")
            p.add_argument("--by", required=True, help="username of the person acting (the applicant or staff)")
            return p

        action("parties", "List the people linked to the permit.")
        p = action("link-party", "Link a signed-up person to the permit as design engineer, contractor or agent.")
        p.add_argument("--who", required=True, help="their username or e-mail address (they sign up first)")
        p.add_argument("--role", required=True, choices=list(services.LINKABLE_ROLES))
        p = action("unlink-party", "Unlink a person from the permit (the timeline keeps that they were).")
        p.add_argument("--party", required=True, type=int, help="the id 'parties' lists")

    def handle(self, *args, **o):
        try:
            out = self._act(o)
        except (Http404, PermissionDenied, ValueError) as e:
            msg = str(e)
            self.stdout.write(json.dumps({"error": msg}, ensure_ascii=False))
            raise CommandError(msg) from None
        self.stdout.write(json.dumps(out, ensure_ascii=False))

    def _act(self, o) -> dict:
        from stormwater.accounts.models import User

        by = User.objects.filter(username=o["by"], is_active=True).first()
        if by is None:
            raise ValueError(ERR_BY.format(who=o["by"]))
        try:
            app = permit_get_for_user(user=by, number=o["number"])
        except Http404:
            raise ValueError(f"number: no permit {o['number']!r} that {by.username} may see") from None
        act = o["action"]
        if act == "parties":
            return {"permit": app.case.number, "parties": [party_json(p) for p in permit_people(app)]}
        if not may_act_for_applicant(by, app):
            raise PermissionDenied(f"by: {services.ERR_PARTIES_WHO}")
        if act == "link-party":
            try:
                party = services.permit_party_link(application=app, who=o["who"], role=o["role"], acting_user=by)
            except ValueError as e:
                raise ValueError(f"who: {e}") from None
            return {"permit": app.case.number, "party": party_json(party),
                    "parties": [party_json(p) for p in permit_people(app)]}
        if not permit_people(app).filter(pk=o["party"]).exists():
            raise ValueError(f"party: no linked person {o['party']} on this permit")
        services.permit_party_unlink(application=app, party_id=o["party"], acting_user=by)
        return {"permit": app.case.number, "parties": [party_json(p) for p in permit_people(app)]}
