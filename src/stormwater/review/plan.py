"""A stormwater management plan as data: parse and check the JSON/YAML file a reviewer uploads.

One module because the plan's parts (the dataclasses) and the reader that builds them mirror each other part by part
(``Subcatchment`` and ``_subcatchment``, ``Bmp`` and ``_bmp``, ...) and together are the one definition of the file
format; splitting them would put a field and its check in two places. The reader of one mapping (``_Obj``) and
``PlanError`` are in review/planread.py, shared with the parts read in their own modules (review/reaches.py).

Pure Python (no Django): :func:`plan_parse` turns the file's text into a :class:`Plan` or raises
:class:`PlanError` whose message starts with the path of the offending field
(``"post[1].cover[0].hsg: must be A, B, C or D"``). The file format is documented in
docs/engineering.md ("Review") and shown by docs/examples/commercial-5-acre.yaml.

What the plan holds follows Ch. 380 § 380-12 A(3)(g) (hydrologic and hydraulic calculations for the
pre- and post-development conditions: HSG, design storms, Tc, curve numbers, infiltration rates,
drawdown) and § 380-11 D/E (post-construction impervious area, new development vs redevelopment).
"""
from __future__ import annotations

import datetime as _dt
import json
from dataclasses import dataclass, field
from typing import Any

from .planread import PlanError, _number, _Obj  # noqa: F401 (PlanError: the plan's error, imported from here)

SCHEMA = "longmeadow-swmp/1"
DEFAULT_STORMS_YEARS = (2, 10, 100)  # § 380-12 A(3)(g)[5]: 2-, 10- and 100-year 24-hour storms
SQFT_PER_ACRE = 43560.0
AREA_TOLERANCE = 0.005  # cover parts must add up to the subcatchment area within 0.5 %
RUNOFF_METHODS = ("weighted_cn", "separate")


# --- the plan's parts --------------------------------------------------------------------------

@dataclass(frozen=True)
class CoverPart:
    area_acres: float
    cover: str  # TR-55 Table 2-2 row key, or "" when a CN is given directly
    hsg: str    # A-D, or "" with a direct CN
    cn: float | None = None
    impervious: bool = False
    connected: bool = True  # impervious parts only


@dataclass(frozen=True)
class TcSegment:
    flow: str  # sheet | shallow | channel
    length_ft: float
    slope_ft_per_ft: float
    manning_n: float | None = None
    surface: str = ""  # shallow: paved/unpaved; sheet: Table 3-1 description (optional)
    p2_in: float | None = None  # sheet flow: 2-yr 24-h rainfall; default the plan's 2-yr design depth
    flow_area_sqft: float | None = None
    wetted_perimeter_ft: float | None = None


@dataclass(frozen=True)
class Subcatchment:
    phase: str  # pre | post
    id: str
    area_acres: float
    to: str
    description: str = ""
    cn: float | None = None
    impervious_acres: float | None = None  # with a direct CN
    hsg: str = ""  # with a direct CN: for the recharge target
    cover: tuple[CoverPart, ...] = ()
    tc_hr: float | None = None
    tc: tuple[TcSegment, ...] = ()
    # "weighted_cn": one area-weighted CN (TR-55 worksheet 2, WinTR-55); "separate": pervious and
    # impervious runoff computed by their own CNs and added (HydroCAD "Weighted-Q"); issue 19.
    runoff_method: str = "weighted_cn"
    # Only (non-metal) roof runoff: MassDEP needs no pretreatment before infiltrating it.
    roof_runoff: bool = False
    # "separate" only: the impervious parts' own flow path (issue 31: SWMM's impervious subarea has its own
    # roughness); ``tc`` is then the pervious parts' path.
    impervious_tc: tuple[TcSegment, ...] = ()


@dataclass(frozen=True)
class OutletSpec:
    kind: str  # orifice | weir | culvert
    name: str
    elevation_ft: float  # orifice invert, weir crest or culvert inlet invert
    diameter_in: float | None = None   # orifice; circular culvert
    length_ft: float | None = None     # weir crest length; culvert barrel length
    coefficient: float | None = None
    emergency: bool = False
    weir_type: str = ""                # weir: "" (C given or 3.33), sharp (Francis, end contractions), broad
    end_contractions: int = 0          # sharp-crested weir: 0, 1 or 2
    # culvert (FHWA HDS-5): outlet invert, inlet (HDS-5 Table A.1 key), box rise/span, roughness, k_e, barrels
    outlet_invert_ft: float | None = None
    inlet: str = ""
    rise_ft: float | None = None
    span_ft: float | None = None
    manning_n: float | None = None
    entrance_loss: float | None = None
    barrels: int = 1


@dataclass(frozen=True)
class Bmp:
    id: str
    type: str  # performance-table BMP name (e.g. infiltration_trench)
    to: str
    description: str = ""
    infiltration_rate_in_hr: float | None = None
    bottom_area_sqft: float | None = None
    stage_storage: tuple[tuple[float, float], ...] = ()
    outlets: tuple[OutletSpec, ...] = ()
    treatment_storage_cuft: float | None = None
    # Water level when the storm begins [ft]; None = the review's default (empty if the BMP
    # infiltrates, else full to its lowest outlet: the permanent pool a wet BMP keeps).
    starting_stage_ft: float | None = None
    tss_removal_pct: float | None = None  # MassDEP TSS credit claimed (Handbook Vol. 1 ch. 1), in percent
    bottom_elevation_ft: float | None = None  # grading plan's elevation of the table's first stage (review/elevations.py)
    # Tailwater at its outlets [ft]: fixed, or "downstream" (the starting level of the BMP it feeds); None = free outfall.
    tailwater_ft: float | None = None
    tailwater_from: str = ""   # "" (fixed or none) | "downstream"


@dataclass(frozen=True)
class DesignPoint:
    id: str
    description: str = ""


@dataclass(frozen=True)
class Rainfall:
    storm_type: str
    storms_years: tuple[int, ...]
    pfds_csv: tuple[str, ...] = ()
    upper_ci_in: dict[int, float] = field(default_factory=dict)
    design_in: dict[int, float] = field(default_factory=dict)
    source_note: str = ""


@dataclass(frozen=True)
class Project:
    name: str
    disturbance_acres: float
    previously_developed_with_impervious: bool
    part_of_common_plan: bool = False
    location: str = ""
    applicant: str = ""
    preparer: str = ""
    post_impervious_sqft: float | None = None
    recharge_target_depth_in: float | None = None
    latitude: float | None = None   # decimal degrees; for the NOAA PFDS location check
    longitude: float | None = None


@dataclass(frozen=True)
class Statement:
    """One answer to a MassDEP Checklist for Stormwater Report item (review/massdep.py)."""

    key: str
    answer: str  # yes | no | n/a
    evidence: str = ""  # where the plan shows it: sheet, report section, page
    note: str = ""


@dataclass(frozen=True)
class MassDep:
    """Facts the MassDEP standards turn on, and the applicant's answers to the checklist's statements."""

    critical_area: bool = False      # discharge near or to a critical area (Standard 6)
    zone_ii_or_iwpa: bool = False    # within a Zone II or Interim Wellhead Protection Area (public water supply)
    luhppl: bool = False             # land use with higher potential pollutant loads (Standard 5)
    high_vehicle_trips: bool = False  # parking or roads with 1,000 or more vehicle trips a day (Standard 5)
    rapid_infiltration: bool | None = None  # soils infiltrating faster than 2.4 in/h; None: from the BMPs' rates
    statements: tuple[Statement, ...] = ()

    def statement(self, key: str) -> Statement | None:
        return next((x for x in self.statements if x.key == key), None)


@dataclass(frozen=True)
class PlanSheet:
    """One sheet of the plan set, as the design engineer's plan file indexes it (optional ``sheets:``): the permit
    lists the approved sheets by number, title, revision and date (issue 18; Ch. 380 § 380-10 I)."""

    number: str
    title: str
    revision: str = ""
    date: str = ""  # YYYY-MM-DD

    def line(self) -> str:
        """The permit decision form's line: "number; title; revision; YYYY-MM-DD"."""
        return "; ".join([self.number, self.title, self.revision, self.date]).rstrip("; ")


@dataclass(frozen=True)
class Plan:
    project: Project
    rainfall: Rainfall
    pre: tuple[Subcatchment, ...]
    post: tuple[Subcatchment, ...]
    bmps: tuple[Bmp, ...]
    design_points: tuple[DesignPoint, ...]
    massdep: MassDep = field(default_factory=MassDep)
    # The applicant's SWMM 5 model(s) as text ({"post_inp", "pre_inp"?, "name"?}), re-run and compared (review/swmm.py).
    swmm: dict = field(default_factory=dict)
    sheets: tuple[PlanSheet, ...] = ()  # the plan set's sheet index (optional): the permit's approved sheets (issue 18)
    reaches: tuple = ()  # the pipes and channels between nodes (review/reaches.py: Reach), issue 31


# --- reading -----------------------------------------------------------------------------------

def plan_load_text(text: str, *, name: str = "") -> tuple[dict, str]:
    """Decode the file: JSON if it parses as JSON (or the name ends in .json), else YAML.

    Returns the decoded mapping and the format (``"json"`` or ``"yaml"``).
    """
    stripped = text.lstrip("\ufeff").strip()
    if not stripped:
        raise PlanError("file: empty")
    # Before either parser recurses (issue 20: a 100,000-deep JSON or YAML was a RecursionError traceback / 500).
    from stormwater.web.jsonapi import BadInput, check_text

    try:
        check_text(stripped, field="file")
    except BadInput as e:
        raise PlanError(str(e)) from None
    if name.lower().endswith(".json") or stripped.startswith("{"):
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError as e:
            raise PlanError(f"file: not valid JSON ({e.msg} at line {e.lineno} column {e.colno})") from None
        fmt = "json"
    else:
        import yaml  # PyYAML; safe_load builds only plain values

        try:
            data = yaml.safe_load(stripped)
        except RecursionError:  # block nesting deep enough to exhaust the parser
            raise PlanError("file: nested too deeply") from None
        except yaml.YAMLError as e:
            mark = getattr(e, "problem_mark", None)
            where = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
            raise PlanError(f"file: not valid YAML ({getattr(e, 'problem', None) or e}{where})") from None
        fmt = "yaml"
    if not isinstance(data, dict):
        raise PlanError("file: expected a mapping with project, rainfall, pre, post, bmps and design_points")
    return data, fmt


def plan_parse(text: str, *, name: str = "") -> tuple[Plan, dict, str]:
    """Parse and check a plan file. Returns ``(plan, decoded_mapping, format)``."""
    data, fmt = plan_load_text(text, name=name)
    return plan_from_dict(data), data, fmt


def _by_year(raw: Any, path: str) -> dict[int, float]:
    if not isinstance(raw, dict) or not raw:
        raise PlanError(f"{path}: expected a mapping of recurrence interval (years) to depth (in), e.g. {{2: 3.3}}")
    out = {}
    for k, v in raw.items():
        try:
            years = int(str(k).strip().removesuffix("yr").removesuffix("-").strip())
        except ValueError:
            raise PlanError(f"{path}.{k}: the key must be a recurrence interval in years") from None
        out[years] = _number(v, f"{path}.{k}", positive=True, hi=60)
    return out


_HSGS = ("A", "B", "C", "D")


def _hsg(v: str, path: str, *, required: bool) -> str:
    if not v:
        if required:
            raise PlanError(f"{path}: required (A, B, C or D)")
        return ""
    h = v.strip().upper()
    if h not in _HSGS:
        raise PlanError(f"{path}: must be A, B, C or D (a dual group such as A/D: give the drained or undrained group)")
    return h


def _cover_part(raw: Any, path: str) -> CoverPart:
    o = _Obj(raw, path, {"area_acres", "cover", "hsg", "cn", "impervious", "connected", "description"})
    area = o.num("area_acres", required=True, positive=True)
    cover = o.str("cover")
    cn = o.num("cn", lo=30, hi=100)
    if not cover and cn is None:
        raise PlanError(f"{path}: give a cover (TR-55 Table 2-2 row key) with hsg, or a cn")
    if cover and cn is not None:
        raise PlanError(f"{path}.cn: give either cover + hsg or cn, not both")
    hsg = _hsg(o.str("hsg"), o.at("hsg"), required=bool(cover))
    impervious = o.bool("impervious", default=cover == "impervious")
    if cover:
        from stormwater.engineering.runoff import curve_number_rows

        if cover not in curve_number_rows():
            raise PlanError(f"{o.at('cover')}: {cover!r} is not a TR-55 Table 2-2 row key "
                            "(e.g. impervious, open_space_good, woods_good, pasture_good, newly_graded)")
    connected = o.bool("connected", default=True)
    if not impervious and o.has("connected"):
        raise PlanError(f"{o.at('connected')}: only impervious parts are connected or unconnected")
    return CoverPart(area, cover, hsg, cn, impervious, connected)


def _tc_segment(raw: Any, path: str) -> TcSegment:
    o = _Obj(raw, path, {"flow", "length_ft", "slope", "slope_ft_per_ft", "manning_n", "surface", "p2_in",
                         "flow_area_sqft", "wetted_perimeter_ft", "description"})
    flow = o.str("flow", required=True).lower()
    if flow not in ("sheet", "shallow", "channel"):
        raise PlanError(f"{o.at('flow')}: must be sheet, shallow or channel")
    length = o.num("length_ft", required=True, positive=True)
    slope_key = "slope_ft_per_ft" if o.has("slope_ft_per_ft") else "slope"
    slope = o.num(slope_key, required=True, positive=True, hi=1)
    seg = dict(flow=flow, length_ft=length, slope_ft_per_ft=slope)
    if flow == "sheet":
        n = o.num("manning_n", positive=True, hi=1)
        surface = o.str("surface")
        if n is None:
            from stormwater.engineering.tc import sheet_flow_manning_n_table

            table = sheet_flow_manning_n_table()
            if surface not in table:
                raise PlanError(f"{o.at('manning_n')}: required for sheet flow (or a surface from TR-55 Table 3-1: "
                                f"{'; '.join(table)})")
            n = table[surface]
        seg.update(manning_n=n, surface=surface, p2_in=o.num("p2_in", positive=True, hi=60))
    elif flow == "shallow":
        surface = o.str("surface", required=True).lower()
        if surface not in ("paved", "unpaved"):
            raise PlanError(f"{o.at('surface')}: must be paved or unpaved")
        seg.update(surface=surface)
    else:
        seg.update(manning_n=o.num("manning_n", required=True, positive=True, hi=1),
                   flow_area_sqft=o.num("flow_area_sqft", required=True, positive=True),
                   wetted_perimeter_ft=o.num("wetted_perimeter_ft", required=True, positive=True))
    return TcSegment(**seg)


def _subcatchment(raw: Any, path: str, phase: str) -> Subcatchment:
    o = _Obj(raw, path, {"id", "description", "area_acres", "cn", "impervious_acres", "hsg", "cover", "tc_hr",
                         "tc", "to", "runoff_method", "roof_runoff", "impervious_tc"})
    sid = o.str("id", required=True)
    area = o.num("area_acres", required=True, positive=True, hi=2000 * 640)
    cn = o.num("cn", lo=30, hi=100)
    cover = tuple(_cover_part(c, f"{path}.cover[{i}]") for i, c in enumerate(o.list("cover")))
    if cn is None and not cover:
        raise PlanError(f"{path}: give cover (parts by TR-55 cover and HSG) or cn")
    if cn is not None and cover:
        raise PlanError(f"{path}.cn: give either cn or cover, not both")
    imp = o.num("impervious_acres", lo=0)
    if cover:
        if imp is not None:
            raise PlanError(f"{path}.impervious_acres: with cover parts the impervious area is their impervious parts")
        total = sum(p.area_acres for p in cover)
        if abs(total - area) > AREA_TOLERANCE * area:
            raise PlanError(f"{path}.cover: the parts add up to {total:g} acres, not the area_acres {area:g}")
    elif imp is None:
        imp = 0.0
    if imp is not None and imp > area:
        raise PlanError(f"{path}.impervious_acres: more than the subcatchment's area")
    tc_hr = o.num("tc_hr", positive=True, hi=10)
    tc = tuple(_tc_segment(s, f"{path}.tc[{i}]") for i, s in enumerate(o.list("tc")))
    if tc_hr is None and not tc:
        raise PlanError(f"{path}: give tc (flow segments) or tc_hr")
    if tc_hr is not None and tc:
        raise PlanError(f"{path}.tc_hr: give either tc segments or tc_hr, not both")
    for i, s in enumerate(tc):
        if s.flow == "sheet" and i != 0:
            raise PlanError(f"{path}.tc[{i}]: sheet flow can only be the first segment (TR-55 ch. 3)")
    method = o.str("runoff_method", default="weighted_cn").lower()
    if method not in RUNOFF_METHODS:
        raise PlanError(f"{o.at('runoff_method')}: must be weighted_cn (one area-weighted CN, TR-55 worksheet 2) or "
                        "separate (pervious and impervious runoff computed by their own CNs)")
    if method == "separate":
        if not cover:
            raise PlanError(f"{o.at('runoff_method')}: separate needs cover parts (which parts are impervious)")
        if any(p.impervious and not p.connected for p in cover):
            raise PlanError(f"{o.at('runoff_method')}: separate treats every impervious part as connected; for "
                            "unconnected impervious area use weighted_cn (TR-55 Fig. 2-4 is a composite-CN method)")
    imp_tc = tuple(_tc_segment(g, f"{path}.impervious_tc[{i}]") for i, g in enumerate(o.list("impervious_tc")))
    if imp_tc:
        if method != "separate" or not tc:
            raise PlanError(f"{o.at('impervious_tc')}: only with runoff_method separate and tc segments (tc is then "
                            "the pervious parts' flow path)")
        if any(g.flow == "sheet" for g in imp_tc[1:]):
            raise PlanError(f"{o.at('impervious_tc')}: sheet flow can only be the first segment (TR-55 ch. 3)")
    return Subcatchment(phase=phase, id=sid, area_acres=area, to=o.str("to", required=True),
                        description=o.str("description"), cn=cn, impervious_acres=imp,
                        hsg=_hsg(o.str("hsg"), o.at("hsg"), required=False), cover=cover, tc_hr=tc_hr, tc=tc,
                        runoff_method=method, roof_runoff=o.bool("roof_runoff"), impervious_tc=imp_tc)


def _outlet(raw: Any, path: str) -> OutletSpec:
    o = _Obj(raw, path, {"kind", "name", "invert_ft", "crest_ft", "diameter_in", "length_ft", "coefficient",
                         "emergency", "weir_type", "end_contractions", "outlet_invert_ft", "inlet", "rise_ft",
                         "span_ft", "manning_n", "entrance_loss", "barrels"})
    kind = o.str("kind", required=True).lower()
    if kind == "orifice":
        return OutletSpec("orifice", o.str("name") or "orifice", o.num("invert_ft", required=True),
                          diameter_in=o.num("diameter_in", required=True, positive=True, hi=240),
                          coefficient=o.num("coefficient", positive=True, hi=1), emergency=o.bool("emergency"))
    if kind == "weir":
        wt = o.str("weir_type").lower()
        if wt not in ("", "sharp", "broad"):
            raise PlanError(f"{o.at('weir_type')}: must be sharp (sharp-crested) or broad (broad-crested)")
        ends = int(o.num("end_contractions", lo=0, hi=2) or 0)
        if ends and wt != "sharp":
            raise PlanError(f"{o.at('end_contractions')}: end contractions are for a sharp-crested weir (weir_type: sharp)")
        return OutletSpec("weir", o.str("name") or "weir", o.num("crest_ft", required=True),
                          length_ft=o.num("length_ft", required=True, positive=True),
                          coefficient=o.num("coefficient", positive=True, hi=4), emergency=o.bool("emergency"),
                          weir_type=wt, end_contractions=ends)
    if kind == "culvert":
        from stormwater.engineering.culvert import inlet_types

        inlet = o.str("inlet", default="concrete_square_edge_headwall").lower()
        types = inlet_types()
        if inlet not in types:
            raise PlanError(f"{o.at('inlet')}: must be one of {', '.join(types)} (FHWA HDS-5 Table A.1)")
        box = types[inlet].shape == "box"
        dia = o.num("diameter_in", required=not box, positive=True, hi=240)
        rise, span = o.num("rise_ft", required=box, positive=True, hi=30), o.num("span_ft", required=box, positive=True, hi=60)
        if box and dia is not None or not box and (rise is not None or span is not None):
            raise PlanError(f"{path}: a {types[inlet].shape} culvert takes "
                            f"{'rise_ft and span_ft' if box else 'diameter_in'} only")
        inv, out = o.num("invert_ft", required=True), o.num("outlet_invert_ft", required=True)
        if out > inv:
            raise PlanError(f"{o.at('outlet_invert_ft')}: {out:g} ft is above the inlet invert ({inv:g} ft)")
        return OutletSpec("culvert", o.str("name") or "culvert", inv, diameter_in=dia,
                          length_ft=o.num("length_ft", required=True, positive=True), emergency=o.bool("emergency"),
                          outlet_invert_ft=out, inlet=inlet, rise_ft=rise, span_ft=span,
                          manning_n=o.num("manning_n", positive=True, hi=0.2),
                          entrance_loss=o.num("entrance_loss", lo=0, hi=2),
                          barrels=int(o.num("barrels", positive=True, hi=20) or 1))
    raise PlanError(f"{o.at('kind')}: must be orifice, weir or culvert (infiltration is the BMP's "
                    "infiltration_rate_in_hr over its bottom_area_sqft)")


def _bmp(raw: Any, path: str) -> Bmp:
    o = _Obj(raw, path, {"id", "type", "description", "to", "infiltration_rate_in_hr", "bottom_area_sqft",
                         "stage_storage", "outlets", "treatment_storage_cuft", "starting_stage_ft", "tss_removal_pct",
                         "tailwater_ft", "bottom_elevation_ft"})
    rate = o.num("infiltration_rate_in_hr", positive=True, hi=100)
    bottom = o.num("bottom_area_sqft", positive=True)
    if (rate is None) != (bottom is None):
        raise PlanError(f"{path}: an infiltrating BMP needs both infiltration_rate_in_hr and bottom_area_sqft")
    ss = []
    for i, row in enumerate(o.list("stage_storage")):
        p = f"{path}.stage_storage[{i}]"
        if isinstance(row, dict):
            r = _Obj(row, p, {"stage_ft", "storage_cuft"})
            ss.append((r.num("stage_ft", required=True), r.num("storage_cuft", required=True, lo=0)))
        elif isinstance(row, list) and len(row) == 2:
            ss.append((_number(row[0], p + "[0]"), _number(row[1], p + "[1]", lo=0)))
        else:
            raise PlanError(f"{p}: expected [stage_ft, storage_cuft]")
    if ss:
        if len(ss) < 2:
            raise PlanError(f"{path}.stage_storage: at least two points")
        for i, (a, b) in enumerate(zip(ss, ss[1:]), 1):
            if not (b[0] > a[0] and b[1] > a[1]):
                raise PlanError(f"{path}.stage_storage[{i}]: stage and storage must both increase")
    outlets = tuple(_outlet(x, f"{path}.outlets[{i}]") for i, x in enumerate(o.list("outlets")))
    if outlets and not ss:
        raise PlanError(f"{path}.stage_storage: required with outlets (the basin is routed)")
    if ss and not outlets and rate is None:
        raise PlanError(f"{path}.outlets: a routed BMP needs at least one outlet or an infiltration rate")
    for i, x in enumerate(outlets):
        if not ss[0][0] <= x.elevation_ft <= ss[-1][0]:
            raise PlanError(f"{path}.outlets[{i}]: elevation {x.elevation_ft:g} ft is outside the stage-storage "
                            f"table ({ss[0][0]:g} to {ss[-1][0]:g} ft)")
    start = o.num("starting_stage_ft")
    if start is not None:
        if not ss:
            raise PlanError(f"{o.at('starting_stage_ft')}: only a routed BMP (with stage_storage) has a water level")
        if not ss[0][0] <= start <= ss[-1][0]:
            raise PlanError(f"{o.at('starting_stage_ft')}: {start:g} ft is outside the stage-storage table "
                            f"({ss[0][0]:g} to {ss[-1][0]:g} ft)")
    tw_raw, tw, tw_from = o.raw.get("tailwater_ft"), None, ""
    if isinstance(tw_raw, str) and tw_raw.strip().lower() == "downstream":
        tw_from = "downstream"
    elif tw_raw is not None:
        tw = o.num("tailwater_ft")
    if (tw is not None or tw_from) and not outlets:
        raise PlanError(f"{o.at('tailwater_ft')}: only a BMP with outlets has a tailwater")
    return Bmp(id=o.str("id", required=True), type=o.str("type", required=True), to=o.str("to", required=True),
               description=o.str("description"), infiltration_rate_in_hr=rate, bottom_area_sqft=bottom,
               stage_storage=tuple(ss), outlets=outlets,
               treatment_storage_cuft=o.num("treatment_storage_cuft", positive=True), starting_stage_ft=start,
               tss_removal_pct=o.num("tss_removal_pct", lo=0, hi=100), tailwater_ft=tw, tailwater_from=tw_from,
               bottom_elevation_ft=o.num("bottom_elevation_ft", lo=-500, hi=30000))


def _rainfall(raw: Any) -> Rainfall:
    o = _Obj(raw, "rainfall", {"storm_type", "storms_years", "pfds_csv", "upper_ci_in", "design_in", "source"})
    storm = o.str("storm_type", default="III").upper()
    if storm not in ("II", "III"):
        raise PlanError("rainfall.storm_type: must be II or III (Longmeadow: III)")
    years = tuple(int(_number(y, f"rainfall.storms_years[{i}]", positive=True))
                  for i, y in enumerate(o.list("storms_years"))) or DEFAULT_STORMS_YEARS
    pfds = o.raw.get("pfds_csv")
    if isinstance(pfds, str):
        pfds = (pfds,)
    elif isinstance(pfds, list):
        if not all(isinstance(x, str) for x in pfds):
            raise PlanError("rainfall.pfds_csv: the text of one or more NOAA PFDS CSV files")
        pfds = tuple(pfds)
    elif pfds is None:
        pfds = ()
    else:
        raise PlanError("rainfall.pfds_csv: the text of one or more NOAA PFDS CSV files")
    upper = _by_year(o.raw["upper_ci_in"], "rainfall.upper_ci_in") if o.has("upper_ci_in") else {}
    design = _by_year(o.raw["design_in"], "rainfall.design_in") if o.has("design_in") else {}
    given = sum(1 for x in (pfds, upper, design) if x)
    if given != 1:
        raise PlanError("rainfall: give exactly one of pfds_csv (NOAA PFDS CSV text), upper_ci_in "
                        "(NOAA upper 90 % bounds by year) or design_in (design depths by year)")
    for key, d in (("upper_ci_in", upper), ("design_in", design)):
        missing = [y for y in years if d and y not in d]
        if missing:
            raise PlanError(f"rainfall.{key}: no depth for the {', '.join(map(str, missing))}-year storm")
    if 2 not in years:
        raise PlanError("rainfall.storms_years: must include the 2-year storm (§ 380-12 A(3)(g)[5])")
    return Rainfall(storm, years, pfds, upper, design, o.str("source"))


def _project(raw: Any) -> Project:
    o = _Obj(raw, "project", {"name", "location", "applicant", "preparer", "disturbance_acres",
                              "previously_developed_with_impervious", "part_of_common_plan",
                              "post_impervious_sqft", "recharge_target_depth_in", "description", "latitude",
                              "longitude"})
    lat, lon = o.num("latitude", lo=-90, hi=90), o.num("longitude", lo=-180, hi=180)
    if (lat is None) != (lon is None):
        raise PlanError(f"project.{'longitude' if lon is None else 'latitude'}: give both latitude and longitude "
                        "(decimal degrees; west longitudes negative)")
    return Project(name=o.str("name", required=True),
                   disturbance_acres=o.num("disturbance_acres", required=True, lo=0),
                   previously_developed_with_impervious=o.bool("previously_developed_with_impervious", required=True),
                   part_of_common_plan=o.bool("part_of_common_plan"), location=o.str("location"),
                   applicant=o.str("applicant"), preparer=o.str("preparer"),
                   post_impervious_sqft=o.num("post_impervious_sqft", lo=0),
                   recharge_target_depth_in=o.num("recharge_target_depth_in", positive=True, hi=2),
                   latitude=lat, longitude=lon)


ANSWERS = {"yes": "yes", "no": "no", "n/a": "n/a", "na": "n/a", "not applicable": "n/a", "true": "yes",
           "false": "no"}


def _massdep(raw: Any) -> MassDep:
    from .massdep import STATEMENT_KEYS

    o = _Obj(raw, "massdep", {"critical_area", "zone_ii_or_iwpa", "luhppl", "high_vehicle_trips",
                              "rapid_infiltration", "statements"})
    rapid = o.raw.get("rapid_infiltration")
    if rapid is not None and not isinstance(rapid, bool):
        raise PlanError("massdep.rapid_infiltration: must be true or false (or left out: judged from the BMPs' rates)")
    st = o.raw.get("statements") or {}
    if not isinstance(st, dict):
        raise PlanError("massdep.statements: expected a mapping of checklist item to {answer, evidence, note}")
    out = []
    for key, v in st.items():
        key = str(key)
        path = f"massdep.statements.{key}"
        if key not in STATEMENT_KEYS:
            raise PlanError(f"{path}: unknown checklist item (expected one of {', '.join(STATEMENT_KEYS)})")
        if isinstance(v, (str, bool)):
            v = {"answer": v}
        a = _Obj(v, path, {"answer", "evidence", "note"})
        raw_answer = a.raw.get("answer")
        answer = ANSWERS.get(str(raw_answer).strip().lower() if not isinstance(raw_answer, bool)
                             else str(raw_answer).lower())
        if answer is None:
            raise PlanError(f"{a.at('answer')}: must be yes, no or n/a")
        evidence, note = a.str("evidence"), a.str("note")
        if answer == "yes" and not evidence:
            raise PlanError(f"{a.at('evidence')}: required with yes (the sheet, report section or page that shows it)")
        if answer == "n/a" and not note:
            raise PlanError(f"{a.at('note')}: required with n/a (why the item does not apply)")
        out.append(Statement(key, answer, evidence, note))
    return MassDep(critical_area=o.bool("critical_area"), zone_ii_or_iwpa=o.bool("zone_ii_or_iwpa"),
                   luhppl=o.bool("luhppl"), high_vehicle_trips=o.bool("high_vehicle_trips"),
                   rapid_infiltration=rapid, statements=tuple(out))


def _sheet(raw: Any, path: str) -> PlanSheet:
    """``sheets[i]``: {number, title, revision?, date?} (a YAML date or "YYYY-MM-DD")."""

    o = _Obj(raw, path, {"number", "title", "revision", "date"})
    day = o.raw.get("date")
    if isinstance(day, _dt.date) and not isinstance(day, _dt.datetime):
        day = day.isoformat()
    elif day is not None:
        day = o.str("date")
        try:
            _dt.date.fromisoformat(day)
        except ValueError:
            raise PlanError(f"{o.at('date')}: a date YYYY-MM-DD") from None
    number, title = o.str("number", required=True), o.str("title", required=True)
    if ";" in number + title + o.str("revision"):
        raise PlanError(f"{path}: no semicolons (the permit lists a sheet as number; title; revision; date)")
    if len(number) > 40 or len(title) > 200 or len(o.str("revision")) > 20:
        raise PlanError(f"{path}: number at most 40 characters, title 200, revision 20")
    return PlanSheet(number, title, o.str("revision"), day or "")


def _sheets(raw: Any) -> tuple[PlanSheet, ...]:
    if raw is not None and not isinstance(raw, list):
        raise PlanError("sheets: a list of {number, title, revision, date}")
    return tuple(_sheet(x, f"sheets[{i}]") for i, x in enumerate(raw or ()))


def plan_from_dict(data: dict) -> Plan:
    """Build and cross-check a :class:`Plan` from the decoded file."""
    top = _Obj(data, "", {"schema", "project", "rainfall", "pre", "post", "bmps", "design_points", "massdep", "swmm",
                          "sheets", "reaches"})
    schema = top.str("schema", default=SCHEMA)
    if schema != SCHEMA:
        raise PlanError(f"schema: {schema!r} is not supported (expected {SCHEMA})")
    if "project" not in top.raw or "rainfall" not in top.raw:
        raise PlanError(f"{'project' if 'project' not in top.raw else 'rainfall'}: required")
    project = _project(top.raw["project"])
    rainfall = _rainfall(top.raw["rainfall"])
    pre = tuple(_subcatchment(s, f"pre[{i}]", "pre") for i, s in enumerate(top.list("pre", required=True)))
    post = tuple(_subcatchment(s, f"post[{i}]", "post") for i, s in enumerate(top.list("post", required=True)))
    bmps = tuple(_bmp(b, f"bmps[{i}]") for i, b in enumerate(top.list("bmps")))
    dps = []
    for i, d in enumerate(top.list("design_points", required=True)):
        o = _Obj(d, f"design_points[{i}]", {"id", "description"})
        dps.append(DesignPoint(o.str("id", required=True), o.str("description")))
    if not pre or not post or not dps:
        raise PlanError(f"{'pre' if not pre else 'post' if not post else 'design_points'}: at least one is required")
    ids: dict[str, str] = {}
    for kind, items in (("design point", dps), ("BMP", bmps)):
        for x in items:
            if x.id in ids:
                raise PlanError(f"{x.id}: the id is used twice ({ids[x.id]} and {kind})")
            ids[x.id] = kind
    for phase, items in (("pre", pre), ("post", post)):
        seen = set()
        for i, s in enumerate(items):
            if s.id in seen or s.id in ids:
                raise PlanError(f"{phase}[{i}].id: {s.id!r} is used twice")
            seen.add(s.id)
            if phase == "pre" and ids.get(s.to) != "design point":
                raise PlanError(f"pre[{i}].to: {s.to!r} is not a design point (pre-development flows go to design points)")
            if phase == "post" and s.to not in ids:
                raise PlanError(f"post[{i}].to: {s.to!r} is neither a design point nor a BMP")
    dp_ids = {d.id for d in dps}
    bmp_ids = {b.id for b in bmps}
    for i, b in enumerate(bmps):
        if b.to not in dp_ids and b.to not in bmp_ids:
            raise PlanError(f"bmps[{i}].to: {b.to!r} is neither a design point nor a BMP")
        if b.to == b.id:
            raise PlanError(f"bmps[{i}].to: a BMP cannot discharge to itself")
        if b.tailwater_from == "downstream" and (b.to not in bmp_ids or not next(x for x in bmps if x.id == b.to).stage_storage):
            raise PlanError(f"bmps[{i}].tailwater_ft: downstream needs a routed BMP downstream ({b.to!r} is not one); "
                            "give the tailwater elevation instead")
    # BMP chains must end at a design point (no loops).
    nxt = {b.id: b.to for b in bmps}
    for b in bmps:
        seen, cur = set(), b.id
        while cur in nxt:
            if cur in seen:
                raise PlanError(f"bmps: {b.id} is in a loop ({' -> '.join(seen)})")
            seen.add(cur)
            cur = nxt[cur]
    massdep = _massdep(top.raw["massdep"]) if top.has("massdep") else MassDep()
    swmm = {}
    if top.has("swmm"):
        o = _Obj(top.raw["swmm"], "swmm", {"name", "post_inp", "pre_inp", "notes", "conduits"})
        notes = o.raw.get("notes") or []
        if isinstance(notes, str):
            notes = [x.strip() for x in notes.splitlines() if x.strip()]
        if not isinstance(notes, list) or not all(isinstance(x, str) for x in notes):
            raise PlanError("swmm.notes: a list of lines (the conversion notes)")
        swmm = {"name": o.str("name"), "post_inp": o.raw.get("post_inp"), "notes": notes}
        if not isinstance(swmm["post_inp"], str) or "[SUBCATCHMENTS]" not in swmm["post_inp"].upper():
            raise PlanError("swmm.post_inp: the text of the post-development SWMM 5 .inp file")
        if o.has("pre_inp"):
            if not isinstance(o.raw["pre_inp"], str) or "[SUBCATCHMENTS]" not in o.raw["pre_inp"].upper():
                raise PlanError("swmm.pre_inp: the text of the pre-development SWMM 5 .inp file")
            swmm["pre_inp"] = o.raw["pre_inp"]
        if o.has("conduits"):  # the model's conduits, kept as data (review/swmm.py conduits_of); not routed
            cs = o.raw["conduits"]
            if not isinstance(cs, list) or not all(isinstance(c, dict) and c.get("name") for c in cs):
                raise PlanError("swmm.conduits: a list of conduits (name, from, to, length_ft, roughness, shape, "
                                "geom1_ft, slope)")
            swmm["conduits"] = cs
    from .reaches import reaches_from

    return Plan(project, rainfall, pre, post, bmps, tuple(dps), massdep, swmm, _sheets(top.raw.get("sheets")),
                reaches_from(top.raw.get("reaches"), post, bmps))


def plan_check(data: dict) -> tuple[Plan | None, list[PlanError]]:
    """Check a decoded plan item by item and collect every error (for the web form: one message per
    field or row, each starting with its path), then the cross-checks once the items are sound.

    Returns ``(plan, [])`` when the plan is valid, else ``(None, errors)``.
    """
    errors: list[PlanError] = []

    def run(fn, *args) -> bool:
        try:
            fn(*args)
            return True
        except PlanError as e:
            errors.append(e)
            return False

    if not isinstance(data, dict):
        return None, [PlanError("file: expected a mapping")]
    for key, fn in (("project", _project), ("rainfall", _rainfall)):
        if key not in data:
            errors.append(PlanError(f"{key}: required"))
        else:
            run(fn, data[key])
    for phase in ("pre", "post"):
        items = data.get(phase) or []
        if not isinstance(items, list) or not items:
            errors.append(PlanError(f"{phase}: at least one is required"))
            continue
        for i, s in enumerate(items):
            path = f"{phase}[{i}]"
            ok = True
            if isinstance(s, dict):
                for j, c in enumerate(s.get("cover") or []):
                    ok = run(_cover_part, c, f"{path}.cover[{j}]") and ok
                for j, g in enumerate(s.get("tc") or []):
                    ok = run(_tc_segment, g, f"{path}.tc[{j}]") and ok
            if ok:
                run(_subcatchment, s, path, phase)
    for i, b in enumerate(data.get("bmps") or []):
        ok = True
        if isinstance(b, dict):
            for j, o in enumerate(b.get("outlets") or []):
                ok = run(_outlet, o, f"bmps[{i}].outlets[{j}]") and ok
        if ok:
            run(_bmp, b, f"bmps[{i}]")
    for i, d in enumerate(data.get("design_points") or []):
        def _dp(d=d, i=i):
            o = _Obj(d, f"design_points[{i}]", {"id", "description"})
            o.str("id", required=True)
        run(_dp)
    if not data.get("design_points"):
        errors.append(PlanError("design_points: at least one is required"))
    if data.get("massdep") is not None:
        run(_massdep, data["massdep"])
    if data.get("sheets") is not None:
        run(_sheets, data["sheets"])
    if errors:
        return None, errors
    try:
        return plan_from_dict(data), []
    except PlanError as e:
        return None, [e]
