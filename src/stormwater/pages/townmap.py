"""The town map (issue 16): parcels, permits, construction files, O&M sites and BMPs on one map, to find them.

``town_features`` is the map's data (GeoJSON, WGS 84): each parcel's latest polygon (simplified to half a foot),
and a point for each permit, construction file and O&M site at the centroid of its first parcel that has a
polygon, and each BMP at its own coordinates. Every list is read through the app's access function, so the map
shows a person only what they may open. ``town_search`` is the same search without a map (the page's answer to
its search box when JavaScript is off, and the list under the map when it is on)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import shapely
from django.urls import reverse

from stormwater.gis import overlay
from stormwater.gis.models import ParcelShape
from stormwater.parcels.models import Parcel

SIMPLIFY_FT = 0.5   # polygon detail kept on the town map [ft] (EPSG:2249 is in US survey feet)
SEARCH_LIMIT = 25
MARKER_NUDGE = 0.00005  # [degrees of longitude, ≈ 4 m] a construction file and a site beside their permit's marker


@dataclass(frozen=True)
class Hit:
    kind: str       # "parcel", "permit", "construction", "site", "bmp"
    label: str
    detail: str
    url: str


def _latest_shapes(parcel_ids=None) -> dict[int, bytes]:
    """parcel pk → WKB of its polygon in the latest survey that has one."""
    qs = ParcelShape.objects.order_by("survey__surveyed_on", "survey_id")
    if parcel_ids is not None:
        qs = qs.filter(parcel_id__in=parcel_ids)
    out: dict[int, bytes] = {}
    for pk, wkb in qs.values_list("parcel_id", "geom_wkb").iterator(chunk_size=2000):
        out[pk] = bytes(wkb)  # a later survey's polygon replaces an earlier one
    return out


def _lonlat(geoms: list) -> list:
    if not geoms:
        return []
    return list(overlay.from_target_crs(np.array(geoms, dtype=object)))


def _point(lon: float, lat: float, props: dict) -> dict:
    return {"type": "Feature", "geometry": {"type": "Point", "coordinates": [round(lon, 7), round(lat, 7)]},
            "properties": props}


def _records(user):
    from stormwater.construction.selectors import projects_for_user
    from stormwater.permits.selectors import permits_for_user
    from stormwater.stewardship.selectors import sites_for_user

    permits = list(permits_for_user(user).select_related("case").prefetch_related("parcels"))
    projects = list(projects_for_user(user).select_related("case", "permit").prefetch_related("permit__parcels"))
    sites = list(sites_for_user(user).select_related("case", "permit").prefetch_related("parcels", "permit__parcels",
                                                                                       "bmps"))
    return permits, projects, sites


def town_features(*, user) -> dict:
    """The town map's GeoJSON FeatureCollection, with the counts of records that have no place on the map."""
    from stormwater.parcels.selectors import parcels_for_user

    visible = set(parcels_for_user(user=user).values_list("pk", flat=True))
    shapes = {pk: w for pk, w in _latest_shapes().items() if pk in visible}
    info = dict((pk, (pid, addr)) for pk, pid, addr in
                Parcel.objects.filter(pk__in=shapes).values_list("pk", "parcel_id", "address"))
    pks = list(shapes)
    polys = shapely.simplify(shapely.from_wkb([shapes[pk] for pk in pks]), SIMPLIFY_FT) if pks else []
    lonlat = _lonlat(list(polys))
    centroids = dict(zip(pks, _lonlat(list(shapely.centroid(polys))) if pks else []))
    feats = []
    for pk, g in zip(pks, lonlat):
        pid, addr = info[pk]
        feats.append({"type": "Feature", "geometry": shapely.geometry.mapping(g),
                      "properties": {"kind": "parcel", "label": pid, "detail": addr,
                                     "url": reverse("parcel_detail", args=[pid])}})

    def at(parcels) -> tuple[float, float] | None:
        for p in parcels:
            if p.pk in centroids:
                c = centroids[p.pk]
                return c.x, c.y
        return None

    permits, projects, sites = _records(user)
    unplaced = {"permit": 0, "construction": 0, "site": 0, "bmp": 0}
    for a in permits:
        xy = at(a.parcels.all())
        if xy is None:
            unplaced["permit"] += 1
            continue
        feats.append(_point(*xy, {"kind": "permit", "label": a.case.number, "detail": f"{a.site_address} · "
                                  f"{a.case.status_label}", "url": reverse("permit_detail", args=[a.case.number])}))
    for p in projects:
        xy = at(p.permit.parcels.all())
        if xy is None:
            unplaced["construction"] += 1
            continue
        xy = (xy[0] + MARKER_NUDGE, xy[1])  # beside the permit's marker at the same parcel, not under it
        feats.append(_point(*xy, {"kind": "construction", "label": p.case.number,
                                  "detail": f"{p.permit.site_address} · {p.case.status_label}",
                                  "url": reverse("construction_detail", args=[p.case.number])}))
    for s in sites:
        bmps = [b for b in s.bmps.all() if b.latitude is not None and b.longitude is not None]
        xy = at(list(s.parcels.all()) + (list(s.permit.parcels.all()) if s.permit else []))
        if xy is None and bmps:
            xy = (float(np.mean([float(b.longitude) for b in bmps])), float(np.mean([float(b.latitude) for b in bmps])))
        url = reverse("site_detail", args=[s.case.number])
        if xy is None:
            unplaced["site"] += 1
        else:
            xy = (xy[0] - MARKER_NUDGE, xy[1])
            feats.append(_point(*xy, {"kind": "site", "label": s.case.number, "detail": f"{s.name} · "
                                      f"{s.case.status_label}", "url": url}))
        for b in s.bmps.all():
            if b.latitude is None or b.longitude is None:
                unplaced["bmp"] += 1
                continue
            feats.append(_point(float(b.longitude), float(b.latitude),
                                {"kind": "bmp", "label": b.name, "detail": f"{b.source_type} · {s.case.number}",
                                 "url": reverse("bmp_detail", args=[s.case.number, b.pk])}))
    return {"type": "FeatureCollection", "features": feats, "unplaced": unplaced}


def town_search(*, user, q: str) -> list[Hit]:
    """Parcels (id, address, owner), permits and construction files (number, address), O&M sites (number, name,
    address) and BMPs (name) matching ``q``; at most SEARCH_LIMIT of each kind."""
    from stormwater.parcels.selectors import parcel_search

    q = (q or "").strip()
    if not q:
        return []
    permits, projects, sites = _records(user)
    low = q.lower()
    hits = [Hit("parcel", p.parcel_id, p.address, reverse("parcel_detail", args=[p.parcel_id]))
            for p in parcel_search(user=user, q=q)[:SEARCH_LIMIT]]
    hits += [Hit("permit", a.case.number, a.site_address, reverse("permit_detail", args=[a.case.number]))
             for a in permits if low in a.case.number.lower() or low in a.site_address.lower()][:SEARCH_LIMIT]
    hits += [Hit("construction", p.case.number, p.permit.site_address,
                 reverse("construction_detail", args=[p.case.number]))
             for p in projects if low in p.case.number.lower() or low in p.permit.site_address.lower()][:SEARCH_LIMIT]
    hits += [Hit("site", s.case.number, s.name, reverse("site_detail", args=[s.case.number]))
             for s in sites if low in s.case.number.lower() or low in s.name.lower()
             or low in (s.address or "").lower()][:SEARCH_LIMIT]
    hits += [Hit("bmp", b.name, f"{b.source_type} · {s.case.number}", reverse("bmp_detail", args=[s.case.number, b.pk]))
             for s in sites for b in s.bmps.all() if low in b.name.lower()][:SEARCH_LIMIT]
    return hits


KIND_LABELS = {"parcel": "Parcel", "permit": "Permit", "construction": "Construction file", "site": "O&M site",
               "bmp": "BMP"}
