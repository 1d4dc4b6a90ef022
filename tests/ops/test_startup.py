"""Start-up (issue 14): `.env` read as `.env.example` says, production's refusals, and a data folder that is
read-only, full, not writable or not a folder — each a clear message, never a traceback."""
from __future__ import annotations

import errno
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from stormwater.ops import startup
from stormwater.ops.startup import StartupError, check_data_dir, load_env_files, production_problems

from .conftest import clean_env, stormwater

GOOD_KEY = "Zq8-" + "x7Lm2Pv9Tn4Rw6Ys1Ub3Ac5De7Fg0Hj2Kl4Mn6Pq8Rs0Tu2Vw4Xy6"
PRODUCTION_OK = {"STORMWATER_ENV": "production", "SECRET_KEY": GOOD_KEY, "ALLOWED_HOSTS": "stormwater.example"}
def _print_settings(*names, data_dir, cwd, env=None, check=True):
    return stormwater("shell", "--no-imports", "-c",
                      f"from django.conf import settings as s; print(*[getattr(s, n) for n in {list(names)!r}], "
                      f"sep='|')", data_dir=data_dir, cwd=cwd, env=env, check=check)


# ---- .env ----

def test_env_files_working_directory_then_data_folder_and_the_environment_wins(tmp_path):
    (tmp_path / ".env").write_text("# comment\nexport TOWN_NAME='Town of Here'\nSTORMWATER_DATA_DIR=d\nA=from-cwd\n")
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / ".env").write_text("A=from-data\nB=from-data\nSECRET_KEY=ab$cd${HOME}\n")
    environ = {"B": "from-environment"}
    read = load_env_files(environ, cwd=tmp_path)
    assert read == [(tmp_path / ".env").resolve(), (tmp_path / "d" / ".env").resolve()]
    assert environ == {"TOWN_NAME": "Town of Here", "STORMWATER_DATA_DIR": "d", "A": "from-cwd",
                       "B": "from-environment", "SECRET_KEY": "ab$cd${HOME}"}  # literal: no ${VAR} expansion


def test_env_file_in_the_data_folder_cannot_move_the_data_folder(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / ".env").write_text("STORMWATER_DATA_DIR=/elsewhere\n")
    with pytest.raises(StartupError, match="cannot move the data folder this file is in"):
        load_env_files({}, cwd=tmp_path)


def test_the_stormwater_command_reads_dot_env_from_the_working_directory_and_the_data_folder(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (tmp_path / ".env").write_text("TOWN_NAME=Town of Cwd\n")
    (data / ".env").write_text("TOWN_NAME=Town of Data\nDEFAULT_FROM_EMAIL=dpw@town.example\n")
    out = _print_settings("TOWN_NAME", "DEFAULT_FROM_EMAIL", data_dir=data, cwd=tmp_path).stdout.strip()
    assert out == "Town of Cwd|dpw@town.example"
    out = _print_settings("TOWN_NAME", data_dir=data, cwd=tmp_path, env={"TOWN_NAME": "Town of Env"}).stdout
    assert out.strip() == "Town of Env"


def test_production_reads_its_secret_key_and_hosts_from_dot_env(tmp_path):
    (tmp_path / ".env").write_text("".join(f"{k}={v}\n" for k, v in PRODUCTION_OK.items()))
    out = _print_settings("PRODUCTION", "ALLOWED_HOSTS", "SECRET_KEY_SOURCE", data_dir=tmp_path / "data",
                          cwd=tmp_path).stdout.strip()
    assert out == "True|['stormwater.example']|environment"


# ---- production refuses ----

@pytest.mark.parametrize("change, message", [
    ({"DEBUG": True}, "DEBUG=1 is refused in production"),
    ({"secret_key": ""}, "SECRET_KEY is not set"),
    ({"secret_key": "short-but-random-Kx81"}, "SECRET_KEY has 21 characters; at least 50"),
    ({"secret_key": "ab" * 30}, "uses only 2 different characters"),
    ({"secret_key": "change-me"}, "contains 'change-me'"),
    ({"secret_key": "django-insecure-" + GOOD_KEY}, "contains 'django-insecure'"),
    ({"allowed_hosts_raw": None}, "ALLOWED_HOSTS is not set"),
    ({"allowed_hosts_raw": " , "}, "ALLOWED_HOSTS is not set"),
    ({"allowed_hosts_raw": "*"}, "ALLOWED_HOSTS=* is refused"),
])
def test_production_refuses(change, message):
    args = {"debug": False, "secret_key": GOOD_KEY, "allowed_hosts_raw": "stormwater.example"}
    args.update({k.lower(): v for k, v in change.items()})
    problems = production_problems(**args)
    assert len(problems) == 1 and message in problems[0]


def test_production_accepts_a_sound_configuration():
    assert production_problems(debug=False, secret_key=GOOD_KEY, allowed_hosts_raw="a.example,b.example") == []


def test_production_refusals_reach_the_administrator_as_one_clear_message(tmp_path):
    p = stormwater("check", data_dir=tmp_path / "data", cwd=tmp_path, check=False,
                   env={"STORMWATER_ENV": "production", "DEBUG": "1", "SECRET_KEY": "change-me"})
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert p.stderr.startswith("stormwater: STORMWATER_ENV=production refuses to start:")
    for m in ("DEBUG=1 is refused", "SECRET_KEY contains 'change-me'", "ALLOWED_HOSTS is not set"):
        assert m in p.stderr
    ok = stormwater("check", data_dir=tmp_path / "data", cwd=tmp_path, env=PRODUCTION_OK)
    assert "no issues" in ok.stdout


def test_the_example_env_file_is_refused_as_it_stands_in_production(tmp_path):
    """Copying .env.example to .env and uncommenting it is not enough: its key is the public example."""
    repo = Path(__file__).resolve().parents[2]
    settings = [m.group(1) for m in re.finditer(r"^# ([A-Z_]+=.*)$", (repo / ".env.example").read_text(), re.M)]
    assert any(s.startswith("SECRET_KEY=") for s in settings)
    (tmp_path / ".env").write_text("\n".join(s for s in settings if not s.startswith(
        ("DATABASE_URL", "STORMWATER_DATA_DIR", "EMAIL_"))))  # this machine's folders, no mail server
    p = stormwater("check", data_dir=tmp_path / "data", cwd=tmp_path, check=False)
    assert p.returncode == 2 and "SECRET_KEY contains 'change-me'" in p.stderr


# ---- the data folder ----

def test_a_file_where_the_data_folder_should_be(tmp_path):
    (tmp_path / "data").write_text("not a folder")
    with pytest.raises(StartupError, match="is not a folder"):
        check_data_dir(tmp_path / "data")
    with pytest.raises(StartupError, match="is not a folder"):
        check_data_dir(tmp_path / "data" / "inside")
    p = stormwater("migrate", data_dir=tmp_path / "data", cwd=tmp_path, check=False)
    assert p.returncode == 2 and "Traceback" not in p.stderr and "is not a folder" in p.stderr


def test_a_full_disk_is_named_where_the_probe_writes(tmp_path, monkeypatch):
    def full(fd, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(startup.os, "write", full)
    with pytest.raises(StartupError, match="is full"):
        check_data_dir(tmp_path)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".write-check")]  # nothing left behind


def test_a_data_folder_under_proc_cannot_be_created(tmp_path):
    p = stormwater("migrate", data_dir=Path("/proc/stormwater-data"), cwd=tmp_path, check=False)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert "/proc/stormwater-data cannot be created or written" in p.stderr


def _namespace_ok() -> bool:
    return shutil.which("unshare") is not None and subprocess.run(
        ["unshare", "-r", "-m", "true"], capture_output=True).returncode == 0


needs_namespaces = pytest.mark.skipif(not _namespace_ok(), reason="needs unshare -r -m (user + mount namespaces)")


def _in_namespace(setup: str, data: Path, cwd: Path) -> subprocess.CompletedProcess:
    """Run `stormwater migrate` after `setup` (mount commands) in a private user + mount namespace."""
    script = f'{setup} && exec "$@"'
    return subprocess.run(["unshare", "-r", "-m", "sh", "-c", script, "sh", sys.executable, "-m", "stormwater",
                           "migrate", "--no-input"], cwd=cwd, env=clean_env(data), capture_output=True, text=True)


@needs_namespaces
def test_a_read_only_data_folder_says_so(tmp_path):
    """A real read-only file system (a read-only bind mount: EROFS even for root)."""
    data = tmp_path / "data"
    data.mkdir()
    p = _in_namespace(f"mount --bind {data} {data} && mount -o remount,ro,bind {data}", data, tmp_path)
    assert p.returncode == 2, p.stderr
    assert "Traceback" not in p.stderr and f"The data folder {data} is on a read-only file system" in p.stderr


@needs_namespaces
def test_a_full_data_folder_says_so(tmp_path):
    """A real full disk: a 256 KiB tmpfs filled to the last block (ENOSPC from the kernel)."""
    data = tmp_path / "data"
    data.mkdir()
    p = _in_namespace(f"mount -t tmpfs -o size=256k tmpfs {data} && "
                      f"(dd if=/dev/zero of={data}/filler bs=4k 2>/dev/null; true)", data, tmp_path)
    assert p.returncode == 2, p.stderr
    assert "Traceback" not in p.stderr and f"The data folder {data} is full" in p.stderr


@pytest.mark.skipif(os.getuid() != 0 or not shutil.which("setpriv"), reason="drops root with setpriv")
def test_a_data_folder_the_service_user_cannot_write(tmp_path):
    """Permission bits do not stop root, so the command runs as `nobody` on a folder owned by root."""
    top = Path(tempfile.mkdtemp(prefix="stormwater-perm-"))
    try:
        top.chmod(0o755)
        data = top / "data"
        data.mkdir(mode=0o755)
        p = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-m",
                            "stormwater", "migrate"], cwd=top, env=clean_env(data, HOME=str(top)),
                           capture_output=True, text=True)
        assert p.returncode == 2, p.stderr
        assert "Traceback" not in p.stderr
        assert f"The data folder {data} is not writable by the user this runs as (nobody, uid 65534)" in p.stderr
    finally:
        shutil.rmtree(top)
