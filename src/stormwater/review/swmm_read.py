"""Reading an EPA SWMM 5 input file (``.inp``): sections, numbers, options, curves (split from swmm.py).

Pure Python, no Django. Rossman (2015, 2022) *SWMM User's Manual*, Appendix D (input file format).
"""
from __future__ import annotations

import math
import re
import shlex

NO_EMERGENCY = "no outlet is marked as the emergency overflow"


class SwmmInputError(ValueError):
    """The .inp cannot be converted; the message starts with ``swmm:`` and names the section or object."""


# --- reading ----------------------------------------------------------------------------------------

def read_inp(text: str) -> dict[str, list[list[str]]]:
    """Sections of a SWMM .inp: ``{"SUBCATCHMENTS": [[name, gage, outlet, ...], ...], ...}`` (comments dropped)."""
    sections: dict[str, list[list[str]]] = {}
    current = None
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split(";", 1)[0].strip()
        if not line:
            continue
        m = re.fullmatch(r"\[([A-Za-z_]+)\]", line)
        if m:
            current = m.group(1).upper()
            sections.setdefault(current, [])
            continue
        if current is None:
            raise SwmmInputError(f"swmm: line {n}: data before any [SECTION]")
        try:
            tokens = shlex.split(line, posix=True)
        except ValueError:
            tokens = line.split()
        sections[current].append(tokens)
    if "SUBCATCHMENTS" not in sections:
        raise SwmmInputError("swmm: no [SUBCATCHMENTS] section: not a SWMM 5 input file, or a model without runoff")
    if current is not None and sections[current] and not text.endswith(("\n", "\r")):
        _check_not_cut(current, sections[current], n)
    return sections


def _check_not_cut(section: str, rows: list[list[str]], line: int) -> None:
    """The file ends inside its last line (no final newline): a model cut off in transfer (issue 26: a model cut in
    half was accepted and reviewed). The last row is compared with its section's other rows as the import
    pipeline's ``cut_last_value`` compares a CSV's last value: fewer fields than every other row, or a last value
    shorter or of another pattern than the column's others, refuses the file."""
    from stormwater.imports.pipeline import cut_last_value

    last, others = rows[-1], rows[:-1]
    if len(others) < 2:
        return
    widths = {len(r) for r in others}
    if len(last) < min(widths):
        raise SwmmInputError(f"swmm: line {line} ([{section}]): the file ends inside this line ({len(last)} fields, "
                             f"the section's other rows have {min(widths)} or more): the model was cut off; upload "
                             "the complete file")
    if len(widths) == 1 and len(last) == len(others[0]):
        cols = [f"field {i + 1}" for i in range(len(last))]
        cut = cut_last_value(cols, [dict(zip(cols, r)) for r in rows], name="swmm", last_row=line)
        if cut:
            raise SwmmInputError(f"swmm: line {line} ([{section}]): the file ends inside its last value "
                                 f"{last[-1]!r}, unlike the section's other rows: the model was cut off; upload the "
                                 "complete file")


def _num(tokens: list[str], i: int, what: str) -> float:
    try:
        x = float(tokens[i])
    except (IndexError, ValueError):
        raise SwmmInputError(f"swmm: {what}: expected a number in field {i + 1} of {' '.join(tokens)!r}") from None
    if not math.isfinite(x):
        raise SwmmInputError(f"swmm: {what}: not a finite number")
    return x


def _options(sec: dict) -> dict[str, str]:
    return {t[0].upper(): " ".join(t[1:]) for t in sec.get("OPTIONS", []) if t}


def _curves(sec: dict) -> dict[str, list[tuple[float, float]]]:
    out: dict[str, list[tuple[float, float]]] = {}
    for t in sec.get("CURVES", []):
        if len(t) >= 4 and not _is_number(t[1]):  # name type x y
            out.setdefault(t[0], []).append((_num(t, 2, f"curve {t[0]}"), _num(t, 3, f"curve {t[0]}")))
        elif len(t) >= 3:
            out.setdefault(t[0], []).append((_num(t, 1, f"curve {t[0]}"), _num(t, 2, f"curve {t[0]}")))
    return out


def _is_number(s: str) -> bool:
    try:
        float(s)
        return True
    except ValueError:
        return False


def _section_lines(text: str, name: str) -> list[str]:
    out, current = [], None
    for raw in text.splitlines():
        m = re.fullmatch(r"\[([A-Za-z_]+)\]", raw.split(";", 1)[0].strip())
        if m:
            current = m.group(1).upper()
            continue
        if current == name and raw.split(";", 1)[0].strip():
            out.append(raw)
    return out


def title_of(text: str) -> str:
    """The first line of the model's [TITLE] section, if any."""
    lines = _section_lines(text, "TITLE")
    return lines[0].strip()[:200] if lines else ""
