"""The daily sweep (``stormwater daily``, a systemd timer or cron each morning; docs/jobs.md):

1. jobs whose worker died are queued again (jobs.recovery), notices a dead process was sending → unknown;
2. the outbox: notices left queued by a process that died after its commit are sent, failed ones retried;
3. annual O&M certification reminders, each once (Ch. 380 § 380-14 C(2)(l); stewardship_reminders);
4. the permit clocks past due (Ch. 380 § 380-10; permit_clocks --overdue) and
5. the Town's relief deadlines missed (Ch. 295 Art. IV; relief_clocks --missed), written to the job's log
   for the morning list;
6. the double-submission guard's old tokens purged (web/services.py::submit_tokens_purge; TownConfig
   ``submit_token_keep_days``);
7. the books checked (``receivables/bookcheck.py``, as ``stormwater books check``) and the result kept: a break is on
   the Director's and the Collector's home until a later check is clean (issue 25).
Run again the same day it sends nothing twice (reminders and notices are each recorded once)."""
from __future__ import annotations

import io
import json
from datetime import date

from django.core.management import call_command

from stormwater.accounts.roles import Perm
from stormwater.jobs.registry import JobParamError, job_kind, only_params

STEPS = 7


def clean_daily(params: dict) -> dict:
    from django.utils import timezone

    only_params(params, {"day"})
    raw = params.get("day") or timezone.localdate().isoformat()
    try:
        return {"day": date.fromisoformat(str(raw)).isoformat()}
    except ValueError:
        raise JobParamError(f"day: {raw!r} is not a date (YYYY-MM-DD)") from None


def _command_json(name: str, *args: str) -> dict:
    out = io.StringIO()
    call_command(name, *args, "--json", stdout=out)
    return json.loads(out.getvalue())


@job_kind("daily", perm=Perm.AUDIT_VIEW, label="Run the daily sweep now", clean=clean_daily,
          title=lambda p: f"Daily sweep {p['day']}")
def daily(job):
    from stormwater.jobs.recovery import jobs_recover
    from stormwater.notices.outbox import outbox_send_pending
    from stormwater.receivables.bookcheck import books_check_record, check_books
    from stormwater.stewardship.services import certification_reminders_send
    from stormwater.web.services import submit_tokens_purge

    day = date.fromisoformat(job.params["day"])
    job.progress(0, STEPS)
    recovered = [j for j in jobs_recover() if j.pk != job.pk]
    job.log(f"Jobs of stopped workers taken back: {len(recovered)}.")
    job.progress(1, STEPS)
    outbox = outbox_send_pending()
    job.log(f"Outbox: {outbox}.")
    job.progress(2, STEPS)
    reminders = certification_reminders_send(today=day)
    for r in reminders:
        job.log(f"O&M certification reminder ({r.kind}): {r.plan.site.name}, year {r.seq} → {r.to or 'no e-mail: print'}")
    job.progress(3, STEPS)
    permits = _command_json("permit_clocks", "--overdue", "--as-of", day.isoformat())["clocks"]
    for c in permits:
        job.log(f"Permit clock past due: {c['case']} {c['label']} ({c['citation']}) due {c['due']}")
    job.progress(4, STEPS)
    relief = _command_json("relief_clocks", "--missed", "--as-of", day.isoformat())["clocks"]
    for c in relief:
        job.log(f"Relief deadline MISSED: {c['case']} {c['label']} ({c['citation']}) due {c['due']}")
    job.progress(5, STEPS)
    tokens = submit_tokens_purge()
    job.log(f"Double-submission tokens purged: {tokens}.")
    job.progress(6, STEPS)
    books = check_books(as_of=day)
    books_check_record(report=books, source="daily", job_id=job.pk, acting_user=None)
    job.log("Books: clean." if books.clean else f"Books: {len(books.breaks)} break(s).")
    for b in books.breaks:
        job.log(f"Books break [{b.check}] {b.line()}")
    job.progress(7, STEPS)
    return {"day": day.isoformat(), "jobs_recovered": len(recovered), "outbox": outbox,
            "certification_reminders": len(reminders), "permit_clocks_overdue": len(permits),
            "relief_deadlines_missed": len(relief), "submit_tokens_purged": tokens,
            "books_clean": books.clean, "books_breaks": len(books.breaks)}
