"""``stormwater serve``: the production web server (gunicorn) on the data folder's settings.

Before gunicorn starts: the settings (``.env``, the data folder, production's refusals) were checked when
they loaded; here the database must answer and have every migration applied, and the static files are
collected into ``$STORMWATER_DATA_DIR/static``. Then this process becomes gunicorn (same process id, so a
systemd unit watches gunicorn itself). Binds 127.0.0.1:8000 by default: put a reverse proxy (nginx, HTTPS)
in front (docs/deploy.md).
"""
from __future__ import annotations

import os
import sys

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError, connections

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
DEFAULT_TIMEOUT = 120  # seconds a request may take (bulk PDFs and e-mails are background jobs)


def default_workers() -> int:
    """``WEB_CONCURRENCY`` if set, else gunicorn's rule of thumb 2 × CPUs + 1, at most 8."""
    raw = os.environ.get("WEB_CONCURRENCY", "").strip()
    if raw:
        try:
            return max(1, int(raw))
        except ValueError:
            raise CommandError(f"WEB_CONCURRENCY={raw!r}: expected a whole number") from None
    return min(2 * (os.cpu_count() or 1) + 1, 8)


def pending_migrations() -> list[str]:
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connections["default"])
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    return [f"{m.app_label}.{m.name}" for m, _backwards in plan]


def gunicorn_argv(*, host: str, port: int, workers: int, timeout: int) -> list[str]:
    bind = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    return [sys.executable, "-m", "gunicorn", "--config", "python:stormwater.ops.gunicorn_conf",
            "--bind", bind, "--workers", str(workers), "--timeout", str(timeout), "stormwater.wsgi:application"]


class Command(BaseCommand):
    help = ("Serve the web app with gunicorn (production). Checks the database and migrations, collects the "
            "static files into the data folder, then runs gunicorn on HOST:PORT (default 127.0.0.1:8000).")
    requires_system_checks = []  # run below, once, with the database answering

    def add_arguments(self, parser):
        parser.add_argument("--host", default=os.environ.get("STORMWATER_HOST", DEFAULT_HOST),
                            help="address to listen on (default 127.0.0.1: only the reverse proxy on this machine)")
        parser.add_argument("--port", type=int, default=int(os.environ.get("STORMWATER_PORT", DEFAULT_PORT)),
                            help="port (default 8000; 0 = any free port, printed by gunicorn)")
        parser.add_argument("--bind", metavar="HOST:PORT",
                            help="gunicorn's form of --host and --port together (e.g. 127.0.0.1:8000)")
        parser.add_argument("--workers", type=int, default=None,
                            help="worker processes (default: WEB_CONCURRENCY, else 2 × CPUs + 1, at most 8)")
        parser.add_argument("--timeout", type=int, default=DEFAULT_TIMEOUT,
                            help=f"seconds before a stuck request's worker is restarted (default {DEFAULT_TIMEOUT})")
        parser.add_argument("--check", action="store_true",
                            help="run every start-up check, collect static files, print the gunicorn command, exit")

    def handle(self, *args, **o):
        workers = o["workers"] if o["workers"] is not None else default_workers()
        if o["bind"]:
            host, sep, port = o["bind"].rpartition(":")
            if not sep or not port.isdigit():
                raise CommandError(f"--bind {o['bind']!r}: use HOST:PORT, e.g. 127.0.0.1:8000")
            o["host"], o["port"] = host.strip("[]"), int(port)
        if workers < 1 or o["timeout"] < 1 or not 0 <= o["port"] <= 65535:
            raise CommandError("--workers and --timeout must be at least 1, --port 0–65535")
        try:
            pending = pending_migrations()
        except DatabaseError as e:
            raise CommandError(f"cannot reach the database: {str(e).strip()} "
                               f"(check DATABASE_URL, or the data folder {settings.DATA_DIR})") from None
        if pending:
            raise CommandError(f"{len(pending)} database migration(s) not applied ({', '.join(pending[:3])}"
                               f"{' …' if len(pending) > 3 else ''}): run `stormwater migrate` first")
        call_command("check", deploy=settings.PRODUCTION, fail_level="ERROR", stdout=self.stderr)
        call_command("collectstatic", interactive=False, verbosity=0)
        self.stderr.write(f"static files collected in {settings.STATIC_ROOT}")
        argv = gunicorn_argv(host=o["host"], port=o["port"], workers=workers, timeout=o["timeout"])
        if o["check"]:
            self.stdout.write(" ".join(argv))
            return
        connections.close_all()
        sys.stdout.flush()
        sys.stderr.flush()
        os.execv(argv[0], argv)
