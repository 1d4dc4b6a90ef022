"""Give the demo town rows in the tables the later slices added, through their own services, so that the
backup round trip (test_backup.py) has something to carry in each (run in the installation's environment:
``python town_more.py``; the demo_town fixture then runs ``stormwater token issue`` and ``stormwater worker
--batch`` on it as an administrator would):

- accounts (issue 14, people): the Collector enrolled in two-factor sign-in — a confirmed TOTP device
  (django-otp ``otp_totp_totpdevice``) and ten recovery codes (``otp_static_staticdevice``/``statictoken``)
  (not the Director, whom tests/ops/test_serve.py signs in with the demo password alone);
- jobs (issue 15): two bill-run exports started by the Director — queued here (``jobs_job`` and the queue
  library's ``django_tasks_database_dbtaskresult``); the worker then runs them (log lines, progress, the
  files under media/jobs/);
- notices: the outbox already holds the demo's e-mailed notices with their PDF attachments (demo_load).
"""
from __future__ import annotations

import os

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "stormwater.settings")
    import django

    django.setup()

    from django_otp.oath import totp

    from stormwater.accounts.models import User
    from stormwater.accounts.twofactor import totp_device_confirm, totp_device_pending
    from stormwater.jobs.services import job_start
    from stormwater.utility.models import BillRun

    director, collector = User.objects.get(username="director"), User.objects.get(username="collector")
    device = totp_device_pending(user=collector)
    code = f"{totp(device.bin_key, step=device.step, t0=device.t0, digits=device.digits):06d}"
    totp_device_confirm(user=collector, token=code, acting_user=collector)
    run = BillRun.objects.order_by("pk").first()
    for fmt in ("csv", "xlsx"):
        job_start(kind="bill_run_export", params={"run": run.pk, "format": fmt}, acting_user=director)
