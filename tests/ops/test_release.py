"""Releases (issue 28): the version lives in one place (stormwater.__version__, which pyproject.toml reads),
``stormwater --version`` prints it (it printed Django's), CHANGELOG.md has a section for it, and
``stormwater --help`` before any .env exists writes nothing into the data folder (it wrote a
``dev-secret-key`` there, which stayed in production's data folder)."""
from __future__ import annotations

import re
import sys
import tomllib

import django

import stormwater

from .conftest import REPO, stormwater as run_stormwater


def test_the_version_is_in_one_place_and_the_changelog_describes_it():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "stormwater.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", stormwater.__version__)
    changelog = (REPO / "CHANGELOG.md").read_text()
    section = changelog.split(f"## {stormwater.__version__}", 1)
    assert len(section) == 2, "CHANGELOG.md has no section for this version"
    assert "Upgrade notes" in section[1].split("\n## ", 1)[0]


def test_version_prints_the_systems_version_and_help_writes_nothing(tmp_path):
    data = tmp_path / "data"  # does not exist yet: a new server before its .env
    out = run_stormwater("--version", data_dir=data, cwd=tmp_path).stdout.strip()
    assert out == f"stormwater {stormwater.__version__}" and out != django.get_version()
    helped = run_stormwater("--help", data_dir=data, cwd=tmp_path)
    assert "migrate" in helped.stdout and "upgrade" in helped.stdout
    assert not data.exists(), sorted(p.name for p in data.iterdir())


def _pins(path) -> dict[str, str]:
    out = {}
    for line in path.read_text().splitlines():
        m = re.match(r"^([A-Za-z0-9_.-]+)(?:\[[^]]*\])?==([^\s;\\]+)", line)
        if m:
            out[m.group(1).lower().replace("_", "-")] = m.group(2)
    return out


def test_every_runtime_package_is_pinned_and_the_lock_has_hashes():
    """requirements.txt left 20 installed packages unpinned (a plain install picked newer PyYAML, icalendar and
    matplotlib): it and requirements.lock now pin the same complete set, each locked entry with hashes."""
    lock_text = (REPO / "requirements.lock").read_text()
    lock, txt = _pins(REPO / "requirements.lock"), _pins(REPO / "requirements.txt")
    assert lock == txt
    entries = re.split(r"\n(?=[A-Za-z0-9])", lock_text.split("\n\n", 1)[1])
    assert all("--hash=sha256:" in e for e in entries if "==" in e)
    from importlib.metadata import version  # what the tests run with is what is pinned
    assert {name: version(name) for name in ("django", "pyyaml", "icalendar", "matplotlib", "sqlparse")} == \
        {name: txt[name] for name in ("django", "pyyaml", "icalendar", "matplotlib", "sqlparse")}
