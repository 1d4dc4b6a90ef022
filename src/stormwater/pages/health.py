"""What a monitor asks (issue 28; docs/deploy.md "Monitoring").

``/healthz`` — liveness: the web process answers. It touches no database (a restart would not fix one), so a
supervisor restarts the web service only when the process itself is stuck.

``/readyz`` — readiness: everything the town relies on unattended, each check named in the JSON; HTTP 200 when all
pass, 503 naming every one that failed (``"failing": [...]``):

``database``    a connection and ``SELECT 1``
``migrations``  no migration of the installed release left unapplied (``stormwater upgrade``)
``worker``      the job worker's heartbeat (ops.heartbeat, every 30 s) younger than READYZ_WORKER_SECONDS (120)
``backup``      the last successful ``stormwater backup`` younger than READYZ_BACKUP_HOURS (26: nightly + slack)
``daily``       the last successful daily sweep younger than READYZ_DAILY_HOURS (26: each morning + slack)

A window set to 0 turns its check off (a town that backs up by other means). Public like ``/healthz``: no
names, paths or error texts in the answer — only each check's state, ages and limits.
"""
from __future__ import annotations

import functools
from datetime import datetime, timezone

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.http import JsonResponse
from django.views.decorators.cache import never_cache

from stormwater import __version__
from stormwater.accounts.access import public


@public
@never_cache
def healthz(request):
    return JsonResponse({"ok": True, "version": __version__})


def _database() -> dict:
    try:
        with connections[DEFAULT_DB_ALIAS].cursor() as cur:
            cur.execute("SELECT 1")
            cur.fetchone()
    except Exception as e:  # noqa: BLE001 - any failure to reach it is the answer
        connections[DEFAULT_DB_ALIAS].close()
        return {"ok": False, "error": f"unreachable ({type(e).__name__})"}
    return {"ok": True}


@functools.cache
def _release_migrations() -> frozenset:
    """Every migration the installed release has (read from disk once per process: the code does not change under
    a running process; an upgrade restarts it)."""
    from django.db.migrations.loader import MigrationLoader

    loader = MigrationLoader(None, ignore_no_migrations=True)
    replaced = {old for m in loader.replacements.values() for old in m.replaces}
    return frozenset(loader.graph.nodes) - replaced


def _migrations() -> dict:
    from django.db.migrations.recorder import MigrationRecorder

    applied = set(MigrationRecorder(connections[DEFAULT_DB_ALIAS]).applied_migrations())
    pending = [m for m in _release_migrations() if m not in applied]
    out = {"ok": not pending, "pending": len(pending)}
    if pending:
        out["error"] = "migrations not applied: run stormwater upgrade"
    return out


def _age(name: str, at: datetime | None, limit_seconds: int, unit: str) -> dict:
    if not limit_seconds:
        return {"ok": True, "skipped": f"READYZ_{name.upper()}_{unit} is 0"}
    limit = {"limit_seconds": limit_seconds}
    if at is None:
        return {"ok": False, "error": "never ran", **limit}
    age = int((datetime.now(timezone.utc) - at).total_seconds())
    out = {"ok": age <= limit_seconds, "last": at.astimezone(timezone.utc).isoformat(timespec="seconds"),
           "age_seconds": age, **limit}
    if not out["ok"]:
        out["error"] = f"last ran {age} s ago, over the {limit_seconds} s window"
    return out


def _last_daily() -> datetime | None:
    from stormwater.jobs.models import Job, JobState

    job = Job.objects.filter(kind="daily", state=JobState.SUCCEEDED).exclude(finished_at=None) \
        .order_by("-finished_at").only("finished_at").first()
    return job.finished_at if job else None


def readiness() -> dict:
    from stormwater.ops.heartbeat import last

    checks = {"database": _database()}
    if checks["database"]["ok"]:
        checks["migrations"] = _migrations()
    else:
        checks["migrations"] = {"ok": False, "error": "not checked: the database is unreachable"}
    worker, backup = last("worker"), last("backup")
    checks["worker"] = _age("worker", worker and worker["at"], settings.READYZ_WORKER_SECONDS, "SECONDS")
    checks["backup"] = _age("backup", backup and backup["at"], settings.READYZ_BACKUP_HOURS * 3600, "HOURS")
    if checks["database"]["ok"]:
        checks["daily"] = _age("daily", _last_daily(), settings.READYZ_DAILY_HOURS * 3600, "HOURS")
    else:
        checks["daily"] = {"ok": False, "error": "not checked: the database is unreachable"}
    failing = [name for name, c in checks.items() if not c["ok"]]
    return {"ok": not failing, "failing": failing, "version": __version__, "checks": checks}


@public
@never_cache
def readyz(request):
    answer = readiness()
    return JsonResponse(answer, status=200 if answer["ok"] else 503)
