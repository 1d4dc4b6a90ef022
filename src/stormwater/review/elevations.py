"""A BMP's levels in the grading plan's datum, the stage–storage–discharge table's check step, and the
water-level series kept for the stage-versus-time plots (issue 31: "elevations, not only stages").

Datum. A plan's stage–storage table gives stages [ft]; the grading plan gives elevations [ft]. The BMP's
optional ``bottom_elevation_ft`` is the grading plan's elevation of the table's first stage (the BMP's
bottom or invert). With it every level on the report is an elevation::

    elevation = bottom_elevation_ft + (stage − first stage)

Without it the report never shows an elevation it does not know: it says "stage above bottom" when the
table starts at 0 ft (the levels are the plan's stages), and "stage (as the plan gives it)" otherwise.

Check step. Ch. 380 § 380-12 A(3)(g) asks for the hydrologic and hydraulic calculations; a table can be
checked against HydroCAD's (which prints storage at 0.10-ft steps) when it has a row at least every
0.1 ft and at least 20 rows from the bottom to the top: the step is 0.1 ft, or 0.05/0.02/0.01/0.005 ft
for a BMP too shallow for 20 rows at 0.1 ft, besides the plan's own stages and every outlet's elevation.
"""
from __future__ import annotations

import math

CHECK_STEP_FT = 0.1      # HydroCAD's stage-storage listing step; the review's table is at least this fine
MIN_ROWS = 20            # … and has at least 20 rows from the bottom to the top
_STEPS = (0.1, 0.05, 0.02, 0.01, 0.005)


def check_stages(lo_ft: float, hi_ft: float) -> list[float]:
    """Stages [ft] from ``lo_ft`` to ``hi_ft`` at the check step (≤ 0.1 ft and at least 20 rows)."""
    depth = hi_ft - lo_ft
    if depth <= 0:
        return [lo_ft]
    step = next((s for s in _STEPS if depth / s >= MIN_ROWS), _STEPS[-1])
    n = int(math.floor(depth / step + 1e-9))
    return sorted({*(round(lo_ft + i * step, 6) for i in range(n + 1)), round(hi_ft, 6)})


def datum_of(first_stage_ft: float | None, bottom_elevation_ft: float | None) -> dict:
    """How the report states a BMP's levels: ``offset_ft`` (added to a stage), the column label and a note."""
    if first_stage_ft is None:
        return {"offset_ft": 0.0, "label": "Stage (ft)", "elevations": False, "note": ""}
    if bottom_elevation_ft is not None:
        return {"offset_ft": bottom_elevation_ft - first_stage_ft, "label": "Elevation (ft)", "elevations": True,
                "note": f"Levels are elevations in the grading plan's datum: the bottom (stage {first_stage_ft:g} ft of "
                        f"the stage–storage table) is at elevation {bottom_elevation_ft:g} ft."}
    if first_stage_ft == 0:
        return {"offset_ft": 0.0, "label": "Stage above bottom (ft)", "elevations": False,
                "note": "The plan gives no bottom elevation for this BMP: levels are stages above its bottom "
                        "(bottom_elevation_ft puts them in the grading plan's datum)."}
    return {"offset_ft": 0.0, "label": "Stage (ft, as the plan gives it)", "elevations": False,
            "note": f"The plan gives no bottom elevation for this BMP and its table starts at {first_stage_ft:g} ft: "
                    "levels are the plan's own stages (bottom_elevation_ft puts them in the grading plan's datum)."}


def level(stage_ft: float | None, datum: dict) -> float | None:
    """A stage [ft] as the report states it (an elevation where the plan gives the datum)."""
    return None if stage_ft is None else round(stage_ft + datum["offset_ft"], 3)


def stage_plot_series(stages: dict[str, tuple[float, ...]], dt_hr: float, hydro: dict) -> dict:
    """Every routed BMP's water level [ft, the plan's stage] at the hydrographs' plot step and length
    (``hydro`` = one storm's ``results["hydrographs"]`` entry); after routing ends the level holds."""
    step = float(hydro["step_hr"])
    k = max(1, round(step / dt_hr))
    out = {}
    for bid, st in stages.items():
        node = hydro["nodes"].get(f"bmp:{bid}") or {}
        n = max((len(v) for v in node.values()), default=0)
        out[bid] = [round(st[min(i * k, len(st) - 1)], 3) for i in range(n)] if st else []
    return {"step_hr": step, "bmps": out}
