from django import template

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
