"""The default town configuration: Longmeadow's fee structure with demo values.

DESIGN.md "Interpretations": until the Select Board's current resolution is entered, the demo
values are ERU 3,400 ft² and $4.43 per ERU per month ($53.16 a year), as reported for Longmeadow in
the Western Kentucky University Stormwater Utility Survey 2021; small-residential flat rate = one
ERU's charge; demand charge $25. Interest 12 % per annum (Ch. 295 Art. IV billing ¶C). Block table:
Ch. 295 Art. IV ¶E Table 1. Billed once a year (¶B allows 1–4 installments).
They are labelled "demo values" wherever shown.
"""
from __future__ import annotations

from dataclasses import dataclass, fields, replace
from decimal import Decimal

from .fees import DEFAULT_BLOCKS, FeeTerms

DEMO_LABEL = "Longmeadow demo values (WKU Stormwater Utility Survey 2021)"
DEMO_ERU_SQFT = Decimal("3400")
DEMO_RATE_PER_ERU = Decimal("53.16")  # $4.43 a month × 12
DEMO_SMALL_RESIDENTIAL_RATE = Decimal("53.16")
DEMO_INSTALLMENTS = 1
DEMO_INTEREST_RATE_PERCENT = Decimal("12")
DEMO_DEMAND_CHARGE = Decimal("25.00")


def demo_terms() -> FeeTerms:
    return FeeTerms(eru_sqft=DEMO_ERU_SQFT, rate_per_eru=DEMO_RATE_PER_ERU,
                    small_residential_rate=DEMO_SMALL_RESIDENTIAL_RATE, blocks=DEFAULT_BLOCKS,
                    installments=DEMO_INSTALLMENTS, label=DEMO_LABEL + " (demo values)")


@dataclass(frozen=True)
class TownConfig:
    """The town's operating configuration: policy the ordinances leave to the town, with Longmeadow's
    defaults. Overridden per installation in the data folder's ``town.toml`` (a ``[town]`` table whose keys
    are these field names; ``stormwater.townconfig.town_config`` reads it). Rates, the ERU and the block
    table are not here: they are Select Board resolutions with effective dates (``utility.RateResolution``).

    Add a field with its default, a comment naming the provision or the reason, and show the value
    wherever it decides an outcome.
    """

    name: str = "Town of Longmeadow"
    # GIS uploads (issue 14, a zip bomb filled the disk): a zipped Shapefile or File Geodatabase is unpacked only if
    # it expands to at most this many MB, at most this many times its own size, and holds at most this many files.
    # A town's parcel and impervious layers are a few to a few hundred MB, compressing 2–20 times.
    gis_archive_max_mb: int = 1024
    gis_archive_max_ratio: int = 100
    gis_archive_max_members: int = 2000
    # Two-factor sign-in (issue 14; not an ordinance rule but the town's security policy): the roles that must
    # sign in with an authenticator app (TOTP) as well as a password. On by default for the two roles that set
    # and move money: the DPW Director (rate resolutions, decisions, user accounts) and the Collector (payments,
    # liens). Other staff may turn it on for themselves. Names are accounts.roles.Role values, checked on read
    # (stormwater.townconfig). The demo town writes an empty list into its own town.toml (demo_load).
    totp_required_roles: tuple[str, ...] = ("director", "collector")
    # Staff sessions end after this many minutes without a request (issue 14); owners and consultants keep
    # the ordinary 14-day session (they reach only their own records).
    staff_idle_minutes: int = 30
    # Ch. 380 § 380-11 A(2)(a): design storms from "NOAA Atlas 14 data for Longmeadow". The engineering
    # review compares the site of an uploaded NOAA PFDS file with the project's location (or, when the
    # plan gives none, this point: Longmeadow's town centre, approximately) and flags a file farther
    # away than the limit. Atlas 14 varies little within a town of 9.5 square miles.
    rainfall_reference_latitude: float = 42.05
    rainfall_reference_longitude: float = -72.583
    rainfall_max_distance_miles: float = 5.0
    # Bill runs (issue 16): a proof is approved by a Collector or Director (Perm.BILLING_APPROVE). With this
    # true, the approver must be a different person from the one who prepared the proof, and a person may not
    # prepare and issue in one step (POST /api/bill-runs/ without "proof"). The ordinance is silent; the
    # default lets the Collector or Director who prepares a run approve it, as a small office needs (the
    # role restriction already keeps staff from issuing alone). docs/billing-runs.md "Who approves".
    bill_run_second_approver: bool = False
    # The inspector's day (issue 18; not an ordinance rule): the day's route starts at the DPW yard unless the
    # inspector starts it from where they are. Blank name = no yard configured: the route starts at the site of the
    # most urgent inspection. Position in WGS84 degrees.
    field_start_name: str = ""
    field_start_latitude: Decimal = Decimal("0")
    field_start_longitude: Decimal = Decimal("0")
    # The basemap under every map (issue 16; not an ordinance rule). "" = the installation's default
    # (settings.GIS_TILE_URL: MassGIS's USGS 2019 color orthophotos in production, none in development and tests);
    # a tile URL with {z}/{x}/{y} (e.g. the town's own GIS server) = that basemap; "none" = draw without one.
    # Its origin is added to the pages' Content-Security-Policy img-src (web/security.py). The attribution is the
    # line the tile provider asks maps to show ("" = the installation's).
    map_tile_url: str = ""
    map_tile_attribution: str = ""

    def __post_init__(self):
        if not 1 <= self.staff_idle_minutes <= 24 * 60:
            raise ValueError("town configuration: staff_idle_minutes must be between 1 and 1440")
        if not (-90 <= self.field_start_latitude <= 90 and -180 <= self.field_start_longitude <= 180):
            raise ValueError("town configuration: field_start_latitude/longitude must be WGS84 degrees")
        tiles = self.map_tile_url.strip()
        if tiles and tiles != "none" and not (tiles.startswith("https://") and "{z}" in tiles):
            raise ValueError('town configuration: map_tile_url must be "", "none" or an https:// URL with {z}/{x}/{y}')

    @property
    def field_start(self) -> tuple[float, float] | None:
        """The yard's (lat, lon), or None when none is configured."""
        if not self.field_start_name.strip():
            return None
        return float(self.field_start_latitude), float(self.field_start_longitude)


def town_config_from(overrides: dict) -> TownConfig:
    """A TownConfig with ``overrides`` applied; an unknown key or a value of the wrong type is refused by name."""
    known = {f.name: f for f in fields(TownConfig)}
    unknown = sorted(set(overrides) - set(known))
    if unknown:
        raise ValueError(f"town configuration: unknown setting(s) {', '.join(unknown)}")
    values = {}
    for key, value in overrides.items():
        default = getattr(TownConfig, key)
        if isinstance(default, Decimal):
            try:
                value = Decimal(str(value))
            except ArithmeticError:
                raise ValueError(f"town configuration: {key} must be a number") from None
            if not value.is_finite():
                raise ValueError(f"town configuration: {key} must be a finite number")
        elif isinstance(default, bool):
            if not isinstance(value, bool):
                raise ValueError(f"town configuration: {key} must be true or false")
        elif isinstance(default, int):
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"town configuration: {key} must be a whole number")
        elif isinstance(default, tuple):  # a list of names in town.toml
            if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
                raise ValueError(f"town configuration: {key} must be a list of names, e.g. [\"a\", \"b\"]")
            value = tuple(value)
        elif isinstance(default, float) and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        elif not isinstance(value, type(default)):
            raise ValueError(f"town configuration: {key} must be a {type(default).__name__}")
        values[key] = value
    return replace(TownConfig(), **values)
