"""``stormwater alert SUBJECT``: e-mail ADMINS that something unattended failed, with what stdin holds (issue 28).

systemd's ``OnFailure=`` runs it for the nightly backup and the daily sweep (docs/deploy.md step 8,
``stormwater-alert@.service``: the failed unit's last journal lines on stdin). Without ADMINS it exits 1 saying so:
an alert that reaches nobody must not look sent.
"""
from __future__ import annotations

import sys

from django.conf import settings
from django.core.mail import mail_admins
from django.core.management.base import BaseCommand, CommandError


class Command(BaseCommand):
    help = "E-mail ADMINS: SUBJECT, and the text on stdin as the message (systemd OnFailure= alerts)."
    requires_system_checks = []

    def add_arguments(self, parser):
        parser.add_argument("subject")

    def handle(self, *args, subject="", **o):
        if not settings.ADMINS:
            raise CommandError(f"ADMINS is not set in .env: nobody to tell that {subject!r}")
        body = "" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.read(200_000)
        mail_admins(subject, body or "(no details)", fail_silently=False)
        self.stdout.write(f"alert sent to {', '.join(a for _, a in settings.ADMINS)}: {subject}")
