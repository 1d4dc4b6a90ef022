import json
from datetime import date

from django.core.management.base import BaseCommand, CommandError

from stormwater.utility.models import BillRun, RunState
from stormwater.utility.services import (BillingError, bill_run_approve, bill_run_discard, bill_run_issue,
                                         bill_run_prepare, bill_run_prepare_later, bill_run_start, bill_run_void,
                                         fiscal_year)


class Command(BaseCommand):
    help = ("Issue the bill run of a fiscal year in one step (idempotent: accounts already billed are skipped), or "
            "with --proof prepare its proof for approval (--enqueue: as a background job); --approve/--void/--discard "
            "RUN act on a run. Prints JSON. "
            "Run from the command line, the acts are the system's (audited as such).")

    def add_arguments(self, parser):
        parser.add_argument("--fiscal-year", type=int, help="e.g. 2027 for July 2026–June 2027")
        parser.add_argument("--issue-date", type=date.fromisoformat, default=date.today())
        parser.add_argument("--proof", action="store_true",
                            help="prepare the proof only (a Collector or the Director approves it later)")
        parser.add_argument("--enqueue", action="store_true",
                            help="with --proof: hand the preparation to the worker (a job); print the run and job ids")
        parser.add_argument("--approve", type=int, metavar="RUN", help="approve run RUN's proof: issue it")
        parser.add_argument("--void", type=int, metavar="RUN", help="void issued run RUN (before mailing)")
        parser.add_argument("--discard", type=int, metavar="RUN", help="discard run RUN's proof")
        parser.add_argument("--reason", default="", help="why (required with --void)")

    def handle(self, *args, **opts):
        acts = [k for k in ("approve", "void", "discard") if opts[k] is not None]
        if len(acts) > 1 or (acts and opts["proof"]):
            raise CommandError("give one of --proof, --approve, --void, --discard")
        if opts["enqueue"] and not opts["proof"]:
            raise CommandError("--enqueue goes with --proof (the proof is prepared in the background)")
        try:
            if acts:
                out = self._act(acts[0], opts)
            else:
                if opts["fiscal_year"] is None:
                    raise CommandError("--fiscal-year is required (e.g. 2027)")
                label, start, end = fiscal_year(opts["fiscal_year"])
                kw = dict(period_label=label, period_start=start, period_end=end, issue_date=opts["issue_date"],
                          acting_user=None)
                if opts["proof"]:
                    run, _ = bill_run_start(**kw)
                    if opts["enqueue"] and run.state == RunState.PREPARING:
                        job, _ = bill_run_prepare_later(run=run, acting_user=None)
                        out = {"run_id": run.pk, "state": run.state, "job": job.pk, "job_state": job.state}
                    else:
                        out = bill_run_prepare(run=run).as_json()
                else:
                    out = bill_run_issue(**kw).as_json()
        except BillingError as e:
            raise CommandError(str(e)) from None
        self.stdout.write(json.dumps(out, indent=2))

    def _act(self, act: str, opts) -> dict:
        try:
            run = BillRun.objects.get(pk=opts[act])
        except BillRun.DoesNotExist:
            raise CommandError(f"--{act}: there is no bill run {opts[act]}") from None
        if act == "approve":
            return bill_run_approve(run=run, acting_user=None).as_json()
        if act == "void":
            run = bill_run_void(run=run, reason=opts["reason"], acting_user=None)
        else:
            run = bill_run_discard(run=run, reason=opts["reason"], acting_user=None)
        return {"run_id": run.pk, "state": run.state}
