"""Jobs on a bill run: e-mail its bills (through the outbox, exactly once). The exports and the print file
are in kinds/exports.py; the proof of a bill run (its preparation) is the job kind "bill_run" below."""
from __future__ import annotations

from stormwater.accounts.roles import Perm
from stormwater.jobs.registry import JobParamError, int_param, job_kind, only_params


def clean_run(params: dict) -> dict:
    from stormwater.utility.models import BillRun

    only_params(params, {"run"})
    run = int_param(params, "run")
    if not BillRun.objects.filter(pk=run).exists():
        raise JobParamError(f"run: there is no bill run {run}")
    return {"run": run}


def run_subject(params: dict) -> str:
    return f"utility.billrun:{params['run']}"


def run_withdrawn(params: dict) -> str:
    """Why a file made from a bill run may no longer be downloaded: the run was voided since (issue 25)."""
    from stormwater.utility.models import BillRun, RunState

    run = BillRun.objects.filter(pk=params.get("run")).first()
    if run is None or run.state != RunState.VOIDED:
        return ""
    when = f" on {run.voided_at:%B %-d, %Y}" if run.voided_at else ""
    return (f"Withdrawn: bill run {run.pk} ({run.period_label}) was voided{when} and its charges reversed. Its bills "
            "must not be printed or mailed; this file is no longer available.")


def bills_email_confirmation(params: dict):
    """What e-mailing a run's bills will do: how many bills go to how many addresses, for how much (issue 25)."""
    from django.db.models import Q, Sum
    from django.urls import reverse

    from stormwater.rules.money import ZERO, fmt_usd
    from stormwater.utility.models import Bill, BillRun
    from stormwater.web.confirm import Confirmation

    run = BillRun.objects.get(pk=params["run"])
    with_address = Bill.objects.filter(run=run).filter(
        Q(account__unit__isnull=False, account__unit__owner__email__gt="")
        | Q(account__unit__isnull=True, account__parcel__owner__email__gt=""))
    agg = with_address.aggregate(total=Sum("amount"))
    n = with_address.count()
    return Confirmation(
        title=f"e-mail the bills of bill run {run.pk} ({run.period_label})", count=n, amount=agg["total"] or ZERO,
        button=f"E-mail {n:,} bills", back_url=reverse("bill_run_detail", args=[run.pk]),
        lines=[("Bills e-mailed (owners with an address on file)", f"{n:,}"),
               ("Their total", fmt_usd(agg["total"] or ZERO)), ("Bills of the run", f"{run.bill_count:,}")],
        what=["Each bill goes once, as a PDF, to its owner's address; a bill already sent is not sent again. An "
              "e-mail cannot be called back."])


@job_kind("bills_email", perm=Perm.BILLING_RUN, label="E-mail the bills", clean=clean_run, subject=run_subject,
          title=lambda p: f"E-mail the bills of bill run {p['run']}", confirm=bills_email_confirmation)
def bills_email(job):
    from stormwater.receivables.mailing import bill_run_email
    from stormwater.utility.models import BillRun

    return bill_run_email(run=BillRun.objects.get(pk=job.params["run"]), progress=job.progress, log=job.log)


def clean_preparing_run(params: dict) -> dict:
    """A run whose proof is being prepared (a new one, or one whose preparation stopped half-way)."""
    from stormwater.utility.models import BillRun, RunState

    params = clean_run(params)
    run = BillRun.objects.get(pk=params["run"])
    if run.state != RunState.PREPARING:
        raise JobParamError(f"run: bill run {run.pk} is not being prepared ({run.get_state_display().lower()})")
    return params


@job_kind("bill_run", perm=Perm.BILLING_RUN, label="Prepare the proof", clean=clean_preparing_run,
          subject=run_subject, title=lambda p: f"Prepare the proof of bill run {p['run']}")
def bill_run_proof(job):
    """The bill run's proof (issue 15, 16): every parcel's bill computed and written slice by slice, each slice its
    own short transaction (utility.billrun.prepare). Killed mid-way, the re-run (the worker's recovery, or the
    page's "Continue preparing") resumes after the last slice written and ends with the one proof an
    uninterrupted run makes. Progress is parcels done of the town's parcels."""
    from stormwater.rules.money import fmt
    from stormwater.utility.billrun import bill_run_prepare
    from stormwater.utility.models import BillRun

    run = BillRun.objects.get(pk=job.params["run"])
    r = bill_run_prepare(run=run, acting_user=job.started_by, progress=job.progress, log=job.log)
    return {"run_id": r.run.pk if r.run else None, "state": r.run.state if r.run else None, "bills": r.bills,
            "total": fmt(r.total), "already_billed": r.already_billed, "exempt": r.exempt, "no_fee": r.no_fee,
            "problems": len(r.problems), "message": r.message}
