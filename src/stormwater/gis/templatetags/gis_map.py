from django import template
from django.utils.html import format_html

from stormwater.gis.selectors import parcel_has_geometry as _has
from stormwater.townconfig import map_tiles

register = template.Library()


@register.simple_tag
def parcel_has_geometry(parcel) -> bool:
    """True when a survey stored a polygon for the parcel (the map include renders nothing otherwise)."""
    return parcel is not None and _has(parcel)


@register.simple_tag
def gis_tile_url() -> str:
    """The basemap's tile URL ("" = none): town.toml map_tile_url, else settings.GIS_TILE_URL (issue 16)."""
    return map_tiles()[0]


@register.simple_tag
def gis_tile_attribution() -> str:
    return map_tiles()[1]


def _deg(v: float) -> str:
    return f"{float(v):.6f}".rstrip("0").rstrip(".")  # ≈ 0.1 m; "42.0505", not "42.050500"


@register.simple_tag
def directions(position, key=None, place: str = ""):
    """The hand-off to the phone's maps app for a site (issue 30): a ``geo:`` URI (RFC 5870; Android opens the maps
    app of the person's choice) carrying the site's (lat, lon), and Apple Maps' address in ``data-apple`` (an iPhone
    has no ``geo:`` handler; field.js uses it there). ``position`` is (lat, lon), or a dict of them with ``key``.
    Nothing when the site has no position."""
    if key is not None:
        position = (position or {}).get(key)
    if not position:
        return ""
    at = f"{_deg(position[0])},{_deg(position[1])}"
    return format_html('<a class="button secondary directions" href="geo:{0}?q={0}" '
                       'data-apple="https://maps.apple.com/?daddr={0}">Directions<span class="visually-hidden">'
                       ' to {1}</span></a>', at, place)
