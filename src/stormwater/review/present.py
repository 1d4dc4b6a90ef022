"""Stored review results → what the report templates iterate over (no Django models; no computation).

The engine's JSON keeps rows keyed for lookup; templates want lists in reading order with the plots'
addresses resolved. ``plot_src(storm, node)`` gives an image address: a URL on the web page, a data URI
in the PDF. Results stored by an older engine (without checklist, network or hydrographs) still render:
the missing parts are simply absent.
"""
from __future__ import annotations

from typing import Callable

from .diagram import network_svg
from .elevations import datum_of, level


def _alt(title: str, storm: str, peaks: list[str]) -> str:
    return f"Hydrograph of {title}, {storm}-year storm" + (": " + "; ".join(peaks) if peaks else "")


def _peak(label: str, q_cfs, t_hr) -> str:
    """"<label> <q> cfs at <t> h"; a hydrograph that never rises has no time of peak."""
    return f"{label} {q_cfs} cfs at {t_hr} h" if q_cfs else f"{label} {q_cfs} cfs (no runoff)"


def report_view(results: dict, *, plot_src: Callable[[str, str], str] | None) -> dict:
    by_key = {s["key"]: s for s in results.get("standards", [])}
    storms = [str(s["ari_years"]) for s in results.get("rainfall", {}).get("storms", [])]
    have_plots = bool(results.get("hydrographs")) and plot_src is not None

    checklist = None
    if results.get("checklist"):
        checklist = []
        for sec in results["checklist"]:
            items = []
            for it in sec["items"]:
                items.append({**it, "row_list": [by_key[k] for k in it["rows"] if k in by_key]})
            checklist.append({**sec, "items": items})

    def plots(node: str, title: str, peak_text: Callable[[str], list[str]]) -> list[dict]:
        if not have_plots:
            return []
        return [{"storm": y, "src": plot_src(y, node), "alt": _alt(title, y, peak_text(y))} for y in storms
                if node in results["hydrographs"].get(y, {}).get("nodes", {})]

    subs = []
    for s in results.get("subcatchments", []):
        st = s["storms"]
        subs.append({**s, "storm_list": [(y, st[y]) for y in storms if y in st],
                     "plots": plots(f"sub:{s['phase']}:{s['id']}", f"subcatchment {s['id']} ({s['phase']})",
                                    lambda y, st=st: [_peak("runoff peak", st[y]["peak_cfs"], st[y]["peak_time_hr"])]
                                    if y in st else [])})
    bmps = []
    for b in results.get("bmps", []):
        st = b["storms"]

        def peaks(y, st=st):
            x = st.get(y, {})
            out = []
            if x.get("inflow_peak_time_hr") is not None:
                out.append(_peak("inflow peak", x["inflow_peak_cfs"], x["inflow_peak_time_hr"]))
            if x.get("outflow_peak_time_hr") is not None:
                out.append(_peak("outflow peak", x["outflow_peak_cfs"], x["outflow_peak_time_hr"]))
            return out

        ssd = b.get("ssd")
        datum = b.get("datum") or datum_of(b["ssd"]["rows"][0]["stage_ft"] if ssd else None, None)
        stage_plots = [{"storm": y, "src": plot_src(y, f"stage:{b['id']}"),
                        "alt": f"Water level of BMP {b['id']}, {y}-year storm: peak {level(st[y].get('peak_stage_ft'), datum)} "
                               f"ft at {st[y].get('peak_stage_time_hr')} h ({datum['label']})"}
                       for y in storms if have_plots and b["id"] in (results.get("stages", {}).get(y) or {}).get("bmps", {})
                       and y in st]
        bmps.append({**b, "storm_list": [(y, {**st[y], "peak_level": level(st[y].get("peak_stage_ft"), datum)})
                                         for y in storms if y in st],
                     "datum": datum, "stage_plots": stage_plots,
                     "outlet_list": [{**o, "level": level(o.get("elevation_ft"), datum)} for o in b.get("outlets", [])],
                     "start_level": level(b.get("starting_stage_ft"), datum), "top_level": level(b.get("top_stage_ft"), datum),
                     "lowest_level": level(b.get("lowest_outlet_ft"), datum),
                     "ssd_rows": [{**row, "level": level(row["stage_ft"], datum),
                                   "above_bottom": round(row["stage_ft"] - ssd["rows"][0]["stage_ft"], 3),
                                   "flow_list": [_flow_cell(row, c) for c in ssd["columns"]]}
                                  for row in ssd["rows"]] if ssd else [],
                     "ssd_columns": ssd["columns"] if ssd else [],
                     "has_culvert": any(o.get("kind") == "culvert" for o in b.get("outlets", [])),
                     "removal_list": list(b.get("removal", {}).items()),
                     "plots": plots(f"bmp:{b['id']}", f"BMP {b['id']}", peaks)})
    dps = []
    for d in results.get("design_points", []):
        st = d["storms"]
        dps.append({**d, "storm_list": [(y, st[y]) for y in storms if y in st],
                    "plots": plots(f"dp:{d['id']}", f"design point {d['id']}",
                                   lambda y, st=st: [_peak(f"{k}-development peak", st[y][k + "_peak_cfs"],
                                                           st[y][k + "_peak_time_hr"]) for k in ("pre", "post")
                                                     if y in st and st[y].get(k + "_peak_time_hr") is not None])})
    reaches = [{**x, "storm_list": [(y, x["storms"][y]) for y in storms if y in x["storms"]]}
               for x in results.get("reaches", [])]
    net = results.get("network")
    return {"checklist": checklist, "subs": subs, "bmps": bmps, "dps": dps, "reaches": reaches,
            "diagram_pre": network_svg(net, "pre") if net else "",
            "diagram_post": network_svg(net, "post") if net else ""}


def _flow_cell(row: dict, col: str) -> str | float | None:
    """An outlet's flow in the stage-storage-discharge table; a culvert's with the control that governs."""
    q, ctl = row["flows_cfs"].get(col), (row.get("controls") or {}).get(col)
    return f"{q} ({ctl})" if ctl else q
