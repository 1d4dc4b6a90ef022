"""Stage-versus-time plots of a stored review: one routed BMP's water level for one storm (issue 31), in
the grading plan's datum where the plan gives the BMP's bottom elevation (review/elevations.py).

Drawn like the hydrographs (review/plots.py: matplotlib Agg, a fresh ``Figure``, the same deterministic
SVG settings) from ``results["stages"]`` (the level every 0.1 h), with the peak level from the routing
table marked, each outlet's elevation and the top of the stage–storage table as horizontal lines. Its
node name is ``stage:<BMP id>`` on the same plot address as the hydrographs.
"""
from __future__ import annotations

import io
from functools import lru_cache

import matplotlib

from .elevations import datum_of, level
from .plots import STYLE, PlotNotFound, hydrograph_svg

matplotlib.use("Agg")

from matplotlib.figure import Figure  # noqa: E402

PREFIX = "stage:"
LEVEL_COLOUR, OUTLET_COLOUR, TOP_COLOUR = "#0072B2", "#D55E00", "#555555"   # Okabe-Ito, as the hydrographs


def plot_svg(results: dict, storm: str, node: str) -> str:
    """Any plot of the report by its node name: ``stage:<BMP>`` a water level, else the node's hydrographs
    (review/plots.py); the one the plot address and the PDF call."""
    return stage_svg(results, storm, node) if node.startswith(PREFIX) else hydrograph_svg(results, storm, node)


def stage_svg(results: dict, storm: str, node: str) -> str:
    """The SVG text of one BMP's water level against time for one storm."""
    bid = node.removeprefix(PREFIX)
    series = (results.get("stages", {}).get(str(storm)) or {}).get("bmps", {}).get(bid)
    row = next((b for b in results.get("bmps", []) if b["id"] == bid), None)
    if not series or row is None:
        raise PlotNotFound(f"no water level for {bid} in the {storm}-year storm")
    datum = row.get("datum") or datum_of(None, None)
    st = row["storms"].get(str(storm), {})
    peak = (level(st.get("peak_stage_ft"), datum), st.get("peak_stage_time_hr"))
    lines = tuple((f"{o['name']} {level(o['elevation_ft'], datum):g} ft", level(o["elevation_ft"], datum))
                  for o in row.get("outlets", []) if o.get("elevation_ft") is not None)
    if row.get("top_stage_ft") is not None:
        lines += ((f"top of the table {level(row['top_stage_ft'], datum):g} ft", level(row["top_stage_ft"], datum)),)
    step = float(results["stages"][str(storm)]["step_hr"])
    return _render(tuple(level(h, datum) for h in series), step, f"{bid} (BMP) water level", str(storm),
                   datum["label"], peak, lines)


@lru_cache(maxsize=128)
def _render(levels: tuple, step_hr: float, title: str, storm: str, ylabel: str, peak: tuple, lines: tuple) -> str:
    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(6.2, 2.7))
        ax = fig.add_subplot()
        t = [i * step_hr for i in range(len(levels))]
        ax.plot(t, levels, "-", color=LEVEL_COLOUR, lw=1.4, label="water level")
        lo, hi = _window(levels, step_hr)
        for text, y in lines:
            dashed = text.startswith("top of")
            ax.axhline(y, color=TOP_COLOUR if dashed else OUTLET_COLOUR, lw=0.8, ls="--" if dashed else ":")
            ax.annotate(text, (lo, y), xytext=(3, 2), textcoords="offset points", fontsize=7,
                        color=TOP_COLOUR if dashed else OUTLET_COLOUR)
        if peak[0] is not None and peak[1] is not None:
            ax.plot([peak[1]], [peak[0]], "o", ms=3.5, color=LEVEL_COLOUR)
            ax.annotate(f"peak {peak[0]:g} ft at {peak[1]:.2f} h", (peak[1], peak[0]), xytext=(6, -10),
                        textcoords="offset points", fontsize=8, color=LEVEL_COLOUR)
        ax.set_title(f"{title} · {storm}-year 24-hour storm", loc="left")
        ax.set_xlabel("time from the start of the storm (h)")
        ax.set_ylabel(ylabel.replace(" (ft", "\n(ft"))
        ax.set_xlim(lo, hi)
        ax.grid(True, color="#dddddd", lw=0.6)
        fig.tight_layout()
        buf = io.StringIO()
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": "stormwater review"})
    return buf.getvalue()


def _window(levels: tuple, step_hr: float) -> tuple[float, float]:
    """From 1 h before the level starts to move to 2 h after it last moves (whole hours)."""
    base = levels[0] if levels else 0.0
    moving = [i for i, h in enumerate(levels) if abs(h - base) > 0.005]
    if not moving:
        return 0.0, 24.0
    lo = max(0.0, float(int(moving[0] * step_hr - 1.0)))
    hi = float(int(moving[-1] * step_hr + 2.0) + 1)
    return lo, max(hi, lo + 4.0)
