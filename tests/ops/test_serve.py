"""`stormwater serve` (issue 14): gunicorn serves the demo town, with the static files collected into the data
folder; production mode behind a TLS-terminating proxy; it refuses to start on an unmigrated database."""
from __future__ import annotations

import http.client
import re
import shutil
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlencode

import pytest

from .conftest import clean_env, stormwater
from .test_startup import PRODUCTION_OK


@contextmanager
def served(data_dir: Path, cwd: Path, env: dict | None = None, exe: list[str] | None = None):
    """`stormwater serve --port 0` (any free port); yields the port gunicorn reports it listens on."""
    proc = subprocess.Popen([*(exe or [sys.executable, "-m", "stormwater"]), "serve", "--port", "0", "--workers",
                             "1"], cwd=cwd, env=clean_env(data_dir, **(env or {})), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    try:
        seen = []
        for line in proc.stderr:  # blocks until gunicorn says where it listens, or exits
            seen.append(line)
            m = re.search(r"Listening at: http://127\.0\.0\.1:(\d+)", line)
            if m:
                break
        else:
            raise AssertionError("stormwater serve did not start:\n" + "".join(seen))
        yield int(m.group(1)), seen
    finally:
        proc.terminate()
        proc.wait()
        proc.stderr.close()


def request(port: int, path: str, *, method: str = "GET", headers: dict | None = None, body: str | None = None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        c.request(method, path, body=body, headers=headers or {})
        r = c.getresponse()
        return r.status, r.headers, r.read()
    finally:
        c.close()


def _cookies(headers) -> dict:
    return dict(c.split(";", 1)[0].split("=", 1) for c in headers.get_all("Set-Cookie") or [])


def sign_in(port: int, username: str, password: str, headers: dict | None = None) -> dict:
    """The login form as a browser posts it; returns the session's cookies."""
    status, h, body = request(port, "/login/", headers=headers)
    assert status == 200
    cookies = _cookies(h)
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', body).group(1).decode()
    headers = headers or {}
    origin = (f"{headers.get('X-Forwarded-Proto', 'http')}://{headers.get('Host', f'127.0.0.1:{port}')}")
    status, h, _ = request(port, "/login/", method="POST", body=urlencode(
        {"username": username, "password": password, "csrfmiddlewaretoken": token}), headers={
        **headers, "Origin": origin, "Content-Type": "application/x-www-form-urlencoded",
        "Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())})
    assert status == 302, status
    return {**cookies, **_cookies(h)}


def test_collectstatic_works_on_a_fresh_data_folder(tmp_path):
    """It failed with 'You're using the staticfiles app without having set the STATIC_ROOT setting'."""
    stormwater("collectstatic", "--no-input", "-v0", data_dir=tmp_path / "data", cwd=tmp_path)
    assert (tmp_path / "data" / "static" / "stormwater" / "site.css").is_file()


def test_serve_refuses_an_unmigrated_database_and_says_what_to_run(tmp_path):
    p = stormwater("serve", "--check", data_dir=tmp_path / "data", cwd=tmp_path, check=False)
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert "database migration(s) not applied" in p.stderr and "run `stormwater migrate` first" in p.stderr


@pytest.mark.slow
def test_serve_runs_the_demo_town_on_gunicorn(demo_town, tmp_path):
    data = tmp_path / "data"
    shutil.copytree(demo_town.data, data)
    with served(data, tmp_path) as (port, log):
        assert any("Starting gunicorn" in line for line in log)
        assert request(port, "/healthz")[0] == 200
        status, h, _ = request(port, "/")
        assert status == 302 and h["Location"].startswith("/login/")
        status, h, css = request(port, "/static/stormwater/site.css")
        assert status == 200 and h["Content-Type"].startswith("text/css") and css
        cookies = sign_in(port, "director", "stormwater-demo")
        status, _, body = request(port, "/bills/", headers={"Cookie": f"sessionid={cookies['sessionid']}"})
        assert status == 200 and b"2027" in body
    assert (data / "static" / "stormwater" / "site.css").read_bytes() == css  # collected into the data folder


@pytest.mark.slow
def test_serve_in_production_behind_a_tls_proxy(demo_town, tmp_path):
    data = tmp_path / "data"
    shutil.copytree(demo_town.data, data)
    key = (demo_town.data / "dev-secret-key").read_text().strip()
    env = {**PRODUCTION_OK, "SECRET_KEY": key, "SECURE_PROXY_SSL_HEADER_ON": "1"}
    proxy = {"Host": "stormwater.example", "X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.9"}
    with served(data, tmp_path, env) as (port, _log):
        # Plain HTTP straight to gunicorn is sent to HTTPS; through the proxy the page is served, with HSTS.
        status, h, _ = request(port, "/login/", headers={"Host": "stormwater.example"})
        assert status == 301 and h["Location"] == "https://stormwater.example/login/"
        status, h, _ = request(port, "/login/", headers=proxy)
        assert status == 200 and "max-age=31536000" in h["Strict-Transport-Security"]
        assert all("Secure" in c for c in h.get_all("Set-Cookie"))
        assert request(port, "/login/", headers={**proxy, "Host": "evil.example"})[0] == 400  # ALLOWED_HOSTS
        # Static files come from the collected folder (no app-folder finders in production).
        status, _, css = request(port, "/static/stormwater/site.css", headers=proxy)
        assert status == 200 and css == (data / "static" / "stormwater" / "site.css").read_bytes()
        status, _, body = request(port, "/no-such-page/", headers=proxy)
        assert status == 404 and b"Traceback" not in body and b"DEBUG" not in body
        cookies = sign_in(port, "director", "stormwater-demo", headers=proxy)
        assert request(port, "/", headers={**proxy, "Cookie": f"sessionid={cookies['sessionid']}"})[0] == 200
