"""The node diagram of a plan's drainage network as SVG (pure Python; no Django, no drawing library).

Drawn as HydroCAD draws its routing diagram: subcatchments as hexagons, BMPs (ponds) as triangles,
design points as double-bordered squares, flow as arrows, left to right from the subcatchments to the
design points. Pre- and post-development are two diagrams. The SVG uses presentation attributes only
(no <style>, no script), so it sits inline in the page under the Content-Security-Policy and renders
in WeasyPrint's PDF the same way; it carries a <title> and a <desc> listing every link for screen readers.
"""
from __future__ import annotations

from html import escape

COL_W, ROW_H, PAD_X, PAD_Y, R = 165, 84, 80, 36, 24
COLOURS = {"subcatchment": ("#e8f1f8", "#0b4f6c"), "bmp": ("#fff4e0", "#8a4b00"), "design_point": ("#eef6ee", "#0a6b2b")}


def _layout(nodes: list[dict], edges: list[dict]) -> dict[str, tuple[int, int]]:
    """Column = longest path from a source; design points in the last column; rows in the order given."""
    ids = [n["id"] for n in nodes]
    into: dict[str, list[str]] = {i: [] for i in ids}
    for e in edges:
        if e["to"] in into:
            into[e["to"]].append(e["from"])
    col: dict[str, int] = {}

    def depth(i: str, seen=()) -> int:
        if i in col:
            return col[i]
        if i in seen:
            return 0
        col[i] = 0 if not into[i] else 1 + max(depth(u, (*seen, i)) for u in into[i])
        return col[i]

    for i in ids:
        depth(i)
    last = max([col[n["id"]] for n in nodes if n["kind"] != "design_point"], default=0) + 1
    for n in nodes:
        if n["kind"] == "design_point":
            col[n["id"]] = last
    rows: dict[int, int] = {}
    pos = {}
    for n in nodes:
        c = col[n["id"]]
        pos[n["id"]] = (c, rows.get(c, 0))
        rows[c] = rows.get(c, 0) + 1
    return pos


def _shape(kind: str, x: float, y: float) -> str:
    fill, stroke = COLOURS[kind]
    if kind == "subcatchment":
        pts = " ".join(f"{x + dx:.1f},{y + dy:.1f}" for dx, dy in
                       ((-R, 0), (-R / 2, -R * 0.87), (R / 2, -R * 0.87), (R, 0), (R / 2, R * 0.87), (-R / 2, R * 0.87)))
        return f'<polygon points="{pts}" fill="{fill}" stroke="{stroke}" stroke-width="1.6"/>'
    if kind == "bmp":
        pts = f"{x:.1f},{y - R:.1f} {x + R * 1.05:.1f},{y + R * 0.8:.1f} {x - R * 1.05:.1f},{y + R * 0.8:.1f}"
        return f'<polygon points="{pts}" fill="{fill}" stroke="{stroke}" stroke-width="1.6"/>'
    s = R * 0.85
    return (f'<rect x="{x - s:.1f}" y="{y - s:.1f}" width="{2 * s:.1f}" height="{2 * s:.1f}" fill="{fill}" '
            f'stroke="{stroke}" stroke-width="1.6"/><rect x="{x - s + 4:.1f}" y="{y - s + 4:.1f}" '
            f'width="{2 * s - 8:.1f}" height="{2 * s - 8:.1f}" fill="none" stroke="{stroke}" stroke-width="1"/>')


def network_svg(network: dict, phase: str, *, id_prefix: str = "net") -> str:
    """One phase's diagram (``"pre"`` or ``"post"``) as an SVG element."""
    nodes = [n for n in network["nodes"] if n["phase"] == phase]
    edges = [e for e in network["edges"] if e["phase"] == phase]
    if not nodes:
        return ""
    pos = _layout(nodes, edges)
    ncols = max(c for c, _ in pos.values()) + 1
    nrows = max(r for _, r in pos.values()) + 1
    w, h = PAD_X * 2 + (ncols - 1) * COL_W, PAD_Y * 2 + (nrows - 1) * ROW_H + 30
    xy = {i: (PAD_X + c * COL_W, PAD_Y + 6 + r * ROW_H) for i, (c, r) in pos.items()}
    mid = f"{id_prefix}-{phase}-arrow"
    label = {n["id"]: n["label"] for n in nodes}
    title = f"{'Pre' if phase == 'pre' else 'Post'}-development drainage network"
    desc = "; ".join(f"{label.get(e['from'], e['from'])} flows to {label.get(e['to'], e['to'])}"
                     + (f" through reach {e['reach']}" if e.get("reach") else "") for e in edges)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" '
             f'aria-labelledby="{id_prefix}-{phase}-t {id_prefix}-{phase}-d" class="rv-network" '
             f'preserveAspectRatio="xMinYMin meet">',
             f'<title id="{id_prefix}-{phase}-t">{escape(title)}</title>',
             f'<desc id="{id_prefix}-{phase}-d">{escape(desc)}</desc>',
             f'<defs><marker id="{mid}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
             'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#3e4c59"/></marker></defs>']
    for e in edges:
        if e["from"] not in xy or e["to"] not in xy:
            continue
        (x1, y1), (x2, y2) = xy[e["from"]], xy[e["to"]]
        dx, dy = x2 - x1, y2 - y1
        dist = max((dx * dx + dy * dy) ** 0.5, 1.0)
        sx, sy = x1 + dx / dist * (R + 4), y1 + dy / dist * (R + 4)
        ex, ey = x2 - dx / dist * (R + 6), y2 - dy / dist * (R + 6)
        dash = ' stroke-dasharray="6 3"' if e.get("reach") else ""   # a pipe or channel (a plan's reach)
        parts.append(f'<line x1="{sx:.1f}" y1="{sy:.1f}" x2="{ex:.1f}" y2="{ey:.1f}" stroke="#3e4c59" '
                     f'stroke-width="1.4"{dash} marker-end="url(#{mid})"/>')
        if e.get("reach"):
            parts.append(f'<text x="{(sx + ex) / 2 + 4:.1f}" y="{(sy + ey) / 2 - 4:.1f}" font-family="DejaVu Sans, Arial, '
                         f'sans-serif" font-size="10" fill="#3e4c59">{escape(e["reach"])}</text>')
    for n in nodes:
        x, y = xy[n["id"]]
        parts.append(_shape(n["kind"], x, y))
        parts.append(f'<text x="{x:.1f}" y="{y + R + 14:.1f}" text-anchor="middle" font-family="DejaVu Sans, Arial, '
                     f'sans-serif" font-size="12" font-weight="600" fill="#1f2933">{escape(n["label"])}</text>')
        if n.get("detail"):
            d = n["detail"] if len(n["detail"]) <= 28 else n["detail"][:27] + "…"
            parts.append(f'<text x="{x:.1f}" y="{y + R + 27:.1f}" text-anchor="middle" font-family="DejaVu Sans, '
                         f'Arial, sans-serif" font-size="10" fill="#52606d">{escape(d)}</text>')
    parts.append("</svg>")
    return "".join(parts)
