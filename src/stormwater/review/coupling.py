"""Tailwater that follows the basin downstream through the storm: the two are routed in turn until they agree.

A BMP with ``tailwater_ft: downstream`` discharges against the water level of the BMP its ``to`` names, and that
level rises with what the first one sends it. The review iterates (block Gauss–Seidel on whole hydrographs): pass 1
routes every BMP with the downstream BMP's starting level held as the tailwater; each later pass routes the
upstream BMP against the downstream BMP's stage at every time step from the pass before (storage-indication with a
changing tailwater, :mod:`stormwater.engineering.tailwater`), then the downstream BMP with the new outflow --
until no downstream stage changes by more than ``TOLERANCE_FT`` between passes (at most ``MAX_PASSES``). The
report states the passes and the last change.

Pure Python (no Django). References: NEH 630 ch. 17 (storage-indication routing); FHWA HDS-5 (2012) ch. 3 (the
tailwater at a culvert's outlet sets h_o).
"""
from __future__ import annotations

TOLERANCE_FT = 0.005
MAX_PASSES = 30


class TailwaterIteration:
    """The state of the passes: the tailwater series each coupled BMP is routed against, by (BMP, storm)."""

    def __init__(self, bmps, years):
        self.pairs = [(b.id, b.to) for b in bmps if b.tailwater_from == "downstream"]
        self.years = list(years)
        self.series: dict[tuple[str, int], tuple[float, ...]] = {}
        self.passes, self.change_ft = 0, None

    def tailwater(self, bid: str, year: int) -> tuple[float, ...] | None:
        """The tailwater at each step for this pass (None: the fixed or starting level, as in pass 1)."""
        return self.series.get((bid, year))

    def next_pass(self, stages: dict[tuple[str, int], tuple[float, ...]]) -> bool:
        """After a pass: take the downstream stages as the next tailwaters; True while another pass is needed."""
        self.passes += 1
        if not self.pairs:
            return False
        change = 0.0
        for bid, down in self.pairs:
            for y in self.years:
                new = stages.get((down, y))
                if new is None:
                    continue
                old = self.series.get((bid, y))
                if old is None:
                    old = (new[0],)
                n = max(len(new), len(old))
                change = max(change, max(abs(new[min(i, len(new) - 1)] - old[min(i, len(old) - 1)]) for i in range(n)))
                self.series[(bid, y)] = new
        self.change_ft = change
        return change > TOLERANCE_FT and self.passes < MAX_PASSES

    def basis(self) -> str:
        """How the coupled BMPs were routed, for the report ("" when none is)."""
        if not self.pairs:
            return ""
        done = self.change_ft is not None and self.change_ft <= TOLERANCE_FT
        return (f"tailwater from the basin downstream ({', '.join(f'{a} → {b}' for a, b in self.pairs)}): routed in "
                f"turn, each pass against the downstream water level at every time step of the pass before, "
                f"{self.passes} passes; the last changed a downstream level by {self.change_ft or 0:.4f} ft"
                + ("" if done else f" -- NOT converged to {TOLERANCE_FT:g} ft: the result is approximate"))
