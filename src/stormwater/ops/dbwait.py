"""When the database is unreachable (issue 28): the ``stormwater`` command says so in one line (``describe``), and
the long-running worker waits for it to come back and carries on (``run_waiting_for_database``), instead of a
75-line traceback or an exit that leaves the queue unattended until someone notices."""
from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterable

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.utils import InterfaceError, OperationalError

# Seconds between tries while the database is away: quickly at first (a restart), then once a minute.
WAITS = (1, 2, 5, 10, 30, 60)


def is_unreachable(e: BaseException) -> bool:
    """An error that means the database cannot be reached (not a wrong query)."""
    return isinstance(e, (OperationalError, InterfaceError))


def where() -> str:
    """The database in words, without its password: ``PostgreSQL stormwater on 127.0.0.1:5432`` or the file."""
    db = connections[DEFAULT_DB_ALIAS].settings_dict
    if "sqlite" in db["ENGINE"]:
        return f"SQLite {db['NAME']}"
    return f"PostgreSQL {db.get('NAME')} on {db.get('HOST') or 'localhost'}:{db.get('PORT') or 5432}"


def describe(e: BaseException) -> str:
    """One line for the administrator."""
    reason = (str(e).strip().splitlines() or [type(e).__name__])[0]
    return (f"the database is unreachable ({where()}): {reason}. Is the database server running, and is "
            "DATABASE_URL right? (docs/deploy.md)")


def database_ok() -> bool:
    """True when a connection and ``SELECT 1`` work now (a broken connection is closed for the next try)."""
    conn = connections[DEFAULT_DB_ALIAS]
    try:
        conn.close()
        with conn.cursor() as cur:
            cur.execute("SELECT 1")
        return True
    except Exception:  # noqa: BLE001 - any failure is "not yet"
        try:
            conn.close()
        except Exception:  # noqa: BLE001
            pass
        return False


def run_waiting_for_database(run: Callable[[], object], *, ok: Callable[[], bool] = database_ok,
                             wait: Callable[[float], None] = time.sleep, say: Callable[[str], None] = print,
                             waits: Iterable[float] = WAITS, on_waiting: Callable[[bool], None] = lambda w: None):
    """Call ``run()``; when it fails because the database is unreachable, say so once, wait (``waits``, the last
    repeated) until ``ok()``, say it is back and call ``run()`` again. An error while the database answers is
    not ours to wait out: it is raised. Returns what ``run()`` returns."""
    while True:
        try:
            return run()
        except Exception as e:
            if not is_unreachable(e) or ok():
                raise
            say(describe(e) + " Waiting for it to come back.")
            on_waiting(True)
            delays = itertools.chain(waits, itertools.repeat(list(waits)[-1]))
            tries = 0
            while True:
                wait(next(delays))
                tries += 1
                if ok():
                    break
            on_waiting(False)
            say(f"The database answers again (after {tries} tries); carrying on.")
