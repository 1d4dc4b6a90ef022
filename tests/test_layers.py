"""The layers as code (STYLE.md habit 15, docs/architecture.md "Layers"): the import-linter contracts of
pyproject.toml ([tool.importlinter]: the layers, the forbidden imports, no circles inside a package) hold, checked
by ``lint-imports`` on this checkout's source, so the test command enforces them."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def test_the_import_contracts_hold():
    # The console script next to this Python (the path not resolved: a virtualenv's python is a link).
    exe = Path(sys.executable).with_name("lint-imports")
    assert exe.exists(), f"{exe} is missing: install the development requirements (pip install -r requirements-dev.txt)"
    # This checkout's source first, whatever copy of the package the environment has installed.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(REPO / "src"), os.environ.get("PYTHONPATH"))
                                                        if p)}
    r = subprocess.run([str(exe), "--no-cache"], cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        pytest.fail(f"lint-imports: broken contracts (pyproject.toml [tool.importlinter])\n{r.stdout}\n{r.stderr}",
                    pytrace=False)
