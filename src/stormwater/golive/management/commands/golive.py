"""``stormwater golive <subcommand>``: bringing the town's open books in from the system it leaves (issue 32).

    stormwater golive balances FILE --as-of DATE [--control FILE] [--map TARGET=COLUMN …]
                                  [--apply [--accept-differences]] [--json]
        The old system's open bills, installments and credit balances (CSV or .xlsx; docs/golive.md). A dry run by
        default: the control totals beside what the conversion creates, by fiscal year and bucket, and the aging as
        of the cut-over. ``--apply`` writes, only when every bucket agrees to the cent (or, with
        ``--accept-differences``, each difference listed is accepted and recorded). Exit 1 with every refused row
        and field on stderr; nothing changed.
    stormwater golive cases FILE [--kind credits|abatements|permits|construction|sites] [--apply]
        The old office's open cases with their real dates (JSON; docs/golive.md): ``credits`` (the default: parcel_id,
        credit_type, percent, granted_on[, filed_on, accepted_on, recertify_by, status, appeal_filed_on, notice_sent_on,
        hearing_on]) as credit cases and their appeals; ``abatements`` (account
        or parcel_id, bill_number, issue_date, bill_amount, filed_on, status[, decided_on, amount_granted,
        appeal_filed_on, notice_sent_on, hearing_on …]) as abatement cases and their Select Board appeals; ``permits``
        (parcel_id, status, filed_on[, incomplete_on, cure_by, items_received_on, complete_on, info_requested_on,
        info_received_on, decided_on …]) as permit files moved through the permits domain's acts on those days;
        ``construction`` (permit, opened_on[, meeting_on, pre_start_inspection_on, started_on, last_inspection_on,
        last_inspection_kind, last_inspection_result, frequency, sensitive_waters …]) as construction files with their
        inspections, so the next erosion-control inspection is due as the old dates imply; ``sites`` (permit or
        parcel_id, plan_recorded_on, book and page or document_number[, earlier_certifications_on,
        last_certification_on …]) as O&M sites with the recorded plan and the annual certifications received.
    stormwater golive parallel RUN_ID REGISTER
        The parallel run: a bill run (or its proof) against the old system's bill register for the same period
        (account or parcel_id, amount[, bill_number]); per-account differences as JSON.
"""
from __future__ import annotations

import json
from datetime import date
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from stormwater.imports.pipeline import ImportRefused


# ``golive cases --kind``: each kind of open case and its converter (same file reading, refusals and re-run rule).
CASE_KINDS = {"credits": "stormwater.golive.cases.credits_convert",
              "abatements": "stormwater.golive.relief_cases.abatements_convert",
              "permits": "stormwater.golive.permit_cases.permits_convert",
              "construction": "stormwater.golive.construction_cases.construction_convert",
              "sites": "stormwater.golive.site_cases.sites_convert"}


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise CommandError(f"--as-of {text!r}: a date, YYYY-MM-DD") from None


class Command(BaseCommand):
    help = "Go-live (issue 32): convert the old system's open balances, reconciled to its control totals."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        p = sub.add_parser("balances", help="open bills, installments and credit balances of the old system")
        p.add_argument("path", metavar="FILE")
        p.add_argument("--as-of", required=True, help="the cut-over date (YYYY-MM-DD)")
        p.add_argument("--control", metavar="FILE", help="the old system's control totals (CSV/.xlsx: fiscal_year, "
                                                         "principal, interest, demand, liens, credits, accounts)")
        p.add_argument("--map", action="append", default=[], metavar="TARGET=COLUMN",
                       help="the file's column for a target (account, bill_number, due_date …) when its name differs")
        p.add_argument("--apply", action="store_true", help="write (default: a dry run)")
        p.add_argument("--accept-differences", action="store_true",
                       help="apply although the control totals differ: each difference is listed and recorded")
        p.add_argument("--json", action="store_true", help="the report as JSON")
        p = sub.add_parser("cases", help="open cases of the old office: credits in force, open abatements and their "
                                         "appeals, permit and construction files, O&M sites (docs/golive.md)")
        p.add_argument("path", metavar="FILE")
        p.add_argument("--kind", choices=sorted(CASE_KINDS), default="credits",
                       help="what the file holds (default: credits)")
        p.add_argument("--apply", action="store_true", help="write (default: a dry run)")
        p = sub.add_parser("parallel", help="a bill run (or its proof) against the old system's bill register")
        p.add_argument("run", type=int, metavar="RUN_ID")
        p.add_argument("path", metavar="REGISTER")

    def handle(self, *args, **o):
        return getattr(self, "do_" + o["action"])(o)

    def do_balances(self, o):
        from stormwater.golive.balances import balances_convert

        path = Path(o["path"])
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        control = Path(o["control"]) if o.get("control") else None
        if control and not control.is_file():
            raise CommandError(f"{control}: no such file")
        mapping = {}
        for m in o["map"]:
            target, sep, col = m.partition("=")
            if not sep or not target.strip() or not col.strip():
                raise CommandError(f"--map {m!r}: use TARGET=COLUMN")
            mapping[target.strip()] = col.strip()
        try:
            res = balances_convert(path=path, as_of=_day(o["as_of"]), control_path=control, mapping=mapping,
                                   apply=o["apply"], accept_differences=o["accept_differences"], acting_user=None)
        except ImportRefused as e:
            for p in e.problems:
                if p.severity == "error":
                    self.stderr.write("  " + p.summary(max_ids=50))
            raise CommandError(str(e)[:2000]) from None
        if o["json"]:
            self.stdout.write(json.dumps(res.as_json(), indent=2))
            return
        self.stdout.write(render_text(res))


    def do_cases(self, o):
        from django.utils.module_loading import import_string

        path = Path(o["path"])
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        convert = import_string(CASE_KINDS[o["kind"]])
        try:
            res = convert(path=path, acting_user=None, apply=o["apply"])
        except ImportRefused as e:
            for p in e.problems:
                if p.severity == "error":
                    self.stderr.write("  " + p.summary(max_ids=50))
            raise CommandError(str(e)[:2000]) from None
        self.stdout.write(json.dumps(res.as_json(), indent=2))

    def do_parallel(self, o):
        from stormwater.golive.parallel import parallel_run
        from stormwater.utility.models import BillRun

        run = BillRun.objects.filter(pk=o["run"]).first()
        if run is None:
            raise CommandError(f"no bill run {o['run']}")
        path = Path(o["path"])
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        try:
            res = parallel_run(run=run, path=path)
        except ImportRefused as e:
            for p in e.problems:
                if p.severity == "error":
                    self.stderr.write("  " + p.summary(max_ids=50))
            raise CommandError(str(e)[:2000]) from None
        self.stdout.write(json.dumps(res.as_json(), indent=2))


def render_text(res) -> str:
    """The dry run's (or the apply's) report as the Collector reads it on a terminal."""
    from stormwater.golive.export import BUCKETS

    lines = [f"{res.source}: {res.rows} rows, cut-over {res.as_of} — "
             + ("APPLIED" if res.applied else "dry run, nothing written")]
    lines.append("created: " + ", ".join(f"{k} {v}" for k, v in res.created.items())
                 + f"; unchanged (converted before): {res.unchanged}")
    lines.append("")
    lines.append(f"{'fiscal year':<14}{'bucket':<11}{'old system':>16}{'converted':>16}")
    for k in sorted(set(res.control) | set(res.converted)):
        c, v = res.control.get(k, {}), res.converted.get(k, {})
        for b in BUCKETS:
            mark = "" if str(c.get(b, "—")) == str(v.get(b, "—")) else "  ≠"
            lines.append(f"{k or 'no FY':<14}{b:<11}{str(c.get(b, '—')):>16}{str(v.get(b, '—')):>16}{mark}")
    lines.append("")
    if not res.control:
        lines.append("No control totals given: --control FILE is needed to apply.")
    elif res.differences:
        lines.append(f"{len(res.differences)} difference(s)" + (" ACCEPTED" if res.accepted else
                                                                  ": --apply refuses unless --accept-differences"))
    else:
        lines.append("The control totals agree to the cent.")
    lines.append("Aging of these accounts as of the cut-over: "
                 + ", ".join(f"{k} {v}" for k, v in res.aging.items()))
    for p in res.problems:
        lines.append("  " + p.summary())
    return "\n".join(lines)
