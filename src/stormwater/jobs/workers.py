"""Who runs a job: a process named ``host:pid``, and whether it is still alive.

On the same host a process that is gone (or a zombie waiting to be reaped) is seen at once; a process on
another host is taken for lost when the job's heartbeat is older than ``settings.JOBS_STALE_SECONDS``.
"""
from __future__ import annotations

import os
import socket
from datetime import timedelta

from django.conf import settings
from django.utils import timezone


def this_host() -> str:
    return socket.gethostname()[:60]


def worker_name() -> str:
    """This process's name in Job.worker and in the queue library's worker ids."""
    return f"{this_host()}:{os.getpid()}"


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    try:  # a killed child its parent has not reaped yet is a zombie: dead for us
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def worker_lost(worker: str, heartbeat_at, *, me: str | None = None) -> bool:
    """True when the process ``worker`` cannot be running the job any more."""
    if not worker:
        return True
    if me is not None and worker == me:
        return True  # this process is starting: nothing runs under its name yet
    host, _, pid = worker.rpartition(":")
    if host == this_host() and pid.isdigit():
        return not pid_alive(int(pid))
    stale = timezone.now() - timedelta(seconds=settings.JOBS_STALE_SECONDS)
    return heartbeat_at is None or heartbeat_at < stale
