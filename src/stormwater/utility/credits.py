"""The credits in force on parcels' fees (Ch. 295 Art. IV credits ¶B–¶E), as the fee path reads them.

Credits are granted in the relief app (credit policy, applications, decisions), which sits above the utility (its
cases refer to bills and payments); the fee only needs each parcel's combined percent. So the utility owns this
small registry and the relief app registers its reader at start-up (``relief.apps.ReliefConfig.ready``), as
Django's admin registers ModelAdmins (docs/architecture.md "Layers"). Without that app, no credits."""
from __future__ import annotations

from collections.abc import Callable
from datetime import date
from decimal import Decimal

Reader = Callable[..., dict[int, tuple[Decimal, str]]]  # (*, on, parcel_pks=None) → parcel pk → (percent, note)

_reader: Reader | None = None


def register(reader: Reader) -> None:
    global _reader
    _reader = reader


def credits_in_force(*, on: date, parcel_pks=None) -> dict[int, tuple[Decimal, str]]:
    """Parcel pk → (combined credit percent, description) of the credits granted and in force on ``on``."""
    if _reader is None:
        return {}
    return _reader(on=on, parcel_pks=parcel_pks)
