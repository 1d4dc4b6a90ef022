"""``stormwater books check [--as-of YYYY-MM-DD] [--json] [--fast] [--record]``: the books' invariants on this
database (issue 25; ``receivables/bookcheck.py``) and a trial balance by fund and account.

Exit 0 when the books are clean; otherwise every break is listed (account, what broke, the amounts) and the exit
status is 1. ``--json`` prints one JSON object (``as_of``, ``clean``, ``counts``, ``breaks``, ``trial_balance``,
``trial_balance_total``). ``--fast`` leaves out the per-account reference readings (set-based checks only, for a
very large town). ``--record`` stores the result as the daily sweep does (shown on the Director's and the
Collector's home when something is broken)."""
from __future__ import annotations

import json
from datetime import date

from django.core.management.base import BaseCommand, CommandError

from stormwater.receivables.bookcheck import check_books
from stormwater.rules.money import fmt_display


def _day(raw: str) -> date:
    try:
        return date.fromisoformat(raw)
    except ValueError:
        raise CommandError(f"--as-of: {raw!r} is not a date (YYYY-MM-DD)") from None


class Command(BaseCommand):
    help = ("Check the books (balances, buckets, due now, bill runs, payments, liens, refunds) and print a trial "
            "balance.")

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
        check = sub.add_parser("check", help="check every invariant of the books; exit 1 listing each break")
        check.add_argument("--as-of", default="", help="the day (YYYY-MM-DD; default today)")
        check.add_argument("--json", action="store_true", help="print one JSON object")
        check.add_argument("--fast", action="store_true",
                           help="set-based checks only (no per-account reference reading)")
        check.add_argument("--record", action="store_true",
                           help="store the result (as the daily sweep does) for the Director's and Collector's home")

    def handle(self, *args, action: str, **o):
        as_of = _day(o["as_of"]) if o["as_of"] else None
        report = check_books(as_of=as_of, reference=not o["fast"])
        if o["record"]:
            from stormwater.receivables.bookcheck import books_check_record

            books_check_record(report=report, source="command", acting_user=None)
        if o["json"]:
            self.stdout.write(json.dumps(report.as_json(), indent=1))
        else:
            self._text(report)
        if not report.clean:
            raise CommandError(f"{len(report.breaks)} break(s) in the books as of {report.as_of}", returncode=1)

    def _text(self, report) -> None:
        w = self.stdout.write
        c = report.counts
        w(f"Books as of {report.as_of}: {c.get('accounts', 0)} accounts, {c.get('entries', 0)} ledger entries, "
          f"{c.get('bills', 0)} live bills, {c.get('bill_runs', 0)} bill runs.")
        w("")
        w("Trial balance by fund and account")
        w(f"{'fund':<6} {'account':<8} {'name':<20} {'debit':>16} {'credit':>16} {'balance':>16}")
        for t in report.trial_balance:
            w(f"{t.fund:<6} {t.account:<8} {t.name:<20} {fmt_display(t.debit):>16} {fmt_display(t.credit):>16} "
              f"{fmt_display(t.balance):>16}")
        dr = sum((t.debit for t in report.trial_balance), 0)
        cr = sum((t.credit for t in report.trial_balance), 0)
        w(f"{'':<6} {'':<8} {'total':<20} {fmt_display(dr):>16} {fmt_display(cr):>16}")
        w("")
        if report.clean:
            w("Clean: every invariant holds.")
            return
        w(f"BROKEN: {len(report.breaks)} break(s)")
        for b in report.breaks:
            w(f"- [{b.check}] {b.line()}")
