"""Geometry of the small inline SVG bar charts of the fund pages (no script, no CDN).

Each chart is also a table on the same page: the chart is for reading at a glance, the table is
the record (and what a screen reader reads)."""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from stormwater.rules.money import fmt_display

SERIES_CLASSES = ("s0", "s1", "s2")


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    w: float
    h: float
    css: str
    title: str
    text_x: float
    text: str


def _as_money(v) -> str:
    return f"${fmt_display(v)}"


def _as_count(v) -> str:
    return f"{int(v):,}"


def hbars(rows: list[tuple[str, list[Decimal]]], *, series: list[str], marker: Decimal | None = None,
          marker_label: str = "", width: int = 720, label_w: int = 210, bar_h: int = 16, money: bool = True) -> dict:
    """Horizontal bars: one group per row, one bar per series; an optional vertical marker (e.g. the need).
    ``money=False`` labels the bars as counts (the work queue's charts)."""
    fmt = _as_money if money else _as_count
    values = [v for _, vs in rows for v in vs if v is not None] + ([marker] if marker is not None else [])
    top = max(values + [Decimal(1)])
    plot_w = width - label_w - 90
    scale = float(plot_w) / float(top)
    group_h = bar_h * len(series) + 10
    bars, labels = [], []
    for i, (label, vs) in enumerate(rows):
        y0 = 24 + i * group_h
        labels.append({"x": label_w - 6, "y": y0 + group_h / 2, "text": label})
        for j, v in enumerate(vs):
            if v is None:
                continue
            w = max(float(v) * scale, 0.0)
            bars.append(Bar(label_w, y0 + j * bar_h, round(w, 1), bar_h - 3, SERIES_CLASSES[j % 3],
                            f"{label} — {series[j]}: {fmt(v)}", label_w + w + 4, fmt(v)))
    height = 24 + len(rows) * group_h + 8
    m = None
    if marker is not None:
        mx = label_w + float(marker) * scale
        # Label on the left of the line when the line is far right, so it is never cut off.
        m = {"x": round(mx, 1), "y2": height - 4, "label": f"{marker_label} {fmt(marker)}",
             "anchor": "end" if mx > width * 0.6 else "start", "dx": -4 if mx > width * 0.6 else 4}
    legend = [{"x": label_w + k * 150, "css": SERIES_CLASSES[k % 3], "text": s} for k, s in enumerate(series)]
    return {"width": width, "height": height, "bars": bars, "labels": labels, "marker": m, "legend": legend,
            "label_w": label_w}


def vbars(points: list[tuple[str, Decimal]], *, width: int = 720, height: int = 220, money: bool = True) -> dict:
    """Vertical bars over time (receipts by period; ``money=False``: counts, e.g. inspections by day)."""
    fmt = _as_money if money else _as_count
    n = max(len(points), 1)
    top = max([v for _, v in points] + [Decimal(1)])
    plot_h = height - 50
    slot = (width - 60) / n
    bars = []
    for i, (label, v) in enumerate(points):
        h = max(float(v), 0.0) / float(top) * plot_h
        x = 50 + i * slot
        bars.append({"x": round(x + slot * 0.15, 1), "y": round(20 + plot_h - h, 1), "w": round(slot * 0.7, 1),
                     "h": round(h, 1), "title": f"{label}: {fmt(v)}",
                     "lx": round(x + slot / 2, 1), "label": label if n <= 16 or i % max(1, n // 12) == 0 else ""})
    return {"width": width, "height": height, "bars": bars, "top": fmt(top), "base_y": 20 + plot_h}
