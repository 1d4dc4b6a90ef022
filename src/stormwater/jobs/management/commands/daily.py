"""``stormwater daily``: the daily sweeps (reminders, clocks, the outbox; jobs/kinds/daily.py) as a job run
here in the foreground, once a day (a second run the same day says so and does nothing, unless --force);
``--enqueue`` hands it to the worker. Prints the result as JSON. A systemd timer or cron runs it each morning
(docs/deploy.md)."""
import json

from django.core.management.base import BaseCommand, CommandError

from stormwater.jobs.models import Job, JobState
from stormwater.jobs.registry import JobParamError
from stormwater.jobs.services import job_execute, job_start


class Command(BaseCommand):
    help = "Run the daily sweeps (reminders, clock lists, the outbox) as a job. Prints JSON."

    def add_arguments(self, parser):
        parser.add_argument("--day", default="", help="YYYY-MM-DD (default: today)")
        parser.add_argument("--enqueue", action="store_true", help="hand it to the worker; print the job id")
        parser.add_argument("--force", action="store_true", help="run even if it already ran for this day")

    def handle(self, *args, day="", enqueue=False, force=False, **opts):
        from stormwater.jobs.kinds.daily import clean_daily

        try:
            params = clean_daily({"day": day} if day else {})
        except JobParamError as e:
            raise CommandError(str(e)) from None
        done = Job.objects.filter(kind="daily", params__day=params["day"], state=JobState.SUCCEEDED).first()
        if done and not force:
            self.stdout.write(json.dumps({"skipped": f"the daily sweep of {params['day']} ran already (job {done.pk})",
                                          "job": done.pk}))
            return
        job = job_start(kind="daily", params=params, acting_user=None, enqueue=enqueue)
        if enqueue:
            self.stdout.write(json.dumps({"job": job.pk, "state": job.state}))
            return
        try:
            job = job_execute(job_id=job.pk)
        except Exception as e:  # noqa: BLE001 - recorded on the job; the command says it plainly
            raise CommandError(f"job {job.pk} failed: {Job.objects.get(pk=job.pk).error or e}") from None
        self.stdout.write(json.dumps({"job": job.pk, **job.result}))
