"""An applicant's EPA SWMM 5 model (``.inp``): converted into a plan, and re-run with SWMM for comparison.

Pure Python apart from the SWMM solver (``swmm-toolkit``, a runtime dependency since issue 19: the
review re-runs the applicant's own model on the server), imported only where a model is run; no Django.

**Import** (:func:`plan_from_inp`): SWMM's subcatchments become post-development subcatchments
(``[SUBCATCHMENTS]``, ``[SUBAREAS]``, ``[INFILTRATION]``), its storage units BMPs
(``[STORAGE]`` with a TABULAR or FUNCTIONAL area curve integrated to a stage-storage table, seepage
``Ksat`` as the infiltration rate over the bottom area, ``InitDepth`` as the starting level), its
orifices and weirs their outlets (``[ORIFICES]``/``[WEIRS]`` with ``[XSECTIONS]``; offsets above the
storage invert as elevations; a link named or tagged ``emergency``/``spillway`` is the emergency overflow),
its outfalls design points; junctions and conduits are followed downstream to the next storage unit or
outfall; the conduits are kept as data, ``swmm.conduits``, listed in the notes with their count and length,
and each chain of them in series (from a subcatchment's outlet junction, or the node a storage unit's outlets
discharge to, to the next storage unit or outfall) becomes one equivalent reach of the plan's ``reaches``, routed
by the review (``swmm_reaches.py``: the rule and where a chain is passed through instead, stated in the notes).
A pre-development model's subcatchments become the pre-development ones (same outfall names). What cannot be carried over is refused with the reason (a non-CFS model, an
unknown infiltration method, a model cut off: a subcatchment, link or node pointing at a node that is not
in the model, a subcatchment with no ``[SUBAREAS]`` row, water with no path to an outfall -- each naming the
element) or listed in the conversion notes (rating-curve outlets, pumps, rectangular orifices, a conduit
leaving a storage unit).

The conversion choices, each a note on the report:
- SWMM computes the impervious and pervious subareas separately, so the subcatchment's runoff method
  is ``separate``: impervious CN 98, pervious the SWMM curve number -- or, for HORTON, MODIFIED_HORTON,
  GREEN_AMPT and MODIFIED_GREEN_AMPT models (issue 31), the curve number fitted to the subarea's runoff
  with its losses run as SWMM runs them (``swmm_infiltration.py``; both depths per storm in the note).
- Each subarea has its own flow path (issue 31): flow length L = area ÷ width; TR-55 sheet flow over
  min(L, 300 ft) at the subarea's Manning n (N-Perv for ``tc``, N-Imperv for ``impervious_tc``), then
  shallow concentrated flow (paved for the impervious path) over the rest, at SWMM's slope.
- The hydrologic soil group (for Standard 3 recharge) is the subcatchment's ``[TAGS]`` tag (``HSG-B``), or
  inferred from Horton's fc / Green-Ampt's Ks, or from a CN model's pervious CN (``swmm_infiltration``).

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
import re

from . import swmm_infiltration as si
from .swmm_reaches import reaches_of
from .swmm_read import (NO_EMERGENCY, SwmmInputError, _curves, _is_number, _num, _options,  # noqa: F401
                        read_inp, title_of)
from .swmm_run import DIFFERENCES, compare, run_swmm, swmm_version, _with_design_storm  # noqa: F401

__all__ = ["DIFFERENCES", "NO_EMERGENCY", "SwmmInputError", "compare", "conduits_of", "plan_from_inp", "read_inp",
           "run_swmm", "swmm_version", "title_of", "_with_design_storm"]

SQFT_PER_ACRE = 43560.0
SHEET_MAX_FT = 300.0
NODE_SECTIONS = ("JUNCTIONS", "OUTFALLS", "STORAGE", "DIVIDERS")
LINK_SECTIONS = ("CONDUITS", "ORIFICES", "WEIRS", "OUTLETS", "PUMPS")


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
    """The model's conduits as data: name, ends, length, n, shape, slope (chains of them: ``swmm_reaches``)."""
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
                     + "): kept in the plan data (swmm.conduits); each chain of them in series is routed as one "
                     "equivalent reach where it can be, the others are passed without delay or attenuation (below; "
                     "see Conveyance)")
    reaches = reaches_of(post, sub_post, bmps, conduits, notes) if conduits else []
    plan: dict = {"schema": "longmeadow-swmp/1", "design_points": [{"id": o, "description": "SWMM outfall"} for o in outfalls],
                  "post": sub_post, "bmps": bmps, "pre": [], **({"reaches": reaches} if reaches else {}),
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
        if _is_number(t[1]):  # the invert elevation (User's Manual App. D): the plan's datum for the report's levels
            bmp["bottom_elevation_ft"] = float(t[1])
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
