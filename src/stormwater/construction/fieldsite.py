"""What the inspector adds to a site from the field (issue 30): a BMP found on the site, into the permit's
stewardship file (the inventory the post-construction inspections and the O&M work from, Ch. 380 § 380-14), at the
phone's position. Controls go through ``reporting.site_control_add`` (CGP 2022 Part 2), as from the file page."""
from __future__ import annotations

from .models import ConstructionProject
from .base import ConstructionError

ERR_NO_SITE = ("This permit has no stewardship file, so a BMP has nowhere to go: describe the BMP under Findings "
               "and tell the office.")
ERR_BMP_NAME = "Name the BMP (e.g. “Rain garden 1”)."
ERR_BMP_TYPE = "Say what kind of BMP it is (e.g. “Bioretention”)."
ERR_POSITION = "{field}: {value!r} is not a position in degrees."


def _degrees(v, field: str, lo: float, hi: float) -> float | None:
    if v in (None, ""):
        return None
    try:
        x = float(v)
    except ValueError:
        raise ConstructionError(ERR_POSITION.format(field=field, value=v), field=field) from None
    if not lo <= x <= hi:
        raise ConstructionError(ERR_POSITION.format(field=field, value=v), field=field)
    return x


def site_bmp_add(*, project: ConstructionProject, name: str, source_type: str, acting_user, latitude=None,
                 longitude=None):
    """A BMP of the approved plan found on the site, added to the stewardship file of the project's permit (its
    EPA Region 1 category mapped from the type as for an imported inventory); a row of the engineer's and random
    inspections' reports from then on."""
    from stormwater.stewardship.models import Site
    from stormwater.stewardship.services import bmp_add

    site = Site.objects.filter(permit=project.permit).order_by("id").first()
    if site is None:
        raise ConstructionError(ERR_NO_SITE, field="what")
    if not name.strip():
        raise ConstructionError(ERR_BMP_NAME, field="name")
    if not source_type.strip():
        raise ConstructionError(ERR_BMP_TYPE, field="source_type")
    lat = _degrees(latitude, "latitude", -90, 90)
    lon = _degrees(longitude, "longitude", -180, 180)
    return bmp_add(site=site, name=name.strip()[:200], source_type=source_type.strip()[:100], latitude=lat,
                   longitude=lon, acting_user=acting_user)
