"""Print everything a restore must reproduce, as one canonical JSON document (run in the installation's
environment: ``python town_snapshot.py OUT.json``; used by test_backup.py on the source and the restored town).

- every row of every table (models, auto-created many-to-many tables and django_migrations), by primary key;
- every account's balance as the app computes it (receivables.owed: Due now) on two dates;
- every bill with its installments, every case with its timeline, every audit row (also inside "tables",
  named here so a difference points at what the issue lists);
- every uploaded document's bytes (SHA-256 of the file read through its FileField), and every other file of
  the uploads folder (the jobs' files, the outbox's attachments) by path and SHA-256;
- the rows of the tables the later slices added, named: two-factor devices and recovery codes, jobs with their
  log lines, the job queue, API tokens, the e-mail outbox;
- the sign-up verification code of every account (proves the SECRET_KEY came along).
"""
from __future__ import annotations

import base64
import hashlib
import json
import os
import sys
from datetime import date, datetime, time
from decimal import Decimal
from uuid import UUID


# The tables of the slices that landed after backup/restore was written (auth, jobs, notices outbox, api).
LATER_SLICE_TABLES = ("otp_totp_totpdevice", "otp_static_staticdevice", "otp_static_statictoken", "jobs_job",
                      "jobs_joblogline", "django_tasks_database_dbtaskresult", "api_apitoken", "notices_noticesent")


def _plain(v):
    if isinstance(v, Decimal):
        return str(v)
    if isinstance(v, (datetime, date, time)):
        return v.isoformat()
    if isinstance(v, (bytes, memoryview)):
        return base64.b64encode(bytes(v)).decode()
    if isinstance(v, UUID):
        return str(v)
    raise TypeError(type(v))


def snapshot() -> dict:
    from pathlib import Path

    from django.apps import apps
    from django.conf import settings
    from django.db.migrations.recorder import MigrationRecorder

    from stormwater.audit.models import AuditEvent
    from stormwater.cases.models import Case, CaseDocument
    from stormwater.portal.codes import verification_code
    from stormwater.utility.models import Account, Bill
    from stormwater.receivables.owed import owed

    models = [m for m in apps.get_models(include_auto_created=True) if m._meta.managed and not m._meta.proxy]
    models.append(MigrationRecorder.Migration)
    tables = {}
    for m in sorted(models, key=lambda m: m._meta.db_table):
        fields = [f.attname for f in m._meta.local_concrete_fields]
        tables[m._meta.db_table] = [list(r) for r in m._base_manager.order_by(m._meta.pk.attname).values_list(*fields)]
    accounts = list(Account.objects.order_by("number"))
    media = Path(settings.MEDIA_ROOT)
    return {
        "tables": tables,
        "balances": {a.number: {d: str(owed(a, as_of=date.fromisoformat(d)).due_now)
                                for d in ("2026-12-31", "2027-06-30")} for a in accounts},
        "bills": [[b.number, str(b.account), [list(i) for i in b.installments.order_by("pk").values_list()]]
                  for b in Bill.objects.order_by("number")],
        "case_timelines": {c.number: [list(e) for e in c.events.order_by("pk").values_list()]
                           for c in Case.objects.order_by("number")},
        "documents": {d.file.name: hashlib.sha256(d.file.open("rb").read()).hexdigest()
                      for d in CaseDocument.objects.order_by("pk")},
        "audit": [list(r) for r in AuditEvent.objects.order_by("pk").values_list()],
        "codes": {a.number: verification_code(a.number) for a in accounts},
        "media": {p.relative_to(media).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
                  for p in sorted(media.rglob("*")) if p.is_file()},
        "later_slices": {t: tables[t] for t in LATER_SLICE_TABLES},
    }


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "stormwater.settings")
    import django

    django.setup()
    with open(sys.argv[1], "w") as f:
        json.dump(snapshot(), f, default=_plain, sort_keys=True, indent=0)
