"""The review beside the applicant's own HydroCAD or SWMM figures (issue 31): peak flow, runoff volume and
peak elevation per node and storm, typed on a form or imported as CSV, with the differences flagged
beyond a tolerance. Pure functions over a stored review's results (no Django models).

Nodes, as the review names them:

* a subcatchment: ``pre:<id>`` or ``post:<id>`` (the bare ``<id>`` when only one phase has it) — its
  runoff peak and volume;
* a BMP (HydroCAD "pond"): ``<id>`` — the outflow that goes on downstream (the surface outlets; for a
  routed BMP infiltration is not part of it), its volume, and its peak water level in the grading plan's
  datum (review/elevations.py: an elevation when the plan gives ``bottom_elevation_ft``, else the stage
  the report shows, said so beside the row);
* a design point (HydroCAD "link" or "reach"): ``<id>`` — post-development; ``pre:<id>`` pre-development.

CSV (docs/engineering.md "The applicant's figures"): UTF-8, the header exactly
``node,storm,peak_cfs,volume_cf,peak_elev_ft``, one row per node and storm, ``storm`` the return period
in years (``10``, ``10-year`` or ``10yr``), blank cells for figures not given; lines starting with ``#``
and blank lines are skipped. One bad row refuses the whole file, naming each line and field.

Tolerances (configurable per comparison; these are the defaults): 5 % of the review's number for peaks
and volumes — the agreement issue 31 asks of this review against EPA SWMM at the outfall, and the order
of the differences two correct TR-20-type models show from their time step and unit-hydrograph
discretisation alone; 0.1 ft for peak elevations — the check step of the stage–storage–discharge table
(review/elevations.py, HydroCAD's 0.10-ft listing): a smaller difference cannot be read off either table.
"""
from __future__ import annotations

import csv
import io
import math
import re
from dataclasses import dataclass

from .elevations import datum_of, level

CSV_COLUMNS = ("node", "storm", "peak_cfs", "volume_cf", "peak_elev_ft")
FIELDS = ("peak_cfs", "volume_cf", "peak_elev_ft")
DEFAULT_PEAK_PCT = 5.0
DEFAULT_VOLUME_PCT = 5.0
DEFAULT_ELEV_FT = 0.1
TOLERANCE_SOURCE = ("5 % of the review's peak and volume: the agreement issue 31 asks of this review against "
                    "EPA SWMM at the outfall (time-step and unit-hydrograph differences between correct models "
                    "are of that order); 0.1 ft in peak elevation: the check step of the stage–storage–discharge "
                    "table (HydroCAD's 0.10-ft listing)")
_STORM = re.compile(r"^\s*(\d+)\s*(?:-?\s*(?:year|yr|y))?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Tolerances:
    peak_pct: float = DEFAULT_PEAK_PCT
    volume_pct: float = DEFAULT_VOLUME_PCT
    elev_ft: float = DEFAULT_ELEV_FT


class FiguresRefused(ValueError):
    """Rows refused: ``problems`` is a list of (where, field, message); nothing is applied."""

    def __init__(self, problems: list[tuple[str, str, str]]):
        self.problems = problems
        super().__init__("; ".join(f"{w}, {f}: {m}" if f else f"{w}: {m}" for w, f, m in problems))


def nodes_of(results: dict) -> list[dict]:
    """Every node the applicant's figures can be compared with, in the report's order, with the review's
    numbers per storm: ``{"key", "label", "kind", "has_elev", "elev_label", "storms": {storm: {...}}}``."""
    storms = [str(s["ari_years"]) for s in results.get("rainfall", {}).get("storms", [])]
    out = []
    for s in results.get("subcatchments", []):
        out.append({"key": f"{s['phase']}:{s['id']}", "id": s["id"], "kind": "subcatchment", "has_elev": False,
                    "label": f"Subcatchment {s['id']} ({s['phase']}-development)", "elev_label": "",
                    "storms": {y: {"peak_cfs": st["peak_cfs"], "volume_cf": st["volume_cuft"]}
                               for y, st in s["storms"].items() if y in storms}})
    for b in results.get("bmps", []):
        datum = b.get("datum") or datum_of(b["ssd"]["rows"][0]["stage_ft"] if b.get("ssd") else None, None)
        per = {}
        for y, st in b["storms"].items():
            vol = st.get("outflow_volume_cuft", st.get("inflow_volume_cuft") if not b["routed"] else None)
            per[y] = {"peak_cfs": st.get("outflow_peak_cfs"), "volume_cf": vol,
                      "peak_elev_ft": level(st.get("peak_stage_ft"), datum) if b["routed"] else None}
        out.append({"key": b["id"], "id": b["id"], "kind": "bmp", "has_elev": bool(b["routed"]),
                    "label": f"BMP {b['id']} (outflow{', peak level' if b['routed'] else ''})",
                    "elev_label": datum["label"] if b["routed"] else "",
                    "elev_note": "" if datum["elevations"] else datum["note"], "storms": per})
    for d in results.get("design_points", []):
        for phase in ("post", "pre"):
            out.append({"key": d["id"] if phase == "post" else f"pre:{d['id']}", "id": d["id"], "kind": "dp",
                        "has_elev": False, "elev_label": "",
                        "label": f"Design point {d['id']} ({phase}-development)",
                        "storms": {y: {"peak_cfs": st[f"{phase}_peak_cfs"], "volume_cf": st[f"{phase}_volume_cuft"]}
                                   for y, st in d["storms"].items()}})
    return out


def node_lookup(results: dict) -> dict[str, dict]:
    """Node names → node: every key, and a subcatchment's bare id where only one phase has it."""
    nodes = nodes_of(results)
    by = {n["key"]: n for n in nodes}
    bare: dict[str, list[dict]] = {}
    for n in nodes:
        if n["kind"] == "subcatchment":
            bare.setdefault(n["id"], []).append(n)
    for sid, ns in bare.items():
        if len(ns) == 1 and sid not in by:
            by[sid] = ns[0]
    return by


def storm_of(text: str, storms: list[str]) -> str | None:
    m = _STORM.match(text or "")
    return m.group(1) if m and m.group(1) in storms else None


def _number(text: str, field: str) -> tuple[float | None, str]:
    t = (text or "").strip().replace(",", "")
    if not t:
        return None, ""
    try:
        x = float(t)
    except ValueError:
        return None, f"“{text.strip()}” is not a number"
    if not math.isfinite(x):
        return None, f"“{text.strip()}” is not a number"
    if field != "peak_elev_ft" and x < 0:
        return None, f"{x:g} is negative"
    return x, ""


def check_row(results: dict, lookup: dict, where: str, node: str, storm: str, values: dict[str, str]
              ) -> tuple[dict | None, list[tuple[str, str, str]]]:
    """One row of figures → a stored row, or the problems (where, field, message)."""
    storms = [str(s["ari_years"]) for s in results.get("rainfall", {}).get("storms", [])]
    problems = []
    n = lookup.get((node or "").strip())
    if n is None:
        amb = [k for k in lookup if k.endswith(f":{(node or '').strip()}")]
        problems.append((where, "node", f"“{node}”: no such node in this review" +
                         (f" (name the phase: {' or '.join(amb)})" if amb else
                          f" (the nodes: {', '.join(sorted(k for k in lookup))})")))
    y = storm_of(storm, storms)
    if y is None:
        problems.append((where, "storm", f"“{storm}”: not a storm of this review ({', '.join(storms)}-year)"))
    row = {"node": n["key"] if n else node, "storm": y}
    for f in FIELDS:
        x, err = _number(values.get(f, ""), f)
        if err:
            problems.append((where, f, err))
        elif f == "peak_elev_ft" and x is not None and n is not None and not n["has_elev"]:
            problems.append((where, f, f"{n['label']} has no water level to compare"))
        row[f] = x
    if not problems and all(row[f] is None for f in FIELDS):
        return None, []
    return (None if problems else row), problems


def figures_from_csv(text: str, results: dict) -> list[dict]:
    """The CSV's rows, checked; raises :class:`FiguresRefused` naming every bad line and field."""
    lookup = node_lookup(results)
    lines = [(i, ln) for i, ln in enumerate(text.splitlines(), 1) if ln.strip() and not ln.lstrip().startswith("#")]
    if not lines:
        raise FiguresRefused([("line 1", "", "the file is empty (expected the header " + ",".join(CSV_COLUMNS) + ")")])
    head_no, head = lines[0]
    cols = [c.strip().lower() for c in next(csv.reader([head]))]
    if tuple(cols) != CSV_COLUMNS:
        raise FiguresRefused([(f"line {head_no}", "", f"the header must be {','.join(CSV_COLUMNS)} (found {head.strip()})")])
    rows, problems, seen = [], [], {}
    for no, ln in lines[1:]:
        cells = next(csv.reader(io.StringIO(ln)))
        where = f"line {no}"
        if len(cells) != len(CSV_COLUMNS):
            problems.append((where, "", f"{len(cells)} fields, expected {len(CSV_COLUMNS)} ({','.join(CSV_COLUMNS)})"))
            continue
        row, bad = check_row(results, lookup, where, cells[0], cells[1], dict(zip(CSV_COLUMNS[2:], cells[2:])))
        problems.extend(bad)
        if row:
            key = (row["node"], row["storm"])
            if key in seen:
                problems.append((where, "node", f"{row['node']}, {row['storm']}-year is already on line {seen[key]}"))
                continue
            seen[key] = no
            rows.append(row)
    if problems:
        raise FiguresRefused(problems)
    return rows


def compare(results: dict, rows: list[dict], tol: Tolerances) -> dict:
    """The applicant's rows beside the review's numbers: ``{"rows": [...], "flagged": n, "tolerances": ...}``."""
    lookup = node_lookup(results)
    order = {n["key"]: i for i, n in enumerate(nodes_of(results))}
    storms = [str(s["ari_years"]) for s in results.get("rainfall", {}).get("storms", [])]
    out = []
    for r in sorted(rows, key=lambda r: (order.get(r["node"], 10**6), storms.index(r["storm"]) if r["storm"] in storms else 99)):
        n = lookup.get(r["node"])
        if n is None:   # a node the review no longer has (not possible for stored rows, which are checked)
            continue
        ours = n["storms"].get(r["storm"], {})
        cells = [_cell("Peak (cfs)", r.get("peak_cfs"), ours.get("peak_cfs"), pct=tol.peak_pct, nd=2),
                 _cell("Volume (ft³)", r.get("volume_cf"), ours.get("volume_cf"), pct=tol.volume_pct, nd=0)]
        if n["has_elev"]:
            cells.append(_cell(f"Peak level: {n['elev_label']}", r.get("peak_elev_ft"), ours.get("peak_elev_ft"),
                               ft=tol.elev_ft, nd=2))
        out.append({"node": n["key"], "label": n["label"], "storm": r["storm"], "cells": cells,
                    "note": n.get("elev_note", "") if r.get("peak_elev_ft") is not None else "",
                    "flagged": any(c["flagged"] for c in cells)})
    return {"rows": out, "flagged": sum(c["flagged"] for r in out for c in r["cells"]),
            "tolerances": {"peak_pct": tol.peak_pct, "volume_pct": tol.volume_pct, "elev_ft": tol.elev_ft},
            "source": TOLERANCE_SOURCE}


def _cell(what: str, theirs: float | None, ours: float | None, *, pct: float | None = None, ft: float | None = None,
          nd: int) -> dict:
    """One figure: the applicant's, the review's, the difference (applicant − review) and whether it is
    beyond the tolerance (relative to the review's number, or in feet)."""
    cell = {"what": what, "applicant": theirs, "review": ours, "diff": None, "diff_pct": None, "flagged": False,
            "tolerance": f"± {pct:g} %" if pct is not None else f"± {ft:g} ft"}
    if theirs is None or ours is None:
        return cell
    d = theirs - ours
    cell["diff"] = round(d, nd) if nd else round(d)
    if ft is not None:
        cell["flagged"] = abs(d) > ft + 1e-9
    else:
        cell["diff_pct"] = round(100.0 * d / ours, 1) if ours else None
        cell["flagged"] = abs(d) > pct / 100.0 * abs(ours) + 1e-9 if ours else abs(d) > 0
    return cell
