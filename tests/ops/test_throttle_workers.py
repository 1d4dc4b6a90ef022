"""Issue 27: the sign-in throttle holds across server processes. The counts lived in each worker's memory
(LocMemCache): with two workers, 8 wrong passwords got 200 ×6, 429, 200 again, and the right password still
signed in. Now they live in the database cache (settings.CACHES, the `web` app's cache table), which every
worker of one installation shares."""
from __future__ import annotations

import re
import shutil
from contextlib import ExitStack
from urllib.parse import urlencode

import pytest

from .conftest import POSTGRES_URL, fresh_postgres_database, stormwater
from .test_serve import _cookies, request, served

pytestmark = [pytest.mark.database, pytest.mark.slow]  # two gunicorn servers on the run's database (a new one on PostgreSQL)


def _login_form(port: int) -> tuple[str, str]:
    status, h, body = request(port, "/login/")
    assert status == 200
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', body).group(1).decode()
    return _cookies(h)["csrftoken"], token


def _post_password(port: int, form: tuple[str, str], username: str, password: str) -> int:
    cookie, token = form
    status, _, _ = request(port, "/login/", method="POST", body=urlencode(
        {"username": username, "password": password, "csrfmiddlewaretoken": token}), headers={
        "Origin": f"http://127.0.0.1:{port}", "Content-Type": "application/x-www-form-urlencoded",
        "Cookie": f"csrftoken={cookie}"})
    return status


def _installation(tmp_path, request_fixture) -> tuple:
    """(data folder, environment, username, password): the demo town's copy on SQLite; on PostgreSQL a new
    database migrated as its owner, with one user."""
    data = tmp_path / "data"
    if not POSTGRES_URL:
        shutil.copytree(request_fixture.getfixturevalue("demo_town").data, data)
        return data, {}, "director", "stormwater-demo"
    env = request_fixture.getfixturevalue("_pg_installation")
    stormwater("migrate", "--no-input", "-v0", data_dir=data, cwd=tmp_path, env=env)
    password = "correct horse battery staple 27"
    stormwater("user", "add", "--username", "clerk27", "--role", "staff", "--email", "clerk27@example.org",
               "--password-stdin", data_dir=data, cwd=tmp_path, env=env, input=password + "\n")
    return data, env, "clerk27", password


@pytest.fixture
def _pg_installation():
    with fresh_postgres_database() as env:
        yield env


def test_wrong_passwords_spread_over_two_servers_lock_the_account(tmp_path, request):
    data, env, username, password = _installation(tmp_path, request)
    with ExitStack() as stack:
        ports = [stack.enter_context(served(data, tmp_path, env))[0] for _ in range(2)]
        forms = [_login_form(p) for p in ports]  # one secret key in the data folder: either form works anywhere
        statuses = [_post_password(ports[i % 2], forms[i % 2], username, "wrong password " + str(i))
                    for i in range(8)]
        # LOGIN_THROTTLE_FAILURES (5) failures for one username from one address, whichever server saw them
        assert statuses == [200] * 5 + [429] * 3, statuses
        # ... and the right password is refused on both until the window passes (unit: tests/accounts)
        assert [_post_password(p, f, username, password) for p, f in zip(ports, forms)] == [429, 429]
