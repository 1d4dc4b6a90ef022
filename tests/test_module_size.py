"""A module of src/stormwater longer than 600 lines says at its top why it stays one module (issue 24).

A long module usually holds several families of acts or several subjects, where the habit is one module per family
of acts (services) and one per subject (engineering). One that is long for a reason states the reason in its module
docstring, with the words "One module because"; this test lists every long module that does not. Migrations are
left out: Django writes them, and they are not read as modules.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

LIMIT = 600  # lines
PHRASE = "One module because"
SRC = Path(__file__).resolve().parents[1] / "src" / "stormwater"


def _long_modules() -> list[tuple[Path, int, str]]:
    out = []
    for path in sorted(SRC.rglob("*.py")):
        if "migrations" in path.relative_to(SRC).parts:
            continue
        text = path.read_text(encoding="utf-8")
        lines = len(text.splitlines())
        if lines > LIMIT:
            out.append((path, lines, ast.get_docstring(ast.parse(text)) or ""))
    return out


def test_the_source_is_found():
    assert (SRC / "permits" / "services.py").is_file()


def test_every_module_over_600_lines_states_why_it_stays_one_module():
    # the phrase, then a reason of a few words (not the phrase alone)
    reason = re.compile(re.escape(PHRASE) + r"(\W+\w+){5,}")
    offenders = [f"{path.relative_to(SRC.parent)} ({lines} lines)" for path, lines, doc in _long_modules()
                 if not reason.search(doc)]
    assert not offenders, (f"Longer than {LIMIT} lines with no “{PHRASE} …” in the module docstring: split the "
                           "module by family of acts, or say why it stays one:\n  " + "\n  ".join(offenders))
