"""A small reader of the Chapter 380 text's enumerations, for the completeness test only.

The text carries no section headings: each section restarts at "A.". Sections are found by their
first subsection (§ 380-11 opens with "Resources and guidance on requirements."; § 380-12 and § 380-13
are the two sections that follow it). Markers stand on their own line: ``B.``, ``(4)``, ``(b)``,
``[15]``, ``[a]``; the paragraph's text is the next line.
"""
from __future__ import annotations

import re
from pathlib import Path

# The steering repository's shared folder, found relative to this repository (skipped when absent).
TEXT = Path(__file__).resolve().parents[2] / ".." / "shared" / "regulations" / "ch380-stormwater-management-rules.txt"
LEVELS = [
    (re.compile(r"^([A-Z])\.\s*$"), lambda m: m),              # A.
    (re.compile(r"^\((\d+)\)\s*$"), lambda m: f"({m})"),        # (1)
    (re.compile(r"^\(([a-z])\)\s*$"), lambda m: f"({m})"),      # (a)
    (re.compile(r"^\[(\d+)\]\s*$"), lambda m: f"[{m}]"),        # [1]
    (re.compile(r"^\[([a-z])\]\s*$"), lambda m: f"[{m}]"),      # [a]
]


def regulation_text() -> str:
    """Chapter 380's text from ../shared/regulations; the test is skipped when that folder is not present."""
    import pytest

    if not TEXT.is_file():
        pytest.skip(f"../shared/regulations is not present ({TEXT})")
    return TEXT.read_text()


def sections(text: str | None = None) -> dict[str, list[tuple[str, str]]]:
    """{'380-11': [(paragraph, first line of text), ...], '380-12': [...], '380-13': [...]}."""
    lines = (text if text is not None else regulation_text()).splitlines()
    starts = [i for i, ln in enumerate(lines) if re.match(r"^A\.\s*$", ln)]
    first = next(i for i in starts if lines[i + 1].strip().startswith("Resources and guidance on requirements"))
    k = starts.index(first)
    bounds = {"380-11": (starts[k], starts[k + 1]), "380-12": (starts[k + 1], starts[k + 2]),
              "380-13": (starts[k + 2], starts[k + 3])}
    out = {}
    for sec, (a, b) in bounds.items():
        stack: list[str] = []
        paras = []
        for i in range(a, b):
            for depth, (rx, fmt) in enumerate(LEVELS):
                m = rx.match(lines[i])
                if m:
                    stack = stack[:depth] + [fmt(m.group(1))]
                    label = stack[0] + "".join(stack[1:])  # "B(4)(b)[15][a]"
                    paras.append((f"{sec} {label}", lines[i + 1].strip()))
                    break
        out[sec] = paras
    return out


def expected_paragraphs() -> list[tuple[str, str]]:
    """Every enumerated paragraph of § 380-11 B–C, § 380-12 and § 380-13 (the issue's scope)."""
    s = sections()
    keep = [p for p in s["380-11"] if p[0].split(" ")[1][0] in "BC"]
    return keep + s["380-12"] + s["380-13"]
