"""A folder built once per test run and shared by the xdist workers (tests/conftest.py's migrated database,
tests/ops' demo town). A module of its own: a test folder's ``from conftest import …`` may find another folder's
conftest (tests/lists/conftest.py was found first)."""
from __future__ import annotations

import os
from pathlib import Path


def built_once(tmp_path_factory, name: str, build) -> Path:
    """The folder ``name`` built by ``build(folder)`` once per test run: the xdist workers share pytest's base
    temporary folder, and the first to take the lock builds it while the others wait on the lock (tests/ops'
    demo town, the migrated database below). Tests only read it (or copy it)."""
    import fcntl
    import shutil

    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    root, done = shared / name, shared / name / ".built"
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            shutil.rmtree(root, ignore_errors=True)
            root.mkdir()
            build(root)
            done.touch()
    return root
