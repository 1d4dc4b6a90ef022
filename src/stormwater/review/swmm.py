"""An applicant's EPA SWMM 5 model (``.inp``): converted into a plan, and re-run with SWMM for comparison.

Pure Python apart from the SWMM solver (``swmm-toolkit``, a runtime dependency since issue 19: the
review re-runs the applicant's own model on the server), imported only where a model is run; no Django.

**Import** (:func:`plan_from_inp`): SWMM's subcatchments become post-development subcatchments
(``[SUBCATCHMENTS]``, ``[SUBAREAS]``, ``[INFILTRATION]`` with CURVE_NUMBER), its storage units BMPs
(``[STORAGE]`` with a TABULAR or FUNCTIONAL area curve integrated to a stage-storage table, seepage
``Ksat`` as the infiltration rate over the bottom area, ``InitDepth`` as the starting level), its
orifices and weirs their outlets (``[ORIFICES]``/``[WEIRS]`` with ``[XSECTIONS]``; offsets above the
storage invert as elevations), its outfalls design points; junctions and conduits are followed
downstream to the next storage unit or outfall (conveyance is not routed). A pre-development model's
subcatchments become the pre-development ones (same outfall names). What cannot be carried over is
refused with the reason (a non-CFS model, a non-CN infiltration method) or listed in the conversion
notes (rating-curve outlets, pumps, rectangular orifices, a conduit leaving a storage unit).

The conversion choices, each a note on the report:
- SWMM computes the impervious and pervious subareas separately, so the subcatchment's runoff method
  is ``separate``: impervious CN 98, pervious the SWMM curve number.
- Tc from SWMM's plane: flow length L = area ÷ width; TR-55 sheet flow over min(L, 300 ft) with the
  area-weighted Manning n of the subareas, then shallow concentrated flow (paved if at least half is
  impervious) over the rest, at SWMM's slope.

**Comparison** (:func:`compare`): for each design storm of the review, the applicant's model is run by
SWMM with its rain gauges fed the same storm (0.1-h intensities of the NRCS distribution at the design
depth), and set beside the review's own numbers node by node: subcatchment runoff volume and peak,
storage peak depth and outflow peak, outfall peak and volume. The model as submitted (its own rainfall)
is also run and summarised. Differences are explained by the methods (see ``DIFFERENCES``).

References
----------
Rossman, L. A. (2015, 2022), *Storm Water Management Model User's Manual Version 5.1/5.2*, EPA/600/R-14/413b
(input file format, Appendix D); Rossman and Huber (2016), *SWMM Reference Manual Vol. I -- Hydrology*
ch. 3-4; Vol. II -- Hydraulics (storage units, orifices, weirs).
"""
from __future__ import annotations

import math
import os
import re
import shlex
import tempfile

from . import swmm_infiltration as si

SQFT_PER_ACRE = 43560.0
SHEET_MAX_FT = 300.0
NODE_SECTIONS = ("JUNCTIONS", "OUTFALLS", "STORAGE", "DIVIDERS")
LINK_SECTIONS = ("CONDUITS", "ORIFICES", "WEIRS", "OUTLETS", "PUMPS")
NO_EMERGENCY = "no outlet is marked as the emergency overflow"

DIFFERENCES = [
    ("Initial abstraction", "SWMM's curve-number infiltration is F = P S / (P + S), the runoff equation with no "
     "initial abstraction (Ia = 0), and losses before runoff come from depression storage instead; TR-55 takes "
     "Ia = 0.2 S. Pervious runoff is higher in SWMM for small storms (see docs/engineering.md, EPA SWMM cross-check)."),
    ("Depression storage", "SWMM holds the subareas' depression storage (S-Imperv, S-Perv) before runoff; the review "
     "has none on impervious surfaces (CN 98 gives Ia = 0.04 in)."),
    ("Overland flow", "SWMM routes runoff over a plane by a nonlinear reservoir (width, slope, roughness); the review "
     "uses the NRCS unit hydrograph with a TR-55 Tc from the same plane. SWMM's peak rises faster with the storm."),
    ("Conveyance", "SWMM routes conduits (kinematic or dynamic wave); the review passes junctions and pipes through "
     "without delay or attenuation."),
    ("Storage seepage", "SWMM's seepage is Green-Ampt over the wetted area; the review infiltrates at the stated rate "
     "over the bottom only."),
    ("Outlets", "Partly full orifices: SWMM uses a weir-type equation, the review the wetted circular segment; "
     "coefficients as given in the model."),
    ("Infiltration (Horton, Green-Ampt)", "A Horton or Green-Ampt subarea is run by SWMM with its own loss model; the "
     "review converts it to the one curve number that fits the subarea's runoff on 3, 5 and 8-inch Type III storms "
     "(each subcatchment's note gives both depths). One CN cannot follow a loss model on every storm: the review "
     "under-predicts small storms and over-predicts large ones where the fit is poor (Rossman & Huber 2016, Vol. I "
     "ch. 4)."),
]
OUTFALL_TOLERANCE = 0.05  # issue 31: outfall peaks within 5 % of SWMM, or the difference explained


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


def _stage_storage(name: str, max_depth: float, area_at) -> list[list[float]]:
    """Storage [ft³] by integrating the area curve (trapezoid on 20 steps per foot) up to the max depth."""
    n = max(10, int(math.ceil(max_depth * 20)))
    stages = [max_depth * k / n for k in range(n + 1)]
    vol, rows, prev = 0.0, [[0.0, 0.0]], area_at(0.0)
    for a, b in zip(stages, stages[1:]):
        ab = area_at(b)
        vol += (prev + ab) / 2.0 * (b - a)
        prev = ab
        rows.append([round(b, 4), round(vol, 1)])
    keep = [rows[0]] + [r for i, r in enumerate(rows[1:], 1) if i % 5 == 0 or i == len(rows) - 1]
    out = []
    for r in keep:  # storage must increase strictly
        if not out or (r[0] > out[-1][0] and r[1] > out[-1][1]):
            out.append(r)
    if len(out) < 2:
        raise SwmmInputError(f"swmm: storage {name}: its area curve gives no volume")
    return out


def _tags(sec: dict) -> dict[tuple[str, str], str]:
    """[TAGS]: ``Subcatch S1 HSG-B`` / ``Link W2 Emergency`` → {("SUBCATCH", "S1"): "HSG-B", ...}."""
    return {(t[0].upper(), t[1]): " ".join(t[2:]) for t in sec.get("TAGS", []) if len(t) >= 3}


def _hsg_tag(tag: str) -> str:
    m = re.fullmatch(r"(?:HSG|SOIL|GROUP|HYDROLOGIC_SOIL_GROUP)?[-_ ]?([ABCD])", tag.strip(), re.I)
    return m.group(1).upper() if m else ""


def _is_emergency(name: str, tag: str) -> bool:
    return bool(re.search(r"emerg|spill", f"{name} {tag}", re.I))


def _flow_path(n: float, length: float, slope: float, *, paved: bool) -> list[dict]:
    """TR-55 sheet flow over min(L, 300 ft) at the subarea's own Manning n, then shallow concentrated flow."""
    tc = [{"flow": "sheet", "manning_n": round(max(n, 0.011), 4), "length_ft": round(min(length, SHEET_MAX_FT), 2),
           "slope": slope}]
    if length > SHEET_MAX_FT:
        tc.append({"flow": "shallow", "surface": "paved" if paved else "unpaved",
                   "length_ft": round(length - SHEET_MAX_FT, 2), "slope": slope})
    return tc


def conduits_of(sec: dict) -> list[dict]:
    """The model's conduits as data (the review does not route them): name, ends, length, n, shape, slope."""
    elev = {t[0]: float(t[1]) for kind in NODE_SECTIONS for t in sec.get(kind, [])
            if len(t) > 1 and _is_number(t[1])}
    xs = {t[0]: t for t in sec.get("XSECTIONS", [])}
    out = []
    for t in sec.get("CONDUITS", []):
        length = _num(t, 3, f"conduit {t[0]} length")
        x = xs.get(t[0])
        off_in = float(t[5]) if len(t) > 5 and _is_number(t[5]) else 0.0
        off_out = float(t[6]) if len(t) > 6 and _is_number(t[6]) else 0.0
        slope = None
        if t[1] in elev and t[2] in elev and length > 0:
            slope = round((elev[t[1]] + off_in - elev[t[2]] - off_out) / length, 5)
        out.append({"name": t[0], "from": t[1], "to": t[2], "length_ft": length,
                    "roughness": _num(t, 4, f"conduit {t[0]} roughness"), "shape": x[1].upper() if x else "",
                    "geom1_ft": float(x[2]) if x and len(x) > 2 and _is_number(x[2]) else None, "slope": slope})
    return out


def plan_from_inp(post_text: str, *, pre_text: str | None = None, name: str = "",
                  reference_depths_in=si.REFERENCE_DEPTHS_IN) -> tuple[dict, list[str]]:
    """A plan file's mapping (without rainfall and project facts) and the conversion notes.

    ``reference_depths_in``: the 24-hour storms a Horton / Green-Ampt subarea's curve number is fitted on."""
    notes: list[str] = []
    post = read_inp(post_text)
    sub_post, bmps, outfalls = _convert(post, "post", notes, reference_depths_in)
    conduits = conduits_of(post)
    if conduits:
        notes.append(f"post: {len(conduits)} conduit{'s' if len(conduits) > 1 else ''}, "
                     f"{sum(c['length_ft'] for c in conduits):,.0f} ft in all ("
                     + ", ".join(f"{c['name']} {c['from']}→{c['to']} {c['length_ft']:g} ft" for c in conduits)
                     + "): kept in the plan data (swmm.conduits) but not routed; flows pass them without delay or "
                     "attenuation (see Conveyance)")
    plan: dict = {"schema": "longmeadow-swmp/1", "design_points": [{"id": o, "description": "SWMM outfall"} for o in outfalls],
                  "post": sub_post, "bmps": bmps, "pre": [],
                  "swmm": {"name": name, "post_inp": post_text, **({"pre_inp": pre_text} if pre_text else {}),
                           "notes": notes, **({"conduits": conduits} if conduits else {})}}
    if pre_text:
        pre = read_inp(pre_text)
        sub_pre, pre_bmps, pre_out = _convert(pre, "pre", notes, reference_depths_in)
        if pre_bmps:
            notes.append("pre-development model: its storage units are ignored (pre-development flows go straight to "
                         "the design points)")
        unknown = sorted(set(pre_out) - set(outfalls))
        if unknown:
            raise SwmmInputError(f"swmm: the pre-development model's outfalls {', '.join(unknown)} are not outfalls of the "
                                 "post-development model (design points must have the same names)")
        plan["pre"] = sub_pre
    return plan, notes


def _convert(sec: dict, phase: str, notes: list[str], reference_depths) -> tuple[list[dict], list[dict], list[str]]:
    opts = _options(sec)
    units = opts.get("FLOW_UNITS", "CFS").upper()
    if units != "CFS":
        raise SwmmInputError(f"swmm: [OPTIONS] FLOW_UNITS {units}: only US units (CFS) are read")
    infil = opts.get("INFILTRATION", "HORTON").upper()
    if infil not in ("CURVE_NUMBER", *si.METHODS):
        raise SwmmInputError(f"swmm: [OPTIONS] INFILTRATION {infil}: not a SWMM 5 infiltration method the review "
                             "reads (CURVE_NUMBER, HORTON, MODIFIED_HORTON, GREEN_AMPT, MODIFIED_GREEN_AMPT)")
    outfalls = [t[0] for t in sec.get("OUTFALLS", [])]
    nodes = {t[0]: t for kind in NODE_SECTIONS for t in sec.get(kind, []) if t}
    tags = _tags(sec)
    storages = {t[0]: t for t in sec.get("STORAGE", [])}
    links: dict[str, list[tuple[str, str, list[str]]]] = {}  # from node -> [(kind, to node, tokens)]
    for kind in LINK_SECTIONS:
        for t in sec.get(kind, []):
            if len(t) < 3:
                raise SwmmInputError(f"swmm: [{kind}] {t[0]}: no from and to nodes: an incomplete or cut-off model")
            for end in t[1:3]:
                if end not in nodes:
                    raise SwmmInputError(f"swmm: {kind.lower()[:-1]} {t[0]} connects node {end}, which is not in the "
                                         f"model ({', '.join(NODE_SECTIONS)}): an incomplete or cut-off model")
            links.setdefault(t[1], []).append((kind, t[2], t))
    xs = {t[0]: t for t in sec.get("XSECTIONS", [])}
    curves = _curves(sec)

    def downstream(node: str, seen=()) -> str:
        """Follow junctions and conduits to the next storage unit or outfall."""
        if node not in nodes:
            raise SwmmInputError(f"swmm: node {node} is not in the model ({', '.join(NODE_SECTIONS)}): an incomplete "
                                 "or cut-off model")
        if node in storages or node in outfalls:
            return node
        if node in seen:
            raise SwmmInputError(f"swmm: a loop through node {node}")
        nxt = links.get(node, [])
        if not nxt:
            raise SwmmInputError(f"swmm: node {node} has no outgoing link and is not an outfall or storage unit: "
                                 "its water has no path to an outfall (an incomplete or cut-off model?)")
        if len(nxt) > 1:
            notes.append(f"{phase}: node {node} has {len(nxt)} outgoing links; the first ({nxt[0][2][0]}) is followed")
        return downstream(nxt[0][1], (*seen, node))

    subareas = {t[0]: t for t in sec.get("SUBAREAS", [])}
    infil_rows = {t[0]: t for t in sec.get("INFILTRATION", [])}
    sub_names = {t[0] for t in sec["SUBCATCHMENTS"]}
    subs = []
    for t in sec["SUBCATCHMENTS"]:
        sid = t[0]
        area = _num(t, 3, f"subcatchment {sid} area")
        pimp = _num(t, 4, f"subcatchment {sid} %imperv") / 100.0
        width = _num(t, 5, f"subcatchment {sid} width")
        slope = _num(t, 6, f"subcatchment {sid} %slope") / 100.0
        if slope <= 0:
            raise SwmmInputError(f"swmm: subcatchment {sid}: slope must be greater than zero")
        if t[2] in sub_names:
            raise SwmmInputError(f"swmm: subcatchment {sid}: its outlet is subcatchment {t[2]} (runoff onto another "
                                 "subcatchment is not converted); send it to a node")
        if t[2] not in nodes:
            raise SwmmInputError(f"swmm: subcatchment {sid}: its outlet node {t[2]} is not in the model "
                                 f"({', '.join(NODE_SECTIONS)}): an incomplete or cut-off model")
        sa = subareas.get(sid)
        if sa is None:
            raise SwmmInputError(f"swmm: subcatchment {sid}: no [SUBAREAS] row (roughness and depression storage): "
                                 "an incomplete or cut-off model")
        n_imp = _num(sa, 1, f"subcatchment {sid} N-Imperv")
        n_perv = _num(sa, 2, f"subcatchment {sid} N-Perv")
        s_perv = _num(sa, 4, f"subcatchment {sid} S-Perv") if len(sa) > 4 else 0.0
        if len(sa) > 6 and sa[6].upper() != "OUTLET":
            notes.append(f"{phase} {sid}: subarea routing {sa[6]} in SWMM (runoff routed between subareas); the review "
                         "sends both subareas to the outlet")
        if sid not in infil_rows:
            raise SwmmInputError(f"swmm: subcatchment {sid}: no [INFILTRATION] row")
        row = infil_rows[sid]
        method = row[-1].upper() if len(row) > 2 and row[-1].upper() in (*si.METHODS, "CURVE_NUMBER") else infil
        hsg, why = _hsg_tag(tags.get(("SUBCATCH", sid), "")), "stated in [TAGS]"
        if method == "CURVE_NUMBER":
            cn = _num(row, 1, f"subcatchment {sid} curve number")
            if not hsg:
                hsg, why = si.hsg_from_cn(cn)
        else:
            try:
                params = si.read_params(method, row, sid)
            except si.InfiltrationParamError as e:
                raise SwmmInputError(str(e)) from None
            length = area * SQFT_PER_ACRE / width if width > 0 else SHEET_MAX_FT
            cn, fit = si.equivalent_cn(method, params, s_perv, reference_depths, n_perv=n_perv, length_ft=length,
                                       slope=slope)
            notes.append(f"{phase} {sid}: pervious losses {si.describe(method, params)}, depression storage "
                         f"{s_perv:g} in, run as SWMM runs them (with its nonlinear reservoir over the plane) on the NRCS Type III 24-hour storm ("
                         + "; ".join(f"{p:g} in: runoff {q:.2f} in, CN {cn:g} gives {qc:.2f} in" for p, q, qc in fit)
                         + f"); converted to the curve number {cn:g} that fits best (least squares) [{si.SRC}]")
            if not hsg:
                hsg, why = si.hsg_from_params(method, params)
        if pimp < 1 or phase == "pre":
            notes.append(f"{phase} {sid}: soil group {hsg}: {why}")
        target = downstream(t[2])
        if phase == "pre" and target in storages:
            raise SwmmInputError(f"swmm: pre-development subcatchment {sid} drains to storage unit {target}")
        cover = []
        if pimp > 0:
            cover.append({"cn": 98, "area_acres": round(area * pimp, 5), "impervious": True, "hsg": hsg})
        if pimp < 1:
            cover.append({"cn": cn, "area_acres": round(area * (1 - pimp), 5), "hsg": hsg})
        length = area * SQFT_PER_ACRE / width if width > 0 else SHEET_MAX_FT
        sub = {"id": sid, "description": f"SWMM subcatchment {sid} ({area:g} ac, {100 * pimp:g} % impervious, width "
                                         f"{width:g} ft)", "area_acres": area, "to": target, "cover": cover,
               "tc": _flow_path(n_perv if pimp < 1 else n_imp, length, slope, paved=pimp >= 1)}
        if 0 < pimp < 1:
            sub["runoff_method"] = "separate"
            sub["impervious_tc"] = _flow_path(n_imp, length, slope, paved=True)
        subs.append(sub)
    bmps = []
    for sid, t in storages.items():
        max_depth = _num(t, 2, f"storage {sid} max depth")
        init = _num(t, 3, f"storage {sid} initial depth")
        shape = t[4].upper() if len(t) > 4 else ""
        if shape == "TABULAR":
            pts = curves.get(t[5]) if len(t) > 5 else None
            if not pts:
                raise SwmmInputError(f"swmm: storage {sid}: its curve {t[5] if len(t) > 5 else '?'} is not in [CURVES]")
            ds, As = [p[0] for p in pts], [p[1] for p in pts]
            if ds[-1] < max_depth:
                ds, As = [*ds, max_depth], [*As, As[-1]]
                notes.append(f"storage {sid}: area curve extended flat from {pts[-1][0]:g} to the max depth {max_depth:g} ft")

            def area_at(d, ds=ds, As=As):
                if d <= ds[0]:
                    return As[0]
                for (d0, a0), (d1, a1) in zip(zip(ds, As), zip(ds[1:], As[1:])):
                    if d0 <= d <= d1:
                        return a0 + (a1 - a0) * (d - d0) / (d1 - d0) if d1 > d0 else a1
                return As[-1]
            rest = t[6:]
        elif shape == "FUNCTIONAL":
            a, b, c = (_num(t, i, f"storage {sid} functional curve") for i in (5, 6, 7))

            def area_at(d, a=a, b=b, c=c):
                return a * d ** b + c if d > 0 else (c if b > 0 else a + c)
            rest = t[8:]
        else:
            raise SwmmInputError(f"swmm: storage {sid}: shape {shape or '?'} is not read (TABULAR or FUNCTIONAL)")
        ss = _stage_storage(sid, max_depth, area_at)
        bmp = {"id": sid, "type": "storage_unit", "description": f"SWMM storage unit {sid} (max depth {max_depth:g} ft)",
               "stage_storage": ss, "outlets": []}
        # seepage: SurDepth Fevap Psi Ksat IMD (SWMM 5.1.013+): Ksat at index 3 of the rest
        if len(rest) >= 4 and _is_number(rest[3]) and float(rest[3]) > 0:
            bmp["infiltration_rate_in_hr"] = float(rest[3])
            bmp["bottom_area_sqft"] = round(area_at(0.0), 1)
            bmp["type"] = "infiltration_basin"
        if init > 0:
            bmp["starting_stage_ft"] = min(init, ss[-1][0])
        to = None
        for kind, node, lt in links.get(sid, []):
            dest = downstream(node)
            if to is None:
                to = dest
            elif dest != to:
                notes.append(f"storage {sid}: link {lt[0]} goes to {dest}, another link to {to}; the review sends all "
                             f"of {sid}'s outflow to {to}")
            x = xs.get(lt[0])
            if kind == "ORIFICES":
                if not x or x[1].upper() != "CIRCULAR":
                    notes.append(f"storage {sid}: orifice {lt[0]} is not circular ({x[1] if x else '?'}); left out")
                    continue
                bmp["outlets"].append({"kind": "orifice", "name": lt[0], "invert_ft": _num(lt, 4, f"orifice {lt[0]} offset"),
                                       "diameter_in": round(_num(x, 2, f"orifice {lt[0]} diameter") * 12, 3),
                                       "coefficient": _num(lt, 5, f"orifice {lt[0]} coefficient")})
            elif kind == "WEIRS":
                if not x:
                    notes.append(f"storage {sid}: weir {lt[0]} has no [XSECTIONS] row; left out")
                    continue
                if lt[3].upper() != "TRANSVERSE":
                    notes.append(f"storage {sid}: weir {lt[0]} is {lt[3]}; treated as a rectangular (transverse) weir")
                bmp["outlets"].append({"kind": "weir", "name": lt[0], "crest_ft": _num(lt, 4, f"weir {lt[0]} crest"),
                                       "length_ft": _num(x, 3, f"weir {lt[0]} length"),
                                       "coefficient": _num(lt, 5, f"weir {lt[0]} coefficient")})
            elif kind == "CONDUITS":
                if x and x[1].upper() == "CIRCULAR":
                    off = _num(lt, 5, f"conduit {lt[0]} inlet offset") if len(lt) > 5 else 0.0
                    bmp["outlets"].append({"kind": "orifice", "name": f"{lt[0]} (pipe inlet)", "invert_ft": off,
                                           "diameter_in": round(_num(x, 2, f"conduit {lt[0]} diameter") * 12, 3)})
                    notes.append(f"storage {sid}: conduit {lt[0]} leaves it; modelled as an orifice of the pipe's "
                                 "diameter at its inlet offset (Cd 0.6)")
                else:
                    notes.append(f"storage {sid}: conduit {lt[0]} leaves it and is not circular; left out")
            else:
                notes.append(f"storage {sid}: {kind.lower()[:-1]} {lt[0]} (rating curve or pump) is not converted")
        for o in bmp["outlets"]:
            top = ss[-1][0]
            key = "invert_ft" if o["kind"] == "orifice" else "crest_ft"
            if o[key] > top:
                notes.append(f"storage {sid}: outlet {o['name']} at {o[key]:g} ft is above the max depth; left out")
        bmp["outlets"] = [o for o in bmp["outlets"] if o.get("invert_ft", o.get("crest_ft", 0)) <= ss[-1][0]]
        if not to and "infiltration_rate_in_hr" not in bmp:
            raise SwmmInputError(f"swmm: storage {sid}: no outgoing link and no seepage: its water has no path to an "
                                 "outfall (an incomplete or cut-off model?)")
        if not bmp["outlets"] and "infiltration_rate_in_hr" not in bmp:
            raise SwmmInputError(f"swmm: storage {sid}: no outlet the review can model")
        bmp["to"] = to or (outfalls[0] if outfalls else "")
        if not to:
            notes.append(f"storage {sid}: no outgoing link (it only infiltrates); an overflow is sent to {bmp['to']}")
        for o in bmp["outlets"]:
            if _is_emergency(o["name"], tags.get(("LINK", o["name"]), "")):
                o["emergency"] = True
                notes.append(f"storage {sid}: outlet {o['name']} is the emergency overflow (by its name or tag)")
        if not any(o.get("emergency") for o in bmp["outlets"]):
            notes.append(f"storage {sid}: {NO_EMERGENCY}; mark it in the form if there is one")
        bmps.append(bmp)
    if not outfalls:
        raise SwmmInputError("swmm: no [OUTFALLS]: the design points are the model's outfalls")
    for kind in ("PUMPS", "OUTLETS"):
        if sec.get(kind):
            notes.append(f"{phase}: [{kind}] present; pumps and rating-curve outlets are not converted")
    return subs, bmps, outfalls


# --- running SWMM --------------------------------------------------------------------------------------

def _with_design_storm(text: str, rainfall_in: float, storm_type: str) -> str:
    """The model with every rain gauge fed the NRCS storm: 0.1-h intensities, 72-h simulation."""
    from stormwater.engineering.rainfall import nrcs_24hr_cumulative_fraction

    cum = [rainfall_in * nrcs_24hr_cumulative_fraction(k * 0.1, storm_type) for k in range(241)]
    rows = [f"REVIEW_STORM {k * 0.1:.1f} {(b - a) / 0.1:.6f}" for k, (a, b) in enumerate(zip(cum, cum[1:]))]
    rows.append("REVIEW_STORM 24.0 0.0")
    read_inp(text)  # refuse a file that is not a model before rewriting it
    out, current = [], None
    skip_sections = {"RAINGAGES", "TIMESERIES"}
    for raw in text.splitlines():
        line = raw.split(";", 1)[0].strip()
        m = re.fullmatch(r"\[([A-Za-z_]+)\]", line)
        if m:
            current = m.group(1).upper()
            if current in skip_sections:
                continue
            out.append(raw)
            continue
        if current in skip_sections:
            continue
        if current == "OPTIONS" and line.split()[:1] and line.split()[0].upper() in (
                "START_DATE", "START_TIME", "REPORT_START_DATE", "REPORT_START_TIME", "END_DATE", "END_TIME",
                "REPORT_STEP", "WET_STEP"):
            continue
        if current == "SUBCATCHMENTS" and line:
            t = shlex.split(line)
            t[1] = "REVIEW_GAGE"
            out.append(" ".join(f'"{x}"' if " " in x else x for x in t))
            continue
        out.append(raw)
    keep_ts = [raw for raw in _section_lines(text, "TIMESERIES")]
    out += ["[OPTIONS]", "START_DATE 01/01/2024", "START_TIME 00:00:00", "REPORT_START_DATE 01/01/2024",
            "REPORT_START_TIME 00:00:00", "END_DATE 01/04/2024", "END_TIME 00:00:00", "REPORT_STEP 00:01:00",
            "WET_STEP 00:01:00",
            "[RAINGAGES]", "REVIEW_GAGE INTENSITY 0:06 1.0 TIMESERIES REVIEW_STORM",
            "[TIMESERIES]", *keep_ts, *rows, ""]
    return "\n".join(out)


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


def run_swmm(text: str) -> dict:
    """Run a SWMM 5 model; per element the peak [cfs or ft] and its time [h], volumes [ft³], continuity."""
    from swmm.toolkit import shared_enum as se, solver

    with tempfile.TemporaryDirectory() as d:
        inp, rpt, out = (os.path.join(d, f"m.{e}") for e in ("inp", "rpt", "out"))
        with open(inp, "w", encoding="utf-8") as f:
            f.write(text)
        try:
            solver.swmm_open(inp, rpt, out)
        except Exception as e:  # the solver's own message (it names the line)
            msg = open(rpt, encoding="utf-8", errors="replace").read()[-800:] if os.path.exists(rpt) else str(e)
            raise SwmmInputError(f"swmm: the model does not open in SWMM: {msg.strip()}") from None
        try:
            solver.swmm_start(0)
            ns = solver.project_get_count(se.ObjectType.SUBCATCH)
            nn = solver.project_get_count(se.ObjectType.NODE)
            nl = solver.project_get_count(se.ObjectType.LINK)
            sub_ids = [solver.project_get_id(se.ObjectType.SUBCATCH, i) for i in range(ns)]
            node_ids = [solver.project_get_id(se.ObjectType.NODE, i) for i in range(nn)]
            node_types = [solver.node_get_type(i) for i in range(nn)]
            link_ids = [solver.project_get_id(se.ObjectType.LINK, i) for i in range(nl)]
            link_from = [solver.link_get_connections(i)[0] for i in range(nl)]
            peaks: dict[str, list[float]] = {}
            vols: dict[str, float] = {}
            prev_t = 0.0
            prev: dict[str, float] = {}

            def see(key: str, value: float, t_hr: float) -> None:
                p = peaks.setdefault(key, [0.0, 0.0])
                if value > p[0]:
                    p[0], p[1] = value, t_hr

            while True:
                days = solver.swmm_step()
                if days <= 0:
                    break
                t = days * 24.0
                now: dict[str, float] = {}
                for i, sid in enumerate(sub_ids):
                    now[f"sub:{sid}"] = solver.subcatch_get_result(i, se.SubcatchResult.RUNOFF)
                for i, nid in enumerate(node_ids):
                    if node_types[i] == se.NodeType.OUTFALL:
                        now[f"outfall:{nid}"] = solver.node_get_result(i, se.NodeResult.TOTAL_INFLOW)
                    elif node_types[i] == se.NodeType.STORAGE:
                        see(f"depth:{nid}", solver.node_get_result(i, se.NodeResult.DEPTH), t)
                        now[f"storage_out:{nid}"] = sum(solver.link_get_result(j, se.LinkResult.FLOW)
                                                        for j in range(nl) if link_from[j] == i)
                for k, v in now.items():
                    see(k, v, t)
                    vols[k] = vols.get(k, 0.0) + (prev.get(k, 0.0) + v) / 2.0 * (t - prev_t) * 3600.0
                prev, prev_t = now, t
            runoff_err, _flow_err, routing_err = (float(x) for x in solver.swmm_get_mass_balance()[:3])
            solver.swmm_end()
        finally:
            solver.swmm_close()
    return {"peaks": {k: {"value": round(v[0], 3), "time_hr": round(v[1], 2)} for k, v in peaks.items()},
            "volumes_cuft": {k: round(v) for k, v in vols.items()},
            "continuity_error_pct": {"runoff": round(runoff_err, 2), "routing": round(routing_err, 2)},
            "links": link_ids}


def title_of(text: str) -> str:
    """The first line of the model's [TITLE] section, if any."""
    lines = _section_lines(text, "TITLE")
    return lines[0].strip()[:200] if lines else ""


def swmm_version() -> str:
    from swmm.toolkit import solver

    v = solver.swmm_version_info()
    return str(v)


def compare(plan_swmm: dict, results: dict, depths_in: dict[int, float], storm_type: str) -> dict:
    """The applicant's model re-run by SWMM on the review's design storms, beside the review's numbers."""
    post = plan_swmm["post_inp"]
    pre = plan_swmm.get("pre_inp")
    as_submitted = run_swmm(post)
    topics_post, topics_pre = _topics(post), (_topics(pre) if pre else [])
    storms = {}
    for y, depth in depths_in.items():
        s_post = run_swmm(_with_design_storm(post, depth, storm_type))
        s_pre = run_swmm(_with_design_storm(pre, depth, storm_type)) if pre else None
        rows = []
        ys = str(y)
        for sub in results["subcatchments"]:
            sw = (s_post if sub["phase"] == "post" else s_pre)
            if sw is None:
                continue
            key = f"sub:{sub['id']}"
            if key not in sw["peaks"]:
                continue
            st = sub["storms"][ys]
            rows.append(_cmp_row(f"{sub['phase']} {sub['id']}", "subcatchment runoff", st["peak_cfs"], st["peak_time_hr"],
                                 st["volume_cuft"], sw["peaks"][key], sw["volumes_cuft"].get(key)))
        for b in results["bmps"]:
            st = b["storms"].get(ys, {})
            if f"storage_out:{b['id']}" not in s_post["peaks"] or "peak_stage_ft" not in st:
                continue
            rows.append(_cmp_row(b["id"], "storage outflow", st["outflow_peak_cfs"], st.get("outflow_peak_time_hr"),
                                 st.get("outflow_volume_cuft"), s_post["peaks"][f"storage_out:{b['id']}"],
                                 s_post["volumes_cuft"].get(f"storage_out:{b['id']}")))
            d = s_post["peaks"].get(f"depth:{b['id']}")
            if d:
                rows.append({"node": b["id"], "what": "storage peak depth (ft)", "ours": st["peak_stage_ft"],
                             "ours_time_hr": st.get("peak_stage_time_hr"), "swmm": d["value"], "swmm_time_hr": d["time_hr"],
                             "ratio": round(d["value"] / st["peak_stage_ft"], 3) if st["peak_stage_ft"] else None})
        for dp in results["design_points"]:
            st = dp["storms"][ys]
            key = f"outfall:{dp['id']}"
            if key in s_post["peaks"]:
                rows.append(_outfall_row(_cmp_row(dp["id"], "post-development outfall", st["post_peak_cfs"],
                                                  st["post_peak_time_hr"], st["post_volume_cuft"], s_post["peaks"][key],
                                                  s_post["volumes_cuft"].get(key)), topics_post))
            if s_pre and key in s_pre["peaks"]:
                rows.append(_outfall_row(_cmp_row(dp["id"], "pre-development outfall", st["pre_peak_cfs"],
                                                  st["pre_peak_time_hr"], st["pre_volume_cuft"], s_pre["peaks"][key],
                                                  s_pre["volumes_cuft"].get(key)), topics_pre))
        storms[ys] = {"rainfall_in": round(depth, 3), "rows": rows,
                      "continuity_error_pct": s_post["continuity_error_pct"]}
    outfalls = {k.split(":", 1)[1]: v for k, v in as_submitted["peaks"].items() if k.startswith("outfall:")}
    marked = {b["id"] for b in results["bmps"] if any(o.get("emergency") for o in b.get("outlets") or [])}
    notes = [n for n in plan_swmm.get("notes") or []
             if not (NO_EMERGENCY in n and n.split(":", 1)[0].removeprefix("storage ") in marked)]
    return {"name": plan_swmm.get("name", ""), "engine": f"EPA SWMM {swmm_version()} (swmm-toolkit)",
            "conversion_notes": notes, "has_pre": bool(pre),
            "as_submitted": {"outfall_peaks": outfalls, "continuity_error_pct": as_submitted["continuity_error_pct"]},
            "storms": storms, "differences": [{"topic": a, "explanation": b} for a, b in DIFFERENCES]}


def _cmp_row(node: str, what: str, ours: float | None, ours_t: float | None, ours_v: float | None, sw: dict,
             sw_v: float | None) -> dict:
    ratio = round(sw["value"] / ours, 3) if ours else None
    vr = round(sw_v / ours_v, 3) if ours_v and sw_v is not None else None
    return {"node": node, "what": what, "ours": ours, "ours_time_hr": ours_t, "swmm": sw["value"],
            "swmm_time_hr": sw["time_hr"], "ratio": ratio, "ours_volume_cuft": ours_v, "swmm_volume_cuft": sw_v,
            "volume_ratio": vr}


def _topics(text: str) -> list[str]:
    """The DIFFERENCES that apply to this model (what it contains), for explaining an outfall difference."""
    sec = read_inp(text)
    infil = _options(sec).get("INFILTRATION", "HORTON").upper()
    out = ["Overland flow", "Depression storage",
           "Initial abstraction" if infil == "CURVE_NUMBER" else "Infiltration (Horton, Green-Ampt)"]
    if sec.get("CONDUITS"):
        out.append("Conveyance")
    if sec.get("STORAGE"):
        out.append("Outlets")
        ksat = [t[(6 if len(t) > 4 and t[4].upper() == "TABULAR" else 8) + 3: ][:1] for t in sec["STORAGE"]]
        if any(k and _is_number(k[0]) and float(k[0]) > 0 for k in ksat):
            out.append("Storage seepage")
    return out


def _outfall_row(row: dict, topics: list[str]) -> dict:
    """An outfall row: within 5 % of SWMM's peak, or the reasons it differs (DIFFERENCES topics that apply)."""
    ok = row["ratio"] is not None and abs(row["ratio"] - 1.0) <= OUTFALL_TOLERANCE
    return {**row, "within_5pct": ok, "explained_by": [] if ok else topics}
