"""When each unattended part last did its work (issue 28): the worker beats while it runs, ``stormwater backup``
and the daily sweep record their last success. ``/readyz`` (pages.health) reads them.

One small JSON file per part in ``DATA_DIR/heartbeats/`` (``worker.json``, ``backup.json``), written whole and
renamed into place: the web app, the worker, the timers and the administrator's command share the data folder
on the town's server (docs/deploy.md), and a beat never touches the database a backup must reproduce exactly.
(The daily sweep is a Job row already: pages.health reads its last success from the database.)
"""
from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path

from django.conf import settings

FOLDER = "heartbeats"


def _path(name: str) -> Path:
    return Path(settings.DATA_DIR) / FOLDER / f"{name}.json"


def beat(name: str, *, now: datetime | None = None, **facts) -> None:
    """Record that ``name`` did its work at ``now`` (UTC), with a few facts (a file name, a process)."""
    path = _path(name)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    at = (now or datetime.now(timezone.utc)).astimezone(timezone.utc)
    tmp = path.with_name(f".{name}.{os.getpid()}.part")
    tmp.write_text(json.dumps({"at": at.isoformat(timespec="seconds"), **facts}, sort_keys=True))
    os.replace(tmp, path)


def last(name: str) -> dict | None:
    """The last beat of ``name`` ({"at": datetime, ...facts}), or None when it never beat (or the file is bad)."""
    try:
        data = json.loads(_path(name).read_text())
        data["at"] = datetime.fromisoformat(data["at"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return data
