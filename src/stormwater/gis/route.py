"""The order to drive to a day's sites: a nearest-neighbour tour improved by 2-opt and Or-opt (pure; no Django).

Distances are great-circle (haversine) distances between the sites' positions, not road distances: there is no
road network in the system, and inside one town the straight-line order is the order a person would drive in
most cases. The route is an open path from a fixed start (the DPW yard, or where the inspector is) through every
site once, not a round trip: the day ends where the last site is.

References: G. A. Croes, "A method for solving traveling-salesman problems", Operations Research 6 (1958) 791–812
(2-opt); I. Or, "Traveling salesman-type combinatorial problems …", PhD thesis, Northwestern University, 1976
(Or-opt); D. J. Rosenkrantz, R. E. Stearns, P. M. Lewis, "An analysis of several heuristics for the traveling
salesman problem", SIAM J. Comput. 6 (1977) 563–581 (nearest neighbour).
"""
from __future__ import annotations

from math import asin, cos, radians, sin, sqrt

EARTH_RADIUS_M = 6_371_008.8  # mean Earth radius (IUGG) [m]

Point = tuple[float, float]  # (latitude, longitude) [degrees, WGS84]


def haversine_m(a: Point, b: Point) -> float:
    """Great-circle distance between two (lat, lon) points [m]."""
    lat1, lon1, lat2, lon2 = map(radians, (a[0], a[1], b[0], b[1]))
    h = sin((lat2 - lat1) / 2) ** 2 + cos(lat1) * cos(lat2) * sin((lon2 - lon1) / 2) ** 2
    return 2 * EARTH_RADIUS_M * asin(min(1.0, sqrt(h)))


def path_length_m(start: Point | None, points: list[Point], order: list[int]) -> float:
    """Length of the open path start → points[order[0]] → … [m]."""
    seq = ([start] if start is not None else []) + [points[i] for i in order]
    return sum(haversine_m(seq[i], seq[i + 1]) for i in range(len(seq) - 1))


def route_order(points: list[Point], start: Point | None = None) -> list[int]:
    """The indexes of ``points`` in driving order from ``start`` (or from ``points[0]`` when no start is given).

    Nearest neighbour first, then 2-opt moves (reverse a stretch of the path when that shortens it) and Or-opt
    moves (move a stretch of 1–3 sites, either way round, elsewhere) until neither helps. The start stays first.
    Ties keep the input order, so the result is deterministic. Fast enough for a page: 40 sites in well under a
    second.
    """
    for p in points + ([start] if start is not None else []):
        if not (-90 <= p[0] <= 90 and -180 <= p[1] <= 180):
            raise ValueError(f"not a latitude/longitude: {p!r}")
    n = len(points)
    if n <= 1:
        return list(range(n))
    nodes = list(points) + ([start] if start is not None else [])
    dist = [[haversine_m(a, b) for b in nodes] for a in nodes]
    todo = list(range(n))
    if start is None:
        path = [todo.pop(0)]
    else:
        path = [n]  # the start's node index
    while todo:
        here = path[-1]
        nxt = min(todo, key=lambda i: (dist[here][i], i))
        path.append(nxt)
        todo.remove(nxt)
    while _two_opt(path, dist) | _or_opt(path, dist):
        pass
    return [i for i in path if i != n]


def _two_opt(path: list[int], dist) -> bool:
    """Reverse stretches path[i..k] while that shortens the open path (path[0] stays). True if anything moved."""
    moved, improved = False, True
    m = len(path)
    while improved:
        improved = False
        for i in range(1, m - 1):
            for k in range(i + 1, m):
                a, b, c = path[i - 1], path[i], path[k]
                nxt = path[k + 1] if k + 1 < m else None
                before = dist[a][b] + (dist[c][nxt] if nxt is not None else 0.0)
                after = dist[a][c] + (dist[b][nxt] if nxt is not None else 0.0)
                if after < before - 1e-6:
                    path[i:k + 1] = path[i:k + 1][::-1]
                    improved = moved = True
    return moved


def _or_opt(path: list[int], dist) -> bool:
    """Move one stretch of 1–3 sites (either way round) to where it shortens the path most. True if moved."""
    m = len(path)
    best = (-1e-6, None)
    for seg in (1, 2, 3):
        for i in range(1, m - seg + 1):
            first, last = path[i], path[i + seg - 1]
            prev, nxt = path[i - 1], (path[i + seg] if i + seg < m else None)
            gain = dist[prev][first] + (dist[last][nxt] - dist[prev][nxt] if nxt is not None else 0.0)
            rest = path[:i] + path[i + seg:]
            for j in range(1, len(rest) + 1):  # insert between rest[j-1] and rest[j]
                if j == i:
                    continue  # where it came from
                a, b = rest[j - 1], (rest[j] if j < len(rest) else None)
                for head, tail, rev in ((first, last, False), (last, first, True)):
                    cost = dist[a][head] + (dist[tail][b] - dist[a][b] if b is not None else 0.0)
                    delta = cost - gain
                    if delta < best[0]:
                        best = (delta, (i, seg, j, rev))
    if best[1] is None:
        return False
    i, seg, j, rev = best[1]
    stretch = path[i:i + seg]
    rest = path[:i] + path[i + seg:]
    path[:] = rest[:j] + (stretch[::-1] if rev else stretch) + rest[j:]
    return True
