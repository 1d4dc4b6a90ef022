"""Tests reach the steering repository's shared folder relative to this repository (``../shared``), never by an
absolute path: a checkout elsewhere (another machine, CI, a clean clone) must find it or skip, not crash."""
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ABSOLUTE_SHARED = re.compile(r"""["'](/[^"'\s]*)?/shared(/|["'])""")


def test_no_test_names_the_shared_folder_by_an_absolute_path():
    found = []
    for path in sorted((REPO / "tests").rglob("*.py")) + sorted((REPO / "benchmarks").rglob("*.py")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if ABSOLUTE_SHARED.search(line):
                found.append(f"{path.relative_to(REPO)}:{n}: {line.strip()}")
    assert found == []
