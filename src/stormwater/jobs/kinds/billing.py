"""Jobs on a bill run: e-mail its bills (through the outbox, exactly once). The exports and the print file
are in kinds/exports.py. The bill run itself is the billrun slice's job kind."""
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


@job_kind("bills_email", perm=Perm.BILLING_RUN, label="E-mail the bills", clean=clean_run, subject=run_subject,
          title=lambda p: f"E-mail the bills of bill run {p['run']}")
def bills_email(job):
    from stormwater.receivables.mailing import bill_run_email
    from stormwater.utility.models import BillRun

    return bill_run_email(run=BillRun.objects.get(pk=job.params["run"]), progress=job.progress, log=job.log)
