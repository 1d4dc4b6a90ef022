"""An imported SWMM model's conduits as the plan's reaches (issue 31): each chain of conduits in series.

A plan's reach joins a post-development subcatchment or a BMP to the node its ``to`` names (``reaches.py``), so a
chain of conduits between a subcatchment's outlet junction (or the node a storage unit's outlets discharge to) and
the next storage unit or outfall cannot be one reach per conduit; it becomes **one equivalent reach**:

- length: the sum of the conduits' lengths;
- slope: the length-weighted mean of the conduits' slopes, Σ Lᵢ Sᵢ / Σ Lᵢ (the total fall over the total length
  where the inverts are continuous);
- roughness: the length-weighted mean Manning's n, Σ Lᵢ nᵢ / Σ Lᵢ;
- section: that of the governing conduit, the one of least full-flow capacity by Manning's equation
  (Q = 1.486/n A R^⅔ S^½, TR-55 ch. 3 Eq. 3-4; a pipe at 0.938 D) at its own slope and n.

``RULE`` is this review's own simplification (stated on every such note; no standard prescribes it): the chain's
length and mean slope and n keep the kinematic travel time close to the sum of the conduits' own, and the
governing section keeps the chain's capacity check on the pipe that limits it. The routing itself is the plan's
reach routing (Muskingum–Cunge with variable parameters, ``reaches.SRC_REACH``).

Where the chain branches (a node with more than one outgoing link), a link on it is not a conduit (an orifice, weir,
pump or outlet between junctions), a conduit's shape is not CIRCULAR or TRAPEZOIDAL, or its slope cannot be read
(missing node elevations, flat or adverse), the flow passes the chain without delay, as before, and the note says so.
Pure Python; no Django.
"""
from __future__ import annotations

from stormwater.engineering.reach import ReachSection

from .reaches import SRC_REACH

RULE = ("equivalent reach of a chain of conduits in series: length the sum, slope and Manning's n length-weighted "
        "(Σ L·S / Σ L, Σ L·n / Σ L), section of the conduit of least full-flow capacity by Manning's equation "
        "(TR-55 ch. 3 Eq. 3-4) -- the review's own simplification, not a published method")
LINK_SECTIONS = ("CONDUITS", "ORIFICES", "WEIRS", "OUTLETS", "PUMPS")
SHAPES = {"CIRCULAR": "circular", "TRAPEZOIDAL": "trapezoidal"}


def _geom(x: list[str], i: int) -> float:
    try:
        return float(x[i])
    except (IndexError, ValueError):
        return 0.0


def _chain(start: str, links: dict, ends: set[str], conduits: dict) -> tuple[list[dict], str]:
    """The conduits from ``start`` to the next storage unit or outfall, or ([], the reason there is no reach)."""
    out, node, seen = [], start, set()
    while node not in ends:
        if node in seen:
            return [], f"a loop through node {node}"
        seen.add(node)
        nxt = links.get(node, [])
        if len(nxt) != 1:
            return [], f"node {node} has {len(nxt)} outgoing links (the chain branches)"
        kind, to, t = nxt[0]
        if kind != "CONDUITS":
            return [], f"{kind.lower()[:-1]} {t[0]} (not a conduit) lies on the chain"
        c = conduits[t[0]]
        if c["shape"] not in SHAPES:
            return [], (f"conduit {c['name']} is {c['shape'] or 'of unknown shape'} (only CIRCULAR and TRAPEZOIDAL "
                        "are routed)")
        if not c["slope"] or c["slope"] <= 0 or not c["geom1_ft"] or c["length_ft"] <= 0:
            return [], f"conduit {c['name']}: its slope ({c['slope']}) or size cannot be read as positive"
        out.append(c)
        node = to
    return out, ""


def _section(c: dict) -> ReachSection:
    return ReachSection(SHAPES[c["shape"]], c["geom1_ft"], c["length_ft"], c["slope"], c["roughness"],
                        c.get("geom2_ft", 0.0), c.get("geom3", 0.0), c.get("geom4", 0.0))


def governing(chain: list[dict]) -> dict:
    """The conduit of least full-flow capacity (Manning, at its own slope and n): its section is the reach's."""
    return min(chain, key=lambda c: _section(c).capacity_cfs)


def equivalent_reach(name: str, frm: str, to: str, chain: list[dict]) -> dict:
    """One reach (plan fields) for a chain of conduits in series, by ``RULE``."""
    length = sum(c["length_ft"] for c in chain)
    slope = sum(c["length_ft"] * c["slope"] for c in chain) / length
    n = sum(c["length_ft"] * c["roughness"] for c in chain) / length
    gov = governing(chain)
    r = {"name": name, "from": frm, "to": to, "length_ft": round(length, 2), "slope": round(slope, 5),
         "roughness": round(n, 4), "shape": SHAPES[gov["shape"]], "geom1_ft": gov["geom1_ft"],
         "description": f"SWMM conduits {', '.join(c['name'] for c in chain)} as one equivalent reach "
                        f"(section of {gov['name']})"}
    if r["shape"] == "trapezoidal":
        r.update(geom2_ft=gov["geom2_ft"], geom3=gov["geom3"], geom4=gov["geom4"])
    return r


def reaches_of(sec: dict, subs: list[dict], bmps: list[dict], conduits: list[dict], notes: list[str]) -> list[dict]:
    """The reaches of the post-development model's conduit chains (subcatchments and BMPs in the plan's order);
    a note for each reach and for each chain passed through."""
    links: dict[str, list[tuple[str, str, list[str]]]] = {}   # from node -> [(section, to node, tokens)]
    for kind in LINK_SECTIONS:
        for t in sec.get(kind, []):
            if len(t) >= 3:
                links.setdefault(t[1], []).append((kind, t[2], t))
    xs = {t[0]: t for t in sec.get("XSECTIONS", [])}
    by_name = {}
    for c in conduits:
        x = xs.get(c["name"], [])
        by_name[c["name"]] = {**c, "geom2_ft": _geom(x, 3), "geom3": _geom(x, 4), "geom4": _geom(x, 5)}
    storages = {t[0] for t in sec.get("STORAGE", [])}
    ends = storages | {t[0] for t in sec.get("OUTFALLS", [])}
    outlet = {t[0]: t[2] for t in sec.get("SUBCATCHMENTS", []) if len(t) > 2}
    starts: list[tuple[str, str, str]] = []   # (item, its to, the chain's first node)
    for s in subs:
        starts.append((s["id"], s["to"], outlet.get(s["id"], s["to"])))
    for b in bmps:
        firsts = {to for _, to, _ in links.get(b["id"], [])}
        if len(firsts) > 1:
            notes.append(f"post: storage {b['id']}: its links go to {len(firsts)} nodes ({', '.join(sorted(firsts))}); "
                         f"its outflow passes to {b['to']} without delay (not routed as a reach)")
        elif firsts:
            starts.append((b["id"], b["to"], firsts.pop()))
    out, used = [], set()
    for item, to, first in starts:
        if first in ends:
            continue
        chain, why = _chain(first, links, ends, by_name)
        if not chain:
            notes.append(f"post: {item}'s flow from {first} to {to}: {why}; it passes the conduits without delay "
                         "(not routed as a reach)")
            continue
        name = "+".join(c["name"] for c in chain)
        if name in used:
            name = f"{name} ({item})"
        used.add(name)
        r = equivalent_reach(name, item, to, chain)
        gov = governing(chain)["name"]
        out.append(r)
        notes.append(f"post: {item}'s flow from {first} to {to} is routed through conduit"
                     f"{'s' if len(chain) > 1 else ''} {', '.join(c['name'] for c in chain)} as reach {name}: "
                     f"length {r['length_ft']:g} ft, slope {r['slope']:g}, n {r['roughness']:g}, {r['shape']} "
                     f"section of {gov} (geom1 {r['geom1_ft']:g} ft) "
                     f"[{RULE}; routing: {SRC_REACH}]")
    return out
