"""``stormwater bills_email --run N``: e-mail the bills of a run (each bill once, ever), as a background job
run here in the foreground (it shows on /jobs/ with its log); ``--enqueue`` hands it to the worker instead.
Prints JSON: queued, no_address, already_sent, sent, failed, unknown (or the job's id with --enqueue)."""
import json

from django.core.management.base import BaseCommand, CommandError

from stormwater.jobs.registry import JobParamError
from stormwater.jobs.services import job_execute, job_start


class Command(BaseCommand):
    help = "Email the bills of a bill run to owners with an address on file (each bill once). Prints JSON."

    def add_arguments(self, parser):
        parser.add_argument("--run", type=int, required=True, help="bill run id")
        parser.add_argument("--enqueue", action="store_true", help="hand it to the worker; print the job id")

    def handle(self, *args, **opts):
        try:
            job = job_start(kind="bills_email", params={"run": opts["run"]}, acting_user=None, enqueue=opts["enqueue"])
        except JobParamError as e:
            raise CommandError(str(e)) from None
        if opts["enqueue"]:
            self.stdout.write(json.dumps({"job": job.pk, "state": job.state}))
            return
        try:
            job = job_execute(job_id=job.pk)
        except Exception as e:  # noqa: BLE001 - recorded on the job; the command says it plainly
            raise CommandError(f"job {job.pk} failed: {job.__class__.objects.get(pk=job.pk).error or e}") from None
        self.stdout.write(json.dumps(job.result))
