"""What other apps hold on a parcel, for its page /parcels/<id>/ (issue 16 "Record pages").

The parcel app sits below the apps that refer to parcels (credits and abatements, permits, construction files,
O&M sites), so it does not import them (docs/architecture.md "Layers"). The page that gathers them
(``stormwater.pages.parcel_record``) registers here at start-up, as Django's admin registers ModelAdmins; the
parcel's page asks ``parcel_record`` for the context they add."""
from __future__ import annotations

from collections.abc import Callable
from datetime import date

Section = Callable[..., dict]  # (*, parcel, user, today) → context for parcels/detail.html

_sections: list[Section] = []


def register(section: Section) -> Section:
    """Add ``section`` to every parcel's page (once, whatever the number of calls); usable as a decorator."""
    if section not in _sections:
        _sections.append(section)
    return section


def parcel_record(*, parcel, user, today: date) -> dict:
    """The context every registered section adds to ``parcel``'s page, as ``user`` may see it."""
    out: dict = {}
    for section in _sections:
        out.update(section(parcel=parcel, user=user, today=today))
    return out
