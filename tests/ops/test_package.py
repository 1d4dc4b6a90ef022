"""The package as a town installs it (issue 14; issue 28: a release): a wheel built from the source by the
documented command, installed into a clean virtualenv with the lock (requirements.lock, every package by version
and hash, as docs/deploy.md step 3 does), runs from that install alone: --version, config check on
town.example.toml, migrate, demo_load, calc fee, gis impervious on the North Cambridge sample (CSV and --gpkg),
review_run on the example plan, the job worker running the daily sweep, serve, and ``upgrade`` on a copy of the
demo town with a migration left to apply. It failed with "No module named 'numpy'" when pyproject.toml left out
the GIS stack (the lock is compiled from pyproject.toml, so it would leave it out too). Runs once, in the SQLite
run of bin/test (the PostgreSQL run would repeat it)."""
from __future__ import annotations

import csv
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from stormwater import __version__
from stormwater.demo import DEMO_GIS_IMPERVIOUS
from stormwater.rules.town import demo_terms
from stormwater.utility.calc import calc_fee

from .conftest import POSTGRES_URL, REPO, stormwater
from .test_serve import request, served

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(bool(POSTGRES_URL), reason="runs once, in the SQLite run of bin/test")]


def _locked_wheel(tmp: Path, wheel: Path) -> Path:
    """A requirements file: the lock and the wheel by its hash — pip's hash-checking mode then installs exactly the
    lock's packages, and refuses a dependency of the wheel that the lock does not pin."""
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    out = tmp / "install.txt"
    out.write_text(f"-r {REPO / 'requirements.lock'}\n{wheel.as_uri()} --hash=sha256:{digest}\n")
    return out


def _pip(*args: str) -> None:
    p = subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", *args], capture_output=True,
                       text=True)
    assert p.returncode == 0, p.stdout + p.stderr


def test_the_wheel_installed_alone_runs_the_system(tmp_path):
    # The wheel, from a copy of what the repository ships (src/ and pyproject.toml only).
    source = tmp_path / "source"
    shutil.copytree(REPO / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    shutil.copy(REPO / "pyproject.toml", source)
    _pip("wheel", "--quiet", "--no-deps", "--wheel-dir", str(tmp_path / "dist"), str(source))
    wheel = next((tmp_path / "dist").glob("longmeadow_stormwater-*.whl"))

    # A clean virtualenv (no system site-packages, no pip of its own) with the wheel and what it declares.
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    _pip("--python", str(venv / "bin" / "python"), "install", "--quiet", "--no-compile", "--require-hashes",
         "-r", str(_locked_wheel(tmp_path, wheel)))
    exe = [str(venv / "bin" / "stormwater")]
    work, data = tmp_path / "work", tmp_path / "work" / "data"
    work.mkdir()

    def run(*args, **kw):
        return stormwater(*args, data_dir=data, cwd=work, exe=exe, **kw)

    where = subprocess.run([str(venv / "bin" / "python"), "-c", "import stormwater; from importlib.resources "
                            "import files; print(stormwater.__file__); print(files('stormwater') / 'demo_data' / "
                            "'cambridge_north_sample.gpkg')"], cwd=work, capture_output=True, text=True,
                           check=True).stdout.split()
    assert where[0].startswith(str(venv)), where  # the installed copy, not the checkout

    assert run("--version").stdout.strip() == f"stormwater {__version__}"
    assert wheel.name.startswith(f"longmeadow_stormwater-{__version__}-")
    assert "OK (" in run("config", "check", str(REPO / "town.example.toml")).stdout

    run("migrate", "--no-input", "-v0")
    assert "director" in run("demo_load").stdout

    payload = {"property_class": "nonresidential", "impervious_sqft": 200000}
    fee = json.loads(run("calc", "fee", input=json.dumps(payload)).stdout)
    want = calc_fee(payload, terms=demo_terms())
    assert (fee["erus"], fee["annual_fee"]) == (want["erus"], want["annual_fee"]) == (59, fee["annual_fee"])

    gpkg = where[1]
    args = ["gis", "impervious", "--parcels", f"{gpkg}:parcels_fy2014", "--id", "ML"]
    for layer in DEMO_GIS_IMPERVIOUS:
        args += ["--impervious", f"{gpkg}:{layer}"]
    args += ["--right-of-way", f"{gpkg}:roads", "--right-of-way", f"{gpkg}:sidewalks"]
    run(*args, "--out", str(work / "out.csv"), "--gpkg", str(work / "out.gpkg"))
    rows = {r["parcel_id"]: r for r in csv.DictReader((work / "out.csv").open())}
    assert len(rows) == 149 and rows["198-16"]["impervious_sqft"] == "2357.34"
    layers = subprocess.run([str(venv / "bin" / "python"), "-c", "import pyogrio, sys; "
                             "print(*sorted(n for n, _ in pyogrio.list_layers(sys.argv[1])))", str(work / "out.gpkg")],
                            capture_output=True, text=True, check=True).stdout.split()
    assert layers == ["impervious_pieces", "parcels"]

    review = run("review_run", str(REPO / "docs" / "examples" / "commercial-5-acre.yaml"), "--json", check=False)
    assert review.returncode in (0, 1), review.stderr  # 0 pass, 1 fail: a report either way (2 = unreadable)
    report = json.loads(review.stdout)
    assert report and "Traceback" not in review.stderr

    # The job worker (django-tasks' queue) runs the daily sweep handed to it; a second daily sees it done.
    job = json.loads(run("daily", "--enqueue", "--day", "2026-12-03").stdout)["job"]
    run("worker", "--batch", "-v0")
    assert json.loads(run("daily", "--day", "2026-12-03").stdout)["job"] == job

    with served(data, work, exe=exe) as (port, _log):
        assert request(port, "/login/")[0] == 200
        assert request(port, "/static/stormwater/site.css")[0] == 200
    assert os.path.isfile(data / "static" / "stormwater" / "site.css")

    # Upgrading a copy of the demo town: one migration not applied yet (as after installing a newer release).
    copy = tmp_path / "copy" / "data"
    shutil.copytree(data, copy, ignore=shutil.ignore_patterns("static", "heartbeats"))

    def run_copy(*args, **kw):
        return stormwater(*args, data_dir=copy, cwd=copy.parent, exe=exe, **kw)

    run_copy("migrate", "workqueue", "zero", "-v0")
    report = json.loads(run_copy("upgrade", "--json", "--backup-dir", str(tmp_path / "backups")).stdout)
    assert report["version_from"] == "unknown" and report["version_to"] == __version__  # before releases: none
    assert report["migrations_applied"] == ["workqueue.0001_calendar_feed"]
    assert report["checks"][0] == "system checks" and Path(report["backup"]).is_file()
    assert Path(report["backup"]).parent == tmp_path / "backups"
    again = run_copy("upgrade", "--no-backup").stdout
    assert f"stormwater {__version__} → {__version__}" in again and "migrations applied: 0" in again
