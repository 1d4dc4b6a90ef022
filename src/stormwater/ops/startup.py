"""What every ``stormwater`` process settles before it starts (issue 14): the ``.env`` files, the data
folder, and the refusals of production mode. Called by ``settings.py`` while the settings are being built,
so nothing here reads Django settings; a problem is a ``StartupError`` whose text is the whole message
(``stormwater.cli`` prints it without a traceback; ``stormwater serve`` checks before it starts gunicorn).

``.env`` (docs/deploy.md, ``.env.example``): ``KEY=value`` lines read from

1. ``.env`` in the working directory (it may set ``STORMWATER_DATA_DIR``), then
2. ``.env`` in the data folder (``$STORMWATER_DATA_DIR/.env``, default ``./data/.env``).

A variable already in the environment wins over both files; the working directory's file wins over the
data folder's. Values are taken literally (no ``${VAR}`` expansion: a secret key may hold a ``$``).
"""
from __future__ import annotations

import errno
import os
import tempfile
from collections.abc import MutableMapping
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

ENV_FILE_NAME = ".env"
DATA_DIR_VARIABLE = "STORMWATER_DATA_DIR"


# Set by the ``stormwater`` command before the settings are built for a command that only reads (``--help``,
# ``help``, ``config check``): the settings then write nothing — no data folder, no development key, no static
# folder (issue 28: the first ``stormwater --help`` on a new server wrote ``dev-secret-key`` into what became
# production's data folder).
WRITE_NOTHING = False


class StartupError(ImproperlyConfigured):
    """A setting or the data folder stops the start; the message says what to do."""


def default_data_dir(environ: MutableMapping[str, str], cwd: Path) -> Path:
    """``STORMWATER_DATA_DIR`` (relative to the working directory), else ``./data``."""
    raw = environ.get(DATA_DIR_VARIABLE) or ""
    return (cwd / raw if raw else cwd / "data").resolve()


def _read_env_file(path: Path) -> dict[str, str]:
    from dotenv import dotenv_values

    if not path.exists():
        return {}
    if not path.is_file():
        raise StartupError(f"{path}: expected a file of KEY=value lines, found a folder")
    try:
        with path.open(encoding="utf-8") as f:
            values = dotenv_values(stream=f, interpolate=False)
    except (OSError, UnicodeDecodeError) as e:
        raise StartupError(f"{path}: cannot read it ({getattr(e, 'strerror', None) or e})") from None
    return {k: v for k, v in values.items() if v is not None}


def load_env_files(environ: MutableMapping[str, str] | None = None, cwd: Path | None = None) -> list[Path]:
    """Apply ``./.env`` then ``DATA_DIR/.env`` to ``environ`` (default ``os.environ``) without overriding
    what is there. Returns the files read, in order."""
    environ = os.environ if environ is None else environ
    cwd = Path.cwd() if cwd is None else Path(cwd)
    read: list[Path] = []
    here = cwd / ENV_FILE_NAME
    first = _read_env_file(here)
    if first or here.is_file():
        read.append(here.resolve())
    merged = {DATA_DIR_VARIABLE: environ[DATA_DIR_VARIABLE]} if environ.get(DATA_DIR_VARIABLE) else {}
    merged.setdefault(DATA_DIR_VARIABLE, first.get(DATA_DIR_VARIABLE, ""))
    data_dir = default_data_dir(merged, cwd)
    there = data_dir / ENV_FILE_NAME
    second: dict[str, str] = {}
    if there.resolve() != here.resolve():
        second = _read_env_file(there)
        if second or there.is_file():
            read.append(there.resolve())
        moved = second.get(DATA_DIR_VARIABLE)
        if moved and default_data_dir({DATA_DIR_VARIABLE: moved}, cwd) != data_dir:
            raise StartupError(f"{there}: {DATA_DIR_VARIABLE}={moved} cannot move the data folder this file is in; "
                               f"set it in the environment or in {here}")
    for values in (first, second):
        for key, value in values.items():
            environ.setdefault(key, value)
    return read


# ---- the data folder: it must be a writable folder with room to write ----

def _data_dir_message(path: Path, e: OSError) -> str:
    code = e.errno
    what = ("The data folder holds the SQLite database, uploaded documents, static files and town.toml; "
            f"set {DATA_DIR_VARIABLE} to a writable folder or fix this one.")
    if code == errno.EROFS:
        return f"The data folder {path} is on a read-only file system. {what}"
    if code in (errno.ENOSPC, errno.EDQUOT):
        return (f"The data folder {path} is full (no space left on the device or over quota): free space there "
                f"before starting; nothing was written. {what}")
    if code in (errno.EACCES, errno.EPERM):
        user = _user_name()
        return (f"The data folder {path} is not writable by the user this runs as ({user}, uid {os.getuid()}): "
                f"give it to that user (e.g. chown -R {user}: {path}). {what}")
    if code in (errno.ENOTDIR, errno.EEXIST):
        return f"{DATA_DIR_VARIABLE}={path} is not a folder (a file is in the way). {what}"
    return f"The data folder {path} cannot be created or written: {e.strerror or e}. {what}"


def _user_name() -> str:
    try:
        import pwd

        return pwd.getpwuid(os.getuid()).pw_name
    except (ImportError, KeyError):
        return str(os.getuid())


PROBE_BYTES = 64 * 1024  # room for at least a few database pages, not merely a directory entry


def check_data_dir(path: Path) -> None:
    """Create the folder if needed and write, sync and remove a probe file in it. A read-only, full,
    foreign-owned folder or a file in its place becomes one ``StartupError`` naming the cause."""
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)  # a new data folder is private: it holds the key
    except OSError as e:
        raise StartupError(_data_dir_message(path, e)) from None
    if not path.is_dir():
        raise StartupError(_data_dir_message(path, OSError(errno.ENOTDIR, "not a directory")))
    probe = None
    try:
        fd, probe = tempfile.mkstemp(prefix=".write-check-", dir=path)
        try:
            view = memoryview(b"\0" * PROBE_BYTES)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as e:
        raise StartupError(_data_dir_message(path, e)) from None
    finally:
        if probe:
            try:
                os.unlink(probe)
            except OSError:
                pass


# ---- production mode refuses what would expose the town ----

INSECURE_KEY_MARKERS = ("django-insecure", "change-me", "changeme", "change_me", "secret-key", "your-secret")
MIN_SECRET_KEY_LENGTH = 50     # Django's own check (security.W009): 50 characters,
MIN_SECRET_KEY_UNIQUE = 5      # at least 5 different ones, not the 'django-insecure-' prefix
NEW_KEY_HINT = "make one with: python3 -c \"import secrets; print(secrets.token_urlsafe(50))\""


def secret_key_problem(key: str) -> str | None:
    """Why ``key`` cannot sign a town's sessions and bill codes in production, or None."""
    if not key:
        return f"SECRET_KEY is not set ({NEW_KEY_HINT})"
    low = key.lower()
    marker = next((m for m in INSECURE_KEY_MARKERS if m in low), None)
    if marker:
        return f"SECRET_KEY contains {marker!r}: a default or example value is public ({NEW_KEY_HINT})"
    if len(key) < MIN_SECRET_KEY_LENGTH:
        return f"SECRET_KEY has {len(key)} characters; at least {MIN_SECRET_KEY_LENGTH} are needed ({NEW_KEY_HINT})"
    if len(set(key)) < MIN_SECRET_KEY_UNIQUE:
        return (f"SECRET_KEY uses only {len(set(key))} different characters; a random key is needed "
                f"({NEW_KEY_HINT})")
    return None


def production_problems(*, debug: bool, secret_key: str, allowed_hosts_raw: str | None) -> list[str]:
    """Each reason ``STORMWATER_ENV=production`` refuses to start (empty: it may start)."""
    problems = []
    if debug:
        problems.append("DEBUG=1 is refused in production: debug pages show settings, source and data to anyone "
                        "(remove DEBUG or set DEBUG=0)")
    key = secret_key_problem(secret_key)
    if key:
        problems.append(key)
    hosts = [h.strip() for h in (allowed_hosts_raw or "").split(",") if h.strip()]
    if not hosts:
        problems.append("ALLOWED_HOSTS is not set: name the host names the town serves, comma-separated "
                        "(e.g. ALLOWED_HOSTS=stormwater.longmeadow.ma.us)")
    elif "*" in hosts:
        problems.append("ALLOWED_HOSTS=* is refused in production: name the host names the town serves")
    return problems


def refuse_production(problems: list[str]) -> None:
    if problems:
        raise StartupError("STORMWATER_ENV=production refuses to start:\n" + "\n".join(f"  - {p}" for p in problems))
