"""The proof prepared in the background (issue 15): the bill run page starts it as a job (``stormwater.jobs``,
kind "bill_run" in ``jobs/kinds/billing.py``) and shows its progress live; the worker runs
``bill_run_prepare``, slice by slice. A worker killed mid-way is taken back by the next worker's recovery
(the job queued again), which resumes after the last slice written."""
from __future__ import annotations

from django.db import transaction

from stormwater.jobs.models import FINISHED, Job

from ..models import BillRun, RunState
from .common import BillingError, _locked

KIND = "bill_run"


def preparing_job(run: BillRun) -> Job | None:
    """The job preparing ``run``'s proof now (queued or running), if there is one."""
    from stormwater.jobs.selectors import subject_of

    return (Job.objects.filter(kind=KIND, subject=subject_of(run)).exclude(state__in=FINISHED)
            .order_by("-id").first())


def bill_run_prepare_later(*, run: BillRun, acting_user) -> tuple[Job, bool]:
    """Hand the preparation of ``run``'s proof to the worker → (job, True); or the job already doing it → (it,
    False): a second click, a second tab or a second clerk does not start a second one (two would be harmless —
    they skip each other's slices — but noisy). Refused: the run is not being prepared."""
    from stormwater.jobs.services import job_start

    with transaction.atomic():
        locked = _locked(run)  # two clerks at once: the second finds the first one's job
        if locked is None or locked.state != RunState.PREPARING:
            state = locked.get_state_display().lower() if locked else "gone"
            raise BillingError(f"Run {run.pk} is not being prepared ({state}): nothing to prepare.")
        job = preparing_job(locked)
        if job is not None:
            return job, False
        return job_start(kind=KIND, params={"run": locked.pk}, acting_user=acting_user), True


def gone_run_message(run_id: int) -> str | None:
    """What the job that prepared run ``run_id`` said, when the run is gone (nothing to bill: an empty run is
    removed); None if no such job finished."""
    job = (Job.objects.filter(kind=KIND, subject=f"utility.billrun:{run_id}", state__in=FINISHED)
           .exclude(result=None).order_by("-id").first())
    return (job.result or {}).get("message") if job else None
