"""Print everything a restore must reproduce, as one canonical JSON document (run in the installation's
environment: ``python town_snapshot.py OUT.json``; used by test_backup.py on the source and the restored town).

- every row of every table (models, auto-created many-to-many tables and django_migrations), by primary key;
- every account's balance as the app computes it (utility.selectors.account_balance) on two dates;
- every bill with its installments, every case with its timeline, every audit row (also inside "tables",
  named here so a difference points at what the issue lists);
- every uploaded document's bytes (SHA-256 of the file read through its FileField);
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
    from django.apps import apps
    from django.db.migrations.recorder import MigrationRecorder

    from stormwater.audit.models import AuditEvent
    from stormwater.cases.models import Case, CaseDocument
    from stormwater.portal.codes import verification_code
    from stormwater.utility.models import Account, Bill
    from stormwater.utility.selectors import account_balance

    models = [m for m in apps.get_models(include_auto_created=True) if m._meta.managed and not m._meta.proxy]
    models.append(MigrationRecorder.Migration)
    tables = {}
    for m in sorted(models, key=lambda m: m._meta.db_table):
        fields = [f.attname for f in m._meta.local_concrete_fields]
        tables[m._meta.db_table] = [list(r) for r in m._base_manager.order_by(m._meta.pk.attname).values_list(*fields)]
    accounts = list(Account.objects.order_by("number"))
    return {
        "tables": tables,
        "balances": {a.number: {d: str(account_balance(a, as_of=date.fromisoformat(d)))
                                for d in ("2026-12-31", "2027-06-30")} for a in accounts},
        "bills": [[b.number, str(b.account), [list(i) for i in b.installments.order_by("pk").values_list()]]
                  for b in Bill.objects.order_by("number")],
        "case_timelines": {c.number: [list(e) for e in c.events.order_by("pk").values_list()]
                           for c in Case.objects.order_by("number")},
        "documents": {d.file.name: hashlib.sha256(d.file.open("rb").read()).hexdigest()
                      for d in CaseDocument.objects.order_by("pk")},
        "audit": [list(r) for r in AuditEvent.objects.order_by("pk").values_list()],
        "codes": {a.number: verification_code(a.number) for a in accounts},
    }


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "stormwater.settings")
    import django

    django.setup()
    with open(sys.argv[1], "w") as f:
        json.dump(snapshot(), f, default=_plain, sort_keys=True, indent=0)
