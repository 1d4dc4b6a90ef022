"""Load test (issue 15): 50 concurrent users on loopback against the production server and against
``runserver``, on the demo town; p50/p95 per request kind and overall.

    .venv/bin/python benchmarks/load.py [--users 50] [--seconds 30] [--port 8221]

The mix (weights): public parcel pages ``/portal/parcels/<id>/`` (4), staff parcel pages
``/parcels/<id>/`` signed in as the demo ``staff`` user (3), the bill run page ``/bill-runs/<id>/`` (1),
``POST /api/calc/fee`` (2). Users wait 0.5–1.5 s between requests (people, not a flood), all 50 start at
once. Bounded: each run stops after ``--warmup`` + ``--seconds``; only 127.0.0.1 is ever addressed.

The data folder is a fresh temporary one (migrated, ``demo_load``). The production server is
``stormwater serve`` when the deploy work provides it, else gunicorn on ``stormwater.wsgi`` directly
(``--workers``, default 2 × cores + 1). The figure to watch is the ratio of the two servers' p95 measured
in the same run on the same machine; no test asserts a time.
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import socket
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

    @task(4)
    def public_parcel(self):
        self.client.get(f"/portal/parcels/{random.choice(PARCELS)}/", name="public parcel page")

    @task(3)
    def staff_parcel(self):
        self.client.get(f"/parcels/{random.choice(PARCELS)}/", name="staff parcel page")

    @task(1)
    def bill_run(self):
        self.client.get(f"/bill-runs/{RUN_ID}/", name="bill run page")

    @task(2)
    def calc_fee(self):
        self.client.post("/api/calc/fee", json=random.choice(FEE_BODIES), name="POST /api/calc/fee")


def _wait_for(port: int, proc: subprocess.Popen, timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"no server on 127.0.0.1:{port} after {timeout:.0f} s")


def _serve_command(port: int, workers: int) -> tuple[list[str], str]:
    help_text = subprocess.run([STORMWATER, "help", "serve"], capture_output=True, text=True).stdout
    if help_text.strip():
        return [STORMWATER, "serve", "--bind", f"127.0.0.1:{port}", "--workers", str(workers)], "stormwater serve"
    return ([str(BIN / "gunicorn"), "stormwater.wsgi:application", "--bind", f"127.0.0.1:{port}",
             "--workers", str(workers), "--log-level", "warning"], f"gunicorn ({workers} sync workers)")


def _run(label: str, cmd: list[str], port: int, env: dict, users: int, seconds: int, warmup: int) -> dict:
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for(port, proc)
        environment = Environment(user_classes=[Town], host=f"http://127.0.0.1:{port}")
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
        out = {"label": label, "rows": {}, "failures": stats.total.num_failures}
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--users", type=int, default=50)
    ap.add_argument("--seconds", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=15, help="seconds of load before measuring (not counted)")
    ap.add_argument("--port", type=int, default=8221, help="the production server's port; runserver uses port + 1")
    ap.add_argument("--workers", type=int, default=2 * (os.cpu_count() or 1) + 1)
    a = ap.parse_args()
    data = Path(tempfile.mkdtemp(prefix="stormwater-load-"))
    env = {**os.environ, "STORMWATER_DATA_DIR": str(data), "DJANGO_SETTINGS_MODULE": "stormwater.settings"}
    env.pop("DATABASE_URL", None) if "--postgres" not in sys.argv else None
    try:
        print(f"Preparing the demo town in {data} …", flush=True)
        subprocess.run([STORMWATER, "migrate", "-v0"], env=env, check=True)
        subprocess.run([STORMWATER, "demo_load"], env=env, check=True, stdout=subprocess.DEVNULL)
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
        shutil.rmtree(data, ignore_errors=True)
    print(f"\n{a.users} users, {a.seconds} s measured after {a.warmup} s of warm-up each, loopback, {len(PARCELS)} parcels, {os.cpu_count()} cores")
    for r in results:
        print(f"\n{r['label']}: {r['rps']:.1f} requests/s, {r['failures']} failures")
        print(f"  {'request':<22} {'n':>6} {'p50 ms':>8} {'p95 ms':>8} {'fail':>5}")
        for name, (n, p50, p95, fails) in r["rows"].items():
            print(f"  {name:<22} {n:>6} {p50:>8.0f} {p95:>8.0f} {fails:>5}")
    prod, dev = (r["rows"]["all four kinds"][2] for r in results)
    print(f"\np95 all four kinds: {results[0]['label']} {prod:.0f} ms, runserver {dev:.0f} ms "
          f"(runserver / production = {dev / prod:.2f}×)")


if __name__ == "__main__":
    main()
