from django import template
from django.conf import settings

from stormwater.gis.selectors import parcel_has_geometry as _has

register = template.Library()


@register.simple_tag
def parcel_has_geometry(parcel) -> bool:
    """True when a survey stored a polygon for the parcel (the map include renders nothing otherwise)."""
    return parcel is not None and _has(parcel)


@register.simple_tag
def gis_tile_url() -> str:
    return getattr(settings, "GIS_TILE_URL", "")


@register.simple_tag
def gis_tile_attribution() -> str:
    return getattr(settings, "GIS_TILE_ATTRIBUTION", "")
