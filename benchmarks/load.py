"""Load test (issue 15): 50 concurrent users on loopback against the production server and against
``runserver``, on the demo town; p50/p95 per request kind and overall.

    .venv/bin/python benchmarks/load.py [--users 50] [--seconds 30] [--warmup 15] [--port 8221] [--workers N]
    bin/pg-temp .venv/bin/python benchmarks/load.py --postgres         # the town in PostgreSQL (DATABASE_URL)

The mix (weights): public parcel pages ``/portal/parcels/<id>/`` (4), staff parcel pages
``/parcels/<id>/`` signed in as the demo ``staff`` user (3), the bill run page ``/bill-runs/<id>/`` (1),
``POST /api/calc/fee`` (2). Users wait 0.5–1.5 s between requests (people, not a flood), all 50 start at
once. Bounded: each run stops after ``--warmup`` + ``--seconds``; only 127.0.0.1 is ever addressed.

The data folder is a fresh temporary one (migrated, ``demo_load``; ``--data DIR`` to use another, e.g. one
already migrated). The production server is ``stormwater serve`` when the deploy work provides it, else
gunicorn on ``stormwater.wsgi`` directly (``--workers``, default 2 × cores + 1). The figure to watch is the
ratio of the two servers' p95 measured in the same run on the same machine; no test asserts a time.

Correctness (exit 1 when it fails): every request, the warm-up's included, answered as asked — a page with
status 200 (a redirect to the sign-in page is a failure) showing the parcel or run asked for, a fee with its
``annual_fee`` — and each server answering in the measured window. ``--users 3 --seconds 2 --warmup 1`` is
the smoke run of the test suite (tests/benchmarks).
"""
from __future__ import annotations

import argparse
import http.client
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gevent import monkey

monkey.patch_all()

import gevent  # noqa: E402
from locust import HttpUser, between, task  # noqa: E402
from locust.env import Environment  # noqa: E402

BIN = Path(sys.executable).parent
STORMWATER = str(BIN / "stormwater")
PARCELS: list[str] = []
RUN_ID = "1"
SESSION = ""
FEE_BODIES = [{"property_class": "nonresidential", "impervious_sqft": n} for n in (5_000, 40_000, 200_000)] + [
    {"property_class": "small_residential"}, {"property_class": "large_residential", "impervious_sqft": 12_000}]


class Town(HttpUser):
    wait_time = between(0.5, 1.5)

    def on_start(self):
        # Signed in as the demo staff user by a session made beforehand (50 password hashings at once would
        # measure PBKDF2, not the pages); the public pages are the same with or without it.
        self.client.cookies.set("sessionid", SESSION, domain="127.0.0.1")

    # Each answer is checked, not only its status: a page answered 200 is the page asked for (a staff page that
    # redirected to the sign-in page would be a 302 here: redirects are not followed), the fee a fee.
    def _get(self, path: str, name: str, must_contain: str):
        with self.client.get(path, name=name, allow_redirects=False, catch_response=True) as r:
            if r.status_code != 200:
                r.failure(f"{r.status_code} for {path}")
            elif must_contain not in r.text:
                r.failure(f"{path}: {must_contain!r} not on the page")

    @task(4)
    def public_parcel(self):
        pid = random.choice(PARCELS)
        self._get(f"/portal/parcels/{pid}/", "public parcel page", pid)

    @task(3)
    def staff_parcel(self):
        pid = random.choice(PARCELS)
        self._get(f"/parcels/{pid}/", "staff parcel page", pid)

    @task(1)
    def bill_run(self):
        self._get(f"/bill-runs/{RUN_ID}/", "bill run page", "FY")

    @task(2)
    def calc_fee(self):
        with self.client.post("/api/calc/fee", json=random.choice(FEE_BODIES), name="POST /api/calc/fee",
                              catch_response=True) as r:
            if r.status_code != 200:
                r.failure(f"{r.status_code} for /api/calc/fee")
            elif "annual_fee" not in r.json():
                r.failure("no annual_fee in the answer")


def _wait_for(port: int, proc: subprocess.Popen, timeout: float = 60) -> None:
    """Until the server answers /healthz (an open port is not enough: gunicorn's master listens while its workers
    still import the application)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited with {proc.returncode}")
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=max(1.0, end - time.monotonic()))
        try:
            c.request("GET", "/healthz")
            if c.getresponse().status == 200:
                return
        except OSError:
            pass
        finally:
            c.close()
        time.sleep(0.2)
    raise SystemExit(f"no server answering on 127.0.0.1:{port} after {timeout:.0f} s")


def _serve_command(port: int, workers: int) -> tuple[list[str], str]:
    help_text = subprocess.run([STORMWATER, "help", "serve"], capture_output=True, text=True).stdout
    if help_text.strip():
        return [STORMWATER, "serve", "--bind", f"127.0.0.1:{port}", "--workers", str(workers)], "stormwater serve"
    return ([str(BIN / "gunicorn"), "stormwater.wsgi:application", "--bind", f"127.0.0.1:{port}",
             "--workers", str(workers), "--log-level", "warning"], f"gunicorn ({workers} sync workers)")


def _run(label: str, cmd: list[str], port: int, env: dict, users: int, seconds: float, warmup: float) -> dict:
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for(port, proc)
        print(f"{label}: answering after {time.monotonic() - t0:.1f} s", flush=True)
        environment = Environment(user_classes=[Town], host=f"http://127.0.0.1:{port}")
        seen = {"answered": 0, "failed": 0, "errors": []}

        def on_request(request_type, name, response_time, response_length, exception=None, **_):
            # Every request, the warm-up's too (the stats are reset after it): the correctness check counts them all.
            seen["answered" if exception is None else "failed"] += 1
            if exception is not None and len(seen["errors"]) < 5:
                seen["errors"].append(f"{request_type} {name}: {exception}")

        environment.events.request.add_listener(on_request)
        runner = environment.create_local_runner()
        runner.start(users, spawn_rate=users)
        gevent.sleep(warmup)  # workers import the app and warm their caches; not measured
        environment.stats.reset_all()
        gevent.sleep(seconds)
        runner.quit()
        stats = environment.stats
        rows = {name: stats.get(name, method) for name, method in
                (("public parcel page", "GET"), ("staff parcel page", "GET"), ("bill run page", "GET"),
                 ("POST /api/calc/fee", "POST"))}
        rows["all (without login)"] = None
        total_n = sum(s.num_requests for s in rows.values() if s)
        out = {"label": label, "rows": {}, "failures": stats.total.num_failures, "failures_all": seen["failed"],
               "answered_all": seen["answered"], "errors": seen["errors"]}
        for name, s in rows.items():
            if s is None:
                continue
            out["rows"][name] = (s.num_requests, s.get_response_time_percentile(0.5),
                                 s.get_response_time_percentile(0.95), s.num_failures)
        # Overall p95 across the four kinds (login requests excluded: each user signs in once).
        merged = None
        for s in rows.values():
            if s is None:
                continue
            if merged is None:
                from locust.stats import StatsEntry
                merged = StatsEntry(stats, "all", "", use_response_times_cache=False)
            merged.extend(s)
        out["rows"]["all four kinds"] = (total_n, merged.get_response_time_percentile(0.5),
                                         merged.get_response_time_percentile(0.95), merged.num_failures)
        out["rps"] = total_n / seconds
        return out
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--users", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--warmup", type=float, default=15, help="seconds of load before measuring (not counted)")
    ap.add_argument("--port", type=int, default=8221, help="the production server's port; runserver uses port + 1")
    ap.add_argument("--workers", type=int, default=2 * (os.cpu_count() or 1) + 1)
    ap.add_argument("--postgres", action="store_true",
                    help="serve from the PostgreSQL database of DATABASE_URL (empty, or migrated and empty) instead of "
                         "SQLite in the data folder")
    ap.add_argument("--data", type=Path, help="the data folder to use (empty, or migrated with no town; kept after); "
                                              "default: a fresh temporary one, removed after")
    a = ap.parse_args()
    data = a.data or Path(tempfile.mkdtemp(prefix="stormwater-load-"))
    env = {**os.environ, "STORMWATER_DATA_DIR": str(data), "DJANGO_SETTINGS_MODULE": "stormwater.settings"}
    if a.postgres:
        if not env.get("DATABASE_URL", "").startswith("postgres"):
            print("--postgres: set DATABASE_URL to an empty PostgreSQL database (bin/pg-temp)", file=sys.stderr)
            return 2
    else:
        env.pop("DATABASE_URL", None)
    try:
        print(f"Preparing the demo town in {data}" + (" and the PostgreSQL database" if a.postgres else "") + " …",
              flush=True)
        t0 = time.monotonic()
        subprocess.run([STORMWATER, "migrate", "-v0"], env=env, check=True)
        t1 = time.monotonic()
        subprocess.run([STORMWATER, "demo_load"], env=env, check=True, stdout=subprocess.DEVNULL)
        print(f"migrate {t1 - t0:.1f} s, demo_load {time.monotonic() - t1:.1f} s", flush=True)
        ids = subprocess.run([STORMWATER, "shell", "-c",
                              "from stormwater.parcels.models import Parcel; from stormwater.utility.models import "
                              "BillRun; from django.test import Client; from stormwater.accounts.models import User; "
                              "c = Client(); c.force_login(User.objects.get(username='staff')); "
                              "print(c.cookies['sessionid'].value); print(BillRun.objects.order_by('-id').first().pk); "
                              "print(*Parcel.objects.values_list('parcel_id', flat=True)[:300])"],
                             env=env, check=True, capture_output=True, text=True).stdout.strip().split("\n")[-3:]
        global RUN_ID, SESSION
        SESSION, RUN_ID = ids[0].strip(), ids[1].strip()
        PARCELS.extend(ids[2].split())
        serve, serve_label = _serve_command(a.port, a.workers)
        results = [
            _run(serve_label, serve, a.port, env, a.users, a.seconds, a.warmup),
            _run("runserver (threaded)", [STORMWATER, "runserver", f"127.0.0.1:{a.port + 1}", "--noreload"],
                 a.port + 1, env, a.users, a.seconds, a.warmup),
        ]
    finally:
        if a.data is None:
            shutil.rmtree(data, ignore_errors=True)
    print(f"\n{a.users} users, {a.seconds:g} s measured after {a.warmup:g} s of warm-up each, loopback, "
          f"{len(PARCELS)} parcels, {os.cpu_count()} cores, {'PostgreSQL' if a.postgres else 'SQLite'}")
    for r in results:
        print(f"\n{r['label']}: {r['rps']:.1f} requests/s, {r['failures']} failures")
        print(f"  {'request':<22} {'n':>6} {'p50 ms':>8} {'p95 ms':>8} {'fail':>5}")
        for name, (n, p50, p95, fails) in r["rows"].items():
            print(f"  {name:<22} {n:>6} {p50:>8.0f} {p95:>8.0f} {fails:>5}")
        for error in r["errors"]:
            print(f"  failed: {error}")
    prod, dev = (r["rows"]["all four kinds"][2] for r in results)
    if prod and dev:
        print(f"\np95 all four kinds: {results[0]['label']} {prod:.0f} ms, runserver {dev:.0f} ms "
              f"(runserver / production = {dev / prod:.2f}×)")
    # Correctness: every request of the warm-up and of the measured window answered as it should (each answer is
    # checked: Town._get), and each server measured answering.
    wrong = [f"{r['label']}: {r['failures_all']} requests failed" for r in results if r["failures_all"]]
    wrong += [f"{r['label']}: no request answered in the measured window" for r in results
              if not r["rows"]["all four kinds"][0]]
    if wrong:
        print("correctness: FAILED — " + "; ".join(wrong))
        return 1
    print("correctness: ok — " + ", ".join(f"{r['label']} answered {r['answered_all']} requests" for r in results)
          + ", each the page or fee asked for, none failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
