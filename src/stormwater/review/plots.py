"""Hydrograph plots of a stored review (matplotlib, Agg backend, SVG), deterministic byte for byte.

Each plot draws one node (subcatchment, BMP or design point) for one storm from the series the engine
kept in ``results["hydrographs"]`` (every 0.1 h; engine.PLOT_STEP_HR) and marks the exact peaks from
the report's tables, so that the picture and the numbers agree. The same SVG goes into the web page
(served by ``/reviews/<id>/plots/<storm>/<node>.svg``) and into the PDF (as a data URI).

Determinism: no pyplot state (a fresh ``Figure`` per plot), a fixed ``svg.hashsalt`` (clip-path ids),
no date in the metadata, text kept as text (``svg.fonttype = none``).
"""
from __future__ import annotations

import base64
import io
from functools import lru_cache

import matplotlib

matplotlib.use("Agg")

from matplotlib.figure import Figure  # noqa: E402

STYLE = {"svg.hashsalt": "stormwater-review", "svg.fonttype": "none", "font.family": "DejaVu Sans",
         "font.size": 9.0, "axes.titlesize": 10.0, "axes.labelsize": 9.0, "legend.fontsize": 8.5}
# Colours distinguishable in grey print and by colour-blind readers (Okabe-Ito).
COLOURS = {"inflow": "#0072B2", "outflow": "#D55E00", "infiltration": "#009E73", "runoff": "#0072B2",
           "pre": "#555555", "post": "#0072B2"}
DASHES = {"inflow": "-", "outflow": "-", "infiltration": "--", "runoff": "-", "pre": "--", "post": "-"}
LABELS = {"inflow": "inflow", "outflow": "outflow (surface outlets)", "infiltration": "infiltration",
          "runoff": "runoff", "pre": "pre-development", "post": "post-development"}


class PlotNotFound(LookupError):
    """No series for that storm and node in the stored results."""


def node_title(results: dict, node: str) -> str:
    kind, _, rest = node.partition(":")
    if kind == "sub":
        phase, _, sid = rest.partition(":")
        return f"{sid} ({phase}-development subcatchment)"
    if kind == "bmp":
        return f"{rest} (BMP)"
    return f"{rest} (design point)"


def _peaks(results: dict, storm: str, node: str) -> dict[str, tuple[float, float]]:
    """Exact peaks [(cfs, h)] per series from the report's tables."""
    kind, _, rest = node.partition(":")
    if kind == "sub":
        phase, _, sid = rest.partition(":")
        row = next((s for s in results["subcatchments"] if s["id"] == sid and s["phase"] == phase), None)
        st = row["storms"].get(storm) if row else None
        return {"runoff": (st["peak_cfs"], st["peak_time_hr"])} if st else {}
    if kind == "bmp":
        row = next((b for b in results["bmps"] if b["id"] == rest), None)
        st = row["storms"].get(storm) if row else None
        if not st or "inflow_peak_time_hr" not in st:
            return {}
        out = {"inflow": (st["inflow_peak_cfs"], st["inflow_peak_time_hr"])}
        if st.get("outflow_peak_time_hr") is not None:
            out["outflow"] = (st["outflow_peak_cfs"], st["outflow_peak_time_hr"])
        return out
    row = next((d for d in results["design_points"] if d["id"] == rest), None)
    st = row["storms"].get(storm) if row else None
    if not st:
        return {}
    return {k: (st[f"{k}_peak_cfs"], st[f"{k}_peak_time_hr"]) for k in ("pre", "post")
            if st.get(f"{k}_peak_time_hr") is not None}


def hydrograph_svg(results: dict, storm: str, node: str) -> str:
    """The SVG text of one node's hydrographs for one storm."""
    hg = results.get("hydrographs", {}).get(str(storm))
    if not hg or node not in hg["nodes"]:
        raise PlotNotFound(f"no hydrograph for {node} in the {storm}-year storm")
    return _render(_freeze(hg["nodes"][node]), float(hg["step_hr"]), node_title(results, node), str(storm),
                   tuple(sorted(_peaks(results, str(storm), node).items())))


def _freeze(named: dict[str, list[float]]) -> tuple:
    return tuple((k, tuple(v)) for k, v in named.items())


@lru_cache(maxsize=256)
def _render(named: tuple, step_hr: float, title: str, storm: str, peaks: tuple) -> str:
    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(6.2, 2.7))
        ax = fig.add_subplot()
        n = max((len(v) for _, v in named), default=0)
        t = [i * step_hr for i in range(n)]
        lo, hi = _window(named, step_hr)
        for name, flows in named:
            if not flows:
                continue
            ax.plot(t[:len(flows)], flows, DASHES.get(name, "-"), color=COLOURS.get(name, "#000000"), lw=1.4,
                    label=LABELS.get(name, name))
        for name, (q, tp) in peaks:
            if not q > 0:  # a hydrograph that never rises has no peak to mark
                continue
            ax.plot([tp], [q], "o", ms=3.5, color=COLOURS.get(name, "#000000"))
            ax.annotate(f"{q:.2f} cfs at {tp:.2f} h", (tp, q), xytext=(6, -2), textcoords="offset points",
                        fontsize=8, color=COLOURS.get(name, "#000000"))
        ax.set_title(f"{title} · {storm}-year 24-hour storm", loc="left")
        ax.set_xlabel("time from the start of the storm (h)")
        ax.set_ylabel("flow (cfs)")
        ax.set_xlim(lo, hi)
        ax.set_ylim(bottom=0)
        ax.grid(True, color="#dddddd", lw=0.6)
        ax.legend(loc="upper right", frameon=False)
        fig.tight_layout()
        buf = io.StringIO()
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": "stormwater review"})
    return buf.getvalue()


def _window(named: tuple, step_hr: float) -> tuple[float, float]:
    """Time window [h] where any series carries more than 1 % of its peak, widened by 1 h before and
    2 h after, on whole hours (a 24-hour storm's response is a spike on a 0-72 h axis)."""
    first, last = None, None
    for _, flows in named:
        if not flows or max(flows) <= 0:
            continue
        peak = max(flows)
        idx = [i for i, q in enumerate(flows) if q > 0.01 * peak]
        first = idx[0] if first is None else min(first, idx[0])
        last = idx[-1] if last is None else max(last, idx[-1])
    if first is None:
        return 0.0, 24.0
    lo = max(0.0, float(int(first * step_hr - 1.0)))
    hi = float(int(last * step_hr + 2.0) + 1)
    return lo, max(hi, lo + 4.0)


def svg_data_uri(svg: str) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode("utf-8")).decode("ascii")

