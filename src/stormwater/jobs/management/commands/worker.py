"""``stormwater worker``: the job worker in the foreground (what systemd runs; docs/jobs.md, docs/deploy.md).

First it takes back the jobs of workers that died (``kill -9``, a crash, a reboot: jobs.recovery), then it
runs the queue library's worker (django-tasks-db ``db_worker``) on every queue, named ``host:pid`` so that
the next start can tell whether it is gone. SIGTERM/SIGINT: it finishes the job in hand, then stops.

The database going away does not stop it (issue 28): it says so in one line, waits for the database to answer
again and carries on (ops.dbwait). While it runs it beats every 30 s (ops.heartbeat; ``/readyz`` reads it).
"""
import threading

from django.core.management import call_command
from django.core.management.base import BaseCommand

from stormwater.jobs.recovery import jobs_recover
from stormwater.jobs.workers import worker_name
from stormwater.ops.dbwait import run_waiting_for_database
from stormwater.ops.heartbeat import beat

BEAT_SECONDS = 30


class Command(BaseCommand):
    help = "Run the background job worker in the foreground (recovers jobs of dead workers first)."

    def add_arguments(self, parser):
        parser.add_argument("--batch", action="store_true", help="run what is queued, then exit")
        parser.add_argument("--max-tasks", type=int, default=None, help="exit after this many jobs")
        parser.add_argument("--interval", type=float, default=1.0,
                            help="seconds between looks at the queue when it is empty (default 1)")

    def handle(self, *args, batch=False, max_tasks=None, interval=1.0, verbosity=1, **opts):
        me = worker_name()
        waiting, stop = threading.Event(), threading.Event()

        def heart():  # beats while the worker runs and the database answers
            while True:
                if not waiting.is_set():
                    beat("worker", worker=me)
                if stop.wait(BEAT_SECONDS):
                    return

        threading.Thread(target=heart, name="heartbeat", daemon=True).start()
        try:
            run_waiting_for_database(lambda: self._run(me, batch, max_tasks, interval, verbosity),
                                     say=lambda s: self.stderr.write(f"Worker {me}: {s}"),
                                     on_waiting=lambda w: waiting.set() if w else waiting.clear())
        finally:
            stop.set()

    def _run(self, me, batch, max_tasks, interval, verbosity):
        for job in jobs_recover(starting=True):
            self.stdout.write(f"Recovered job {job.pk} ({job.title}): {job.get_state_display().lower()}.")
        # The outbox: messages a dead process was sending are marked unknown, never silently re-sent.
        from stormwater.notices.outbox import outbox_recover

        for n in outbox_recover(starting=True):
            self.stdout.write(f"Notice {n.pk} to {n.to} was being sent when its process died: marked unknown.")
        if verbosity:
            self.stdout.write(f"Worker {me}: waiting for jobs (Ctrl+C stops after the job in hand).")
        call_command("db_worker", queue_name="*", worker_id=me, reload=False, batch=batch, max_tasks=max_tasks,
                     interval=interval, startup_delay=False, verbosity=verbosity)
