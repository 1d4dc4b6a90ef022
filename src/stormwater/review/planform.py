"""The stormwater management plan as a web form, field by field (issue 19), beside the YAML/JSON upload.

Pure Python (no Django). Every input is named by its path in the plan file (``project.name``,
``post[0].cover[1].hsg``, ``bmps[0].outlets[1].elevation``), so an error from the plan checker
(``plan.plan_check``: one message per field or row, starting with its path) lands at its field. The
form posts a flat mapping of names to values; :func:`state_from_post` rebuilds the nested plan
(keeping blank rows so the page can show them), :func:`plan_dict_from_state` drops the blank rows and
turns it into a plan file's mapping, and :func:`layout` lays the fields out for the template.
Rows are added and removed by submit buttons (``add=post[0].cover``, ``remove=post[0].cover[1]``):
the form works without JavaScript.
"""
from __future__ import annotations

import json

import re
from typing import Any, Mapping

from .massdep import ITEMS, STATEMENT_KEYS

_TOKEN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\.(\d+)")
MAX_ROWS = 200  # per list: a hand-made POST cannot make the page build millions of rows

HSG_CHOICES = [("", "—"), ("A", "A"), ("B", "B"), ("C", "C"), ("D", "D")]
YES_NO_NA = [("", "— not stated —"), ("yes", "yes"), ("no", "no"), ("n/a", "n/a")]
FLOW_CHOICES = [("sheet", "sheet flow"), ("shallow", "shallow concentrated"), ("channel", "channel")]
KIND_CHOICES = [("orifice", "orifice"), ("weir", "weir"), ("culvert", "culvert (FHWA HDS-5)")]
WEIR_TYPE_CHOICES = [("", "C as given (3.33)"), ("sharp", "sharp-crested"), ("broad", "broad-crested")]
WEIR_ONLY = ("weir_type", "end_contractions")
CULVERT_ONLY = ("outlet_invert_ft", "inlet", "rise_ft", "span_ft", "manning_n", "entrance_loss", "barrels")
METHOD_CHOICES = [("weighted_cn", "one area-weighted CN"), ("separate", "pervious and impervious separately")]
STORMS = ("2", "10", "100")


def parse_name(name: str) -> list[str | int] | None:
    """``post[0].cover[1].hsg`` → ``["post", 0, "cover", 1, "hsg"]`` (None if not a path)."""
    out: list[str | int] = []
    pos = 0
    while pos < len(name):
        if name[pos] == "." and pos + 1 < len(name) and not name[pos + 1].isdigit():
            pos += 1
        m = _TOKEN.match(name, pos)
        if not m:
            return None
        if m.group(1) is not None:
            out.append(m.group(1))
        else:
            idx = int(m.group(2) if m.group(2) is not None else m.group(3))
            if idx >= MAX_ROWS:
                return None
            out.append(idx if m.group(2) is not None else str(idx))
        pos = m.end()
    return out or None


def _set(root: dict, path: list, value: Any) -> None:
    cur: Any = root
    for k, nxt in zip(path, path[1:]):
        if isinstance(k, int):
            while len(cur) <= k:
                cur.append(None)
            if cur[k] is None:
                cur[k] = [] if isinstance(nxt, int) else {}
            cur = cur[k]
        else:
            if k not in cur or cur[k] is None:
                cur[k] = [] if isinstance(nxt, int) else {}
            cur = cur[k]
    last = path[-1]
    if isinstance(last, int):
        while len(cur) <= last:
            cur.append(None)
    cur[last] = value


def _get(root: Any, path: list) -> Any:
    cur = root
    for k in path:
        if isinstance(k, int):
            if not isinstance(cur, list) or k >= len(cur):
                return None
        elif not isinstance(cur, dict):
            return None
        cur = cur[k] if isinstance(k, int) else cur.get(k)
    return cur


TOP_KEYS = {"project", "rainfall", "design_points", "pre", "post", "bmps", "massdep", "swmm", "reaches"}
LISTS = {"design_points", "pre", "post", "bmps", "cover", "tc", "stage_storage", "outlets", "reaches"}
SHAPE_CHOICES = [("circular", "circular pipe"), ("trapezoidal", "trapezoidal channel")]
REACH_FIELDS = (("name", "Name"), ("from", "From (subcatchment or BMP)"), ("to", "To (the node its flow goes to)"),
                ("shape", "Shape"), ("length_ft", "Length (ft)"), ("slope", "Slope (ft/ft)"), ("roughness", "Manning n"),
                ("geom1_ft", "Diameter or depth (ft)"), ("geom2_ft", "Bottom width (ft)"),
                ("geom3", "Left side slope (H:V)"), ("geom4", "Right side slope (H:V)"), ("description", "Description"))
REACH_TEXT = ("name", "from", "to", "description")
CHECKBOXES = {"previously_developed_with_impervious", "part_of_common_plan", "connected", "roof_runoff",
              "emergency", "critical_area", "zone_ii_or_iwpa", "luhppl", "high_vehicle_trips"}


def state_from_post(post: Mapping[str, Any]) -> dict:
    """The nested form state from posted fields (``getlist``-able or plain); blank rows kept."""
    state: dict = {}
    for name in post:
        path = parse_name(name)
        if not path or path[0] not in TOP_KEYS:
            continue
        raw = post.getlist(name) if hasattr(post, "getlist") else [post[name]]
        value = raw[-1] if raw else ""
        if path[-1] in CHECKBOXES:
            value = bool(value)
        else:
            value = str(value).strip()
        try:
            _set(state, path, value)
        except (TypeError, AttributeError, KeyError):
            continue  # a name whose shape conflicts with another (hand-made POST): ignored
    # Unchecked checkboxes are not posted: the form lists every checkbox it drew in "_cb".
    cbs = post.getlist("_cb") if hasattr(post, "getlist") else []
    for name in cbs:
        path = parse_name(name)
        if path and path[-1] in CHECKBOXES and name not in post:
            try:
                _set(state, path, False)
            except (TypeError, AttributeError, KeyError):
                continue
    for key in ("design_points", "pre", "post", "bmps", "reaches"):
        state[key] = [x for x in (state.get(key) or []) if isinstance(x, dict)] if isinstance(state.get(key), list) else []
        for item in state[key]:
            for sub in ("cover", "tc", "stage_storage", "outlets"):
                if sub in item:
                    item[sub] = [x for x in item[sub] if isinstance(x, dict)] if isinstance(item[sub], list) else []
    return state


def state_from_plan_dict(d: dict) -> dict:
    """Prefill the form from a plan file's mapping (e.g. a stored review's input)."""
    import copy

    s = copy.deepcopy(d)
    s.pop("schema", None)
    for b in s.get("bmps") or []:
        b["stage_storage"] = [({"stage": str(r[0]), "storage": str(r[1])} if isinstance(r, (list, tuple))
                               else {"stage": str(r.get("stage_ft", "")), "storage": str(r.get("storage_cuft", ""))})
                              for r in (b.get("stage_storage") or [])]
        for o in b.get("outlets") or []:
            o["elevation"] = o.pop("invert_ft", o.pop("crest_ft", ""))
    for phase in ("pre", "post"):
        for sub in s.get(phase) or []:
            for g in sub.get("tc") or []:
                if "slope_ft_per_ft" in g:
                    g["slope"] = g.pop("slope_ft_per_ft")
    if isinstance((s.get("swmm") or {}).get("notes"), list):
        s["swmm"]["notes"] = "\n".join(s["swmm"]["notes"])
    # Carried from a SWMM import as JSON fields (issue 31): the impervious subarea's flow path, the conduits.
    for phase in ("pre", "post"):
        for sub in s.get(phase) or []:
            if isinstance(sub.get("impervious_tc"), list):
                sub["impervious_tc"] = json.dumps(sub["impervious_tc"])
    if isinstance((s.get("swmm") or {}).get("conduits"), list):
        s["swmm"]["conduits"] = json.dumps(s["swmm"]["conduits"])
    rf = s.get("rainfall") or {}
    if isinstance(rf.get("pfds_csv"), list):
        rf["pfds_csv"] = "\n\n".join(rf["pfds_csv"])
    for key in ("upper_ci_in", "design_in"):
        if isinstance(rf.get(key), dict):
            rf[key] = {str(k).removesuffix("yr").removesuffix("-").strip(): str(v) for k, v in rf[key].items()}
    st = (s.get("massdep") or {}).get("statements")
    if isinstance(st, dict):
        norm = {}
        for k, v in st.items():
            v = dict(v) if isinstance(v, dict) else {"answer": v}
            if isinstance(v.get("answer"), bool):  # YAML 1.1 reads a bare yes/no as true/false
                v["answer"] = "yes" if v["answer"] else "no"
            norm[k] = v
        s["massdep"]["statements"] = norm
    return _stringify(s)


def _stringify(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _stringify(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_stringify(v) for v in x]
    if isinstance(x, bool) or x is None:
        return x
    return str(x)


def _blank(x: Any) -> bool:
    if isinstance(x, dict):
        return all(_blank(v) for v in x.values())
    if isinstance(x, list):
        return all(_blank(v) for v in x)
    return x in (None, "", False)


def _inlet_choices() -> list[tuple[str, str]]:
    from stormwater.engineering.culvert import inlet_types

    return [("", "—")] + [(k, f"{t.shape}, {t.description}") for k, t in inlet_types().items()]


def _json_list(text: str):
    """A JSON list typed in a field; the text itself when it is not one (plan.py then names the field)."""
    try:
        v = json.loads(text)
    except ValueError:
        return text
    return v if isinstance(v, list) else text


def _clean(d: dict, *, drop: tuple[str, ...] = ()) -> dict:
    return {k: v for k, v in d.items() if k not in drop and v not in (None, "") and not (isinstance(v, bool) and not v)}


def plan_dict_from_state(state: dict) -> dict:
    """The plan file's mapping from the form state: blank rows and empty fields dropped."""
    out: dict = {"schema": "longmeadow-swmp/1"}
    out["project"] = _clean(state.get("project") or {})
    if "previously_developed_with_impervious" not in out["project"]:
        out["project"]["previously_developed_with_impervious"] = False
    rf = state.get("rainfall") or {}
    rain: dict = {"storm_type": rf.get("storm_type") or "III", "storms_years": [2, 10, 100]}
    if (rf.get("pfds_csv") or "").strip():
        rain["pfds_csv"] = rf["pfds_csv"]
    else:
        for key in ("upper_ci_in", "design_in"):
            vals = {k: v for k, v in (rf.get(key) or {}).items() if v not in (None, "")}
            if vals:
                rain[key] = vals
                break
    if rf.get("source"):
        rain["source"] = rf["source"]
    out["rainfall"] = rain
    out["design_points"] = [_clean(d) for d in state.get("design_points") or [] if not _blank(d)]
    for phase in ("pre", "post"):
        subs = []
        for s in state.get(phase) or []:
            if _blank(s):
                continue
            sub = _clean(s, drop=("cover", "tc"))
            if sub.get("runoff_method") == "weighted_cn":
                sub.pop("runoff_method")
            cover = []
            for c in s.get("cover") or []:
                if _blank(c):
                    continue
                part = _clean(c)
                part.pop("connected", None)
                if part.get("cover") == "impervious" and c.get("connected") is False:
                    part["connected"] = False  # plan.py: only impervious parts are connected or not
                cover.append(part)
            if cover:
                sub["cover"] = cover
            tc = [_clean(g) for g in s.get("tc") or [] if not _blank({k: v for k, v in g.items() if k != "flow"})]
            if tc:
                sub["tc"] = tc
            if isinstance(sub.get("impervious_tc"), str):
                sub["impervious_tc"] = _json_list(sub["impervious_tc"])
            subs.append(sub)
        out[phase] = subs
    bmps = []
    for b in state.get("bmps") or []:
        if _blank(b):
            continue
        bmp = _clean(b, drop=("stage_storage", "outlets"))
        rows = [[r.get("stage", ""), r.get("storage", "")] for r in b.get("stage_storage") or [] if not _blank(r)]
        if rows:
            bmp["stage_storage"] = rows
        outlets = []
        for o in b.get("outlets") or []:
            if _blank({k: v for k, v in o.items() if k != "kind"}):
                continue
            x = _clean(o)
            elev = x.pop("elevation", None)
            if elev is not None:
                x["crest_ft" if x.get("kind") == "weir" else "invert_ft"] = elev
            if x.get("kind") == "orifice":
                x.pop("length_ft", None)
            elif x.get("kind") == "weir":
                x.pop("diameter_in", None)
            for k in (WEIR_ONLY if x.get("kind") != "weir" else ()) + (CULVERT_ONLY if x.get("kind") != "culvert" else ()):
                x.pop(k, None)
            outlets.append(x)
        if outlets:
            bmp["outlets"] = outlets
        bmps.append(bmp)
    out["bmps"] = bmps
    reaches = [_clean(r) for r in state.get("reaches") or [] if isinstance(r, dict) and not _blank(r)]
    if reaches:   # issue 31: the pipes and channels between nodes (review/reaches.py)
        out["reaches"] = reaches
    sw = state.get("swmm") or {}
    if (sw.get("post_inp") or "").strip():
        out["swmm"] = {"name": sw.get("name") or "", "post_inp": sw["post_inp"],
                       **({"pre_inp": sw["pre_inp"]} if (sw.get("pre_inp") or "").strip() else {}),
                       "notes": [x.strip() for x in (sw.get("notes") or "").splitlines() if x.strip()]}
        if (sw.get("conduits") or "").strip():
            out["swmm"]["conduits"] = _json_list(sw["conduits"])
    md = state.get("massdep") or {}
    statements = {k: _clean(v) for k, v in (md.get("statements") or {}).items()
                  if isinstance(v, dict) and v.get("answer")}
    facts = {k: True for k in ("critical_area", "zone_ii_or_iwpa", "luhppl", "high_vehicle_trips") if md.get(k)}
    if statements or facts:
        out["massdep"] = {**facts, **({"statements": statements} if statements else {})}
    return out


def apply_row_action(state: dict, *, add: str = "", remove: str = "") -> None:
    """Add an empty row to the list named ``add`` or drop the row named ``remove`` (in place)."""
    if add:
        path = parse_name(add)
        if path and path[-1] in LISTS:
            lst = _get(state, path)
            if lst is None:
                _set(state, path, [])
                lst = _get(state, path)
            if isinstance(lst, list) and len(lst) < MAX_ROWS:
                lst.append(_new_row(str(path[-1])))
    if remove:
        path = parse_name(remove)
        if path and isinstance(path[-1], int):
            lst = _get(state, path[:-1])
            if isinstance(lst, list) and path[-1] < len(lst):
                del lst[path[-1]]


def _new_row(kind: str) -> dict:
    return {"design_points": {"id": "", "description": ""},
            "pre": {"id": "", "area_acres": "", "to": "", "cover": [{}], "tc": [{"flow": "sheet"}]},
            "post": {"id": "", "area_acres": "", "to": "", "cover": [{}], "tc": [{"flow": "sheet"}]},
            "bmps": {"id": "", "type": "", "to": "", "stage_storage": [{}, {}], "outlets": [{"kind": "orifice"}]},
            "cover": {}, "tc": {"flow": "shallow"}, "stage_storage": {}, "outlets": {"kind": "weir"},
            "reaches": {"shape": "circular"}}[kind]


def blank_state() -> dict:
    return {"project": {}, "rainfall": {"storm_type": "III"}, "design_points": [_new_row("design_points")],
            "pre": [_new_row("pre")], "post": [_new_row("post")], "bmps": [], "massdep": {}}


# --- errors → fields ----------------------------------------------------------------------------

def error_name(message: str) -> str:
    """The form name an error message belongs to: its path, with plan-only keys mapped to the form's."""
    path = message.split(":", 1)[0].strip()
    path = re.sub(r"\.(invert_ft|crest_ft)$", ".elevation", path)
    path = re.sub(r"\.slope_ft_per_ft$", ".slope", path)
    path = re.sub(r"(stage_storage\[\d+\])\[\d\]$", r"\1", path)
    return path


# --- layout ------------------------------------------------------------------------------------------

def _fid(name: str) -> str:
    return "f-" + re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-")


class Layout:
    """Builds field dicts for the template and records which error names were placed."""

    def __init__(self, state: dict, errors: dict[str, str]):
        self.state, self.errors, self.placed = state, errors, set()

    def field(self, name: str, label: str, *, widget: str = "text", choices=None, help: str = "",
              required: bool = False, inputmode: str = "", hide_label: bool = False, rows: int = 0) -> dict:
        path = parse_name(name) or []
        value = _get(self.state, path)
        if widget == "checkbox":
            value = bool(value) if value is not None else (name.endswith(".connected"))
        elif value is None:
            value = ""
        err = self.errors.get(name, "")
        if err:
            self.placed.add(name)
        return {"name": name, "id": _fid(name), "label": label, "value": value, "widget": widget,
                "choices": choices or [], "help": help, "required": required, "error": err,
                "inputmode": inputmode or ("decimal" if widget == "number" else ""), "hide_label": hide_label,
                "rows": rows}

    def group_error(self, name: str) -> str:
        """The error of a container (a row, a list, a section), shown at it."""
        own = self.errors.get(name, "")
        if own:
            self.placed.add(name)
        return own

    def unplaced(self) -> list[tuple[str, str]]:
        return [(k, m) for k, m in self.errors.items() if k not in self.placed]


def layout(state: dict, errors: dict[str, str], *, cover_choices: list[tuple[str, str]],
           sheet_surfaces: list[str]) -> dict:
    """Everything the form template draws, in order; each field carries its own error."""
    L = Layout(state, errors)
    f = L.field
    num = "number"
    project = [f("project.name", "Project name", required=True),
               f("project.location", "Location (address)"),
               f("project.applicant", "Applicant"), f("project.preparer", "Plan prepared by (P.E.)"),
               f("project.disturbance_acres", "Land disturbed (acres)", widget=num, required=True),
               f("project.previously_developed_with_impervious", "The site was previously developed with impervious "
                 "surface (redevelopment)", widget="checkbox"),
               f("project.part_of_common_plan", "Part of a larger common plan of development", widget="checkbox"),
               f("project.post_impervious_sqft", "Post-construction impervious area (ft²), if stated", widget=num),
               f("project.recharge_target_depth_in", "Recharge target depth F (in), to override the HSG table",
                 widget=num),
               f("project.latitude", "Latitude (decimal degrees)", widget=num,
                 help="For the NOAA PFDS location check; else the town centre is used."),
               f("project.longitude", "Longitude (decimal degrees, west negative)", widget=num)]
    rainfall = [f("rainfall.storm_type", "NRCS storm type", widget="select", choices=[("III", "Type III"), ("II", "Type II")]),
                f("rainfall.pfds_csv", "NOAA Atlas 14 PFDS CSV (upper bound file), pasted", widget="textarea", rows=6,
                  help="The UCL_Depth_English_PDS file for the site from hdsc.nws.noaa.gov. Or give the upper bounds below."),
                *[f(f"rainfall.upper_ci_in.{y}", f"{y}-year 24-hour upper 90 % bound (in)", widget=num) for y in STORMS],
                f("rainfall.source", "Source note (where the rainfall numbers come from)")]
    dps = [{"path": f"design_points[{i}]", "id": _fid(f"design_points[{i}]"), "error": L.group_error(f"design_points[{i}]"), "fields": [f(f"design_points[{i}].id", "Id", required=True),
                                                      f(f"design_points[{i}].description", "Description")]}
           for i in range(len(state.get("design_points") or []))]
    phases = []
    for phase in ("pre", "post"):
        subs = []
        for i, s in enumerate(state.get(phase) or []):
            p = f"{phase}[{i}]"
            fields = [f(f"{p}.id", "Id", required=True), f(f"{p}.description", "Description"),
                      f(f"{p}.area_acres", "Area (acres)", widget=num, required=True),
                      f(f"{p}.to", "Flows to (design point" + (" or BMP)" if phase == "post" else ")"), required=True),
                      f(f"{p}.runoff_method", "Runoff", widget="select", choices=METHOD_CHOICES),
                      f(f"{p}.tc_hr", "Tc (h), instead of flow segments", widget=num)]
            if phase == "post":
                fields.append(f(f"{p}.roof_runoff", "Its impervious area is non-metal roof only", widget="checkbox"))
            if s.get("impervious_tc"):
                fields.append(f(f"{p}.impervious_tc", "Impervious flow path (JSON segments, from the SWMM model)",
                                widget="textarea", rows=2))
            cover = [{"path": f"{p}.cover[{j}]", "id": _fid(f"{p}.cover[{j}]"), "error": L.group_error(f"{p}.cover[{j}]"), "fields": [
                f(f"{p}.cover[{j}].cover", "Cover (TR-55 Table 2-2)", widget="select", choices=cover_choices, hide_label=True),
                f(f"{p}.cover[{j}].hsg", "Soil group", widget="select", choices=HSG_CHOICES, hide_label=True),
                f(f"{p}.cover[{j}].area_acres", "Area (ac)", widget=num, hide_label=True),
                f(f"{p}.cover[{j}].connected", "Connected (impervious only)", widget="checkbox", hide_label=True)]}
                for j in range(len(s.get("cover") or []))]
            tc = [{"path": f"{p}.tc[{j}]", "id": _fid(f"{p}.tc[{j}]"), "error": L.group_error(f"{p}.tc[{j}]"), "fields": [
                f(f"{p}.tc[{j}].flow", "Flow", widget="select", choices=FLOW_CHOICES, hide_label=True),
                f(f"{p}.tc[{j}].length_ft", "Length (ft)", widget=num, hide_label=True),
                f(f"{p}.tc[{j}].slope", "Slope (ft/ft)", widget=num, hide_label=True),
                f(f"{p}.tc[{j}].surface", "Surface", widget="select", hide_label=True,
                  choices=[("", "—"), ("paved", "paved (shallow)"), ("unpaved", "unpaved (shallow)"),
                           *[(x, x) for x in sheet_surfaces]]),
                f(f"{p}.tc[{j}].manning_n", "Manning n", widget=num, hide_label=True),
                f(f"{p}.tc[{j}].flow_area_sqft", "Flow area (ft²)", widget=num, hide_label=True),
                f(f"{p}.tc[{j}].wetted_perimeter_ft", "Wetted perimeter (ft)", widget=num, hide_label=True)]}
                for j in range(len(s.get("tc") or []))]
            subs.append({"path": p, "id": _fid(p), "cover_id": _fid(f"{p}.cover"), "tc_id": _fid(f"{p}.tc"), "fields": fields, "cover": cover, "tc": tc, "error": L.group_error(p),
                         "cover_error": L.group_error(f"{p}.cover"), "tc_error": L.group_error(f"{p}.tc")})
        phases.append({"phase": phase, "title": "Pre-development" if phase == "pre" else "Post-development",
                       "subs": subs, "error": L.group_error(phase)})
    bmps = []
    for i, b in enumerate(state.get("bmps") or []):
        p = f"bmps[{i}]"
        fields = [f(f"{p}.id", "Id", required=True), f(f"{p}.type", "Type (performance-table BMP name)", required=True,
                                                        help="e.g. infiltration_trench, extended_dry_detention_basin"),
                  f(f"{p}.description", "Description"), f(f"{p}.to", "Flows to (design point or BMP)", required=True),
                  f(f"{p}.infiltration_rate_in_hr", "Infiltration rate (in/hr)", widget=num),
                  f(f"{p}.bottom_area_sqft", "Bottom area (ft²)", widget=num),
                  f(f"{p}.bottom_elevation_ft", "Bottom elevation (ft, grading plan)", widget=num,
                    help="The grading plan's elevation of the table's first stage; the report then gives elevations."),
                  f(f"{p}.starting_stage_ft", "Starting water level (ft)", widget=num,
                    help="Leave blank: empty if it infiltrates, else full to its lowest outlet."),
                  f(f"{p}.tailwater_ft", "Tailwater (ft), or downstream",
                    help="Leave blank for a free outfall; 'downstream': the starting level of the BMP it flows to."),
                  f(f"{p}.tss_removal_pct", "MassDEP TSS credit claimed (%)", widget=num),
                  f(f"{p}.treatment_storage_cuft", "Treatment storage (ft³), if not from the table", widget=num)]
        ss = [{"path": f"{p}.stage_storage[{j}]", "id": _fid(f"{p}.stage_storage[{j}]"), "error": L.group_error(f"{p}.stage_storage[{j}]"), "fields": [
            f(f"{p}.stage_storage[{j}].stage", "Stage (ft)", widget=num, hide_label=True),
            f(f"{p}.stage_storage[{j}].storage", "Storage (ft³)", widget=num, hide_label=True)]}
            for j in range(len(b.get("stage_storage") or []))]
        outs = [{"path": f"{p}.outlets[{j}]", "id": _fid(f"{p}.outlets[{j}]"), "error": L.group_error(f"{p}.outlets[{j}]"), "fields": [
            f(f"{p}.outlets[{j}].kind", "Device", widget="select", choices=KIND_CHOICES, hide_label=True),
            f(f"{p}.outlets[{j}].name", "Name", hide_label=True),
            f(f"{p}.outlets[{j}].elevation", "Invert or crest (ft)", widget=num, hide_label=True),
            f(f"{p}.outlets[{j}].diameter_in", "Diameter (in)", widget=num, hide_label=True),
            f(f"{p}.outlets[{j}].length_ft", "Crest or barrel length (ft)", widget=num, hide_label=True),
            f(f"{p}.outlets[{j}].coefficient", "Coefficient", widget=num, hide_label=True),
            f(f"{p}.outlets[{j}].emergency", "Emergency", widget="checkbox", hide_label=True),
            f(f"{p}.outlets[{j}].weir_type", "Weir type", widget="select", choices=WEIR_TYPE_CHOICES, hide_label=True),
            f(f"{p}.outlets[{j}].end_contractions", "End contractions (0-2)", widget=num, hide_label=True),
            f(f"{p}.outlets[{j}].outlet_invert_ft", "Culvert outlet invert (ft)", widget=num, hide_label=True),
            f(f"{p}.outlets[{j}].inlet", "Culvert inlet (HDS-5 Table A.1)", widget="select", choices=_inlet_choices(),
              hide_label=True),
            f(f"{p}.outlets[{j}].rise_ft", "Box rise (ft)", widget=num, hide_label=True),
            f(f"{p}.outlets[{j}].span_ft", "Box span (ft)", widget=num, hide_label=True),
            f(f"{p}.outlets[{j}].manning_n", "Manning n", widget=num, hide_label=True),
            f(f"{p}.outlets[{j}].entrance_loss", "Entrance loss k_e", widget=num, hide_label=True),
            f(f"{p}.outlets[{j}].barrels", "Barrels", widget=num, hide_label=True)]}
            for j in range(len(b.get("outlets") or []))]
        bmps.append({"path": p, "id": _fid(p), "ss_id": _fid(f"{p}.stage_storage"), "fields": fields, "stage_storage": ss, "outlets": outs, "error": L.group_error(p),
                     "ss_error": L.group_error(f"{p}.stage_storage")})
    reaches = [{"path": f"reaches[{i}]", "id": _fid(f"reaches[{i}]"), "error": L.group_error(f"reaches[{i}]"), "fields": [
        f(f"reaches[{i}].{k}", label, widget="select" if k == "shape" else "text" if k in REACH_TEXT else num,
          choices=SHAPE_CHOICES if k == "shape" else None, required=k in ("name", "from", "to"))
        for k, label in REACH_FIELDS]} for i in range(len(state.get("reaches") or []))]
    facts = [f("massdep.critical_area", "Discharge near or to a critical area (Standard 6)", widget="checkbox"),
             f("massdep.zone_ii_or_iwpa", "Within a Zone II or Interim Wellhead Protection Area", widget="checkbox"),
             f("massdep.luhppl", "Land use with higher potential pollutant loads (Standard 5)", widget="checkbox"),
             f("massdep.high_vehicle_trips", "1,000 or more vehicle trips a day", widget="checkbox")]
    statements = []
    for item in (i for i in ITEMS if i.kind == "statement"):
        p = f"massdep.statements.{item.key}"
        statements.append({"item": item, "error": L.group_error(p), "fields": [
            f(f"{p}.answer", f"{item.title}: answer", widget="select", choices=YES_NO_NA, hide_label=True),
            f(f"{p}.evidence", f"{item.title}: evidence (sheet, section, page)", hide_label=True),
            f(f"{p}.note", f"{item.title}: note", hide_label=True)]})
    swmm = []
    if (state.get("swmm") or {}).get("post_inp"):
        swmm = [f("swmm.name", "Model name"),
                f("swmm.post_inp", "Post-development model (.inp)", widget="textarea", rows=4),
                f("swmm.pre_inp", "Pre-development model (.inp)", widget="textarea", rows=4),
                f("swmm.notes", "Conversion notes (one a line; shown on the report)", widget="textarea", rows=3)]
        if (state.get("swmm") or {}).get("conduits"):
            swmm.append(f("swmm.conduits", "Conduits (JSON, from the model; kept, not routed)", widget="textarea",
                          rows=3))
    top = [L.group_error(k) for k in ("project", "rainfall", "design_points", "bmps", "massdep", "file", "swmm",
                                      "reaches")]
    return {"project": project, "rainfall": rainfall, "design_points": dps, "dp_error": L.group_error("design_points"),
            "phases": phases, "bmps": bmps, "reaches": reaches, "facts": facts, "statements": statements, "swmm": swmm,
            "top_errors": [e for e in top if e], "unplaced": L.unplaced(),
            "statement_keys": STATEMENT_KEYS}


def post_from_state(state: Any, prefix: str = "") -> dict[str, str]:
    """The flat name → value mapping a browser would post for ``state`` (checkboxes: "on" when ticked,
    listed in ``_cb``); the inverse of :func:`state_from_post`, for tests and tools."""
    out: dict[str, Any] = {}
    cbs: list[str] = []

    def walk(x: Any, name: str) -> None:
        if isinstance(x, dict):
            for k, v in x.items():
                walk(v, f"{name}.{k}" if name else str(k))
        elif isinstance(x, list):
            for i, v in enumerate(x):
                walk(v, f"{name}[{i}]")
        elif isinstance(x, bool):
            cbs.append(name)
            if x:
                out[name] = "on"
        elif x is not None:
            out[name] = str(x)

    walk(state, prefix)
    if cbs:
        out["_cb"] = cbs
    return out
