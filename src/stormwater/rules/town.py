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
    # Imports (issue 20): an assessor row beyond these is refused as implausible (a typo or a units mistake), never
    # stored. Longmeadow's largest parcels (the country club, conservation land) are a few hundred acres and its
    # largest apartment buildings a few hundred units; a town with bigger ones raises the limit in town.toml.
    import_max_lot_acres: int = 5000
    # Every GIS geometry imported (parcels, impervious, right of way, BMPs) must fall inside this WGS84 box
    # (degrees), widened by the margin in miles (issue 26: State Plane feet labelled as degrees, metres labelled as
    # feet and the wrong State Plane zone all landed far away and were imported). The default is the Commonwealth
    # of Massachusetts (MassGIS state boundary, rounded out); a town narrows it to itself in town.toml.
    town_extent_west: float = -73.51
    town_extent_south: float = 41.23
    town_extent_east: float = -69.92
    town_extent_north: float = 42.89
    town_extent_margin_miles: float = 5.0
    import_max_dwelling_units: int = 2000
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
    # The double-submission guard (issue 16; not an ordinance rule): each guarded form's one-time token is kept this
    # many days, then purged by the daily sweep (web/services.py::submit_tokens_purge). A token only has to outlive
    # a double click, the Back button or a form sent again from a tab left open; a week covers a form left open over
    # a weekend. An older token sent again just runs the form's act once more (the services still refuse a second
    # decision, payment or issue by their own state checks).
    submit_token_keep_days: int = 7

    # The Collector's office (issue 17). Municipal lien certificates (MGL c.60 §23: the Collector issues, within ten
    # days of a written request, a certificate of every unpaid charge that is or may become a lien; the fee is set
    # by the town as the statute allows). Demo value; the Collector sets it.
    lien_certificate_fee: Decimal = Decimal("25.00")
    # A check returned unpaid (MGL c.60 §57A allows a fee for a dishonoured check, added to what is owed): 0 = none.
    # When set, reversing a returned check adds this charge to the account (receivables: returned-check charge).
    returned_check_charge: Decimal = Decimal("0.00")
    # General ledger export (issue 17): the town's chart of accounts, UMAS style (fund-account). These are
    # placeholders for the Town Accountant's own codes; every line of the export names the code it used.
    gl_fund: str = "6100"                       # the Stormwater Enterprise Fund / §53F½ account
    gl_cash: str = "104000"                     # cash (Treasurer's deposits)
    gl_receivable: str = "123400"               # stormwater user charges receivable
    gl_credit_balances: str = "259000"          # overpayments held as credit balances (liability)
    gl_tax_liens: str = "125000"                # utility liens added to the property tax
    gl_fee_revenue: str = "424000"              # stormwater user charges (commitments of bills)
    gl_interest_revenue: str = "417000"         # interest on overdue charges (Ch. 295 Art. IV billing ¶C)
    gl_demand_revenue: str = "418000"           # demand charges (Chapter 189) and returned-check charges
    gl_abatements: str = "424100"               # abatements (Ch. 295 Art. IV billing ¶E), a reduction of revenue
    # Issue 25: what the office takes in that is not an account's ledger. A cashier's batch counted over or short
    # (the difference approved by a second person) moves cash against this line, so GL cash equals the deposit;
    # the municipal lien certificate fee (MGL c.60 §23) receipted at the window is revenue of its own; lockbox rows
    # held in suspense are cash owed to someone until matched, returned or refunded (a liability).
    gl_over_short: str = "484100"               # cash over and short (miscellaneous revenue / expense)
    gl_lien_certificate_fees: str = "432000"    # municipal lien certificate fees (MGL c.60 §23)
    gl_lockbox_suspense: str = "259100"         # lockbox receipts in suspense (unidentified), a liability
    # Go-live (issue 32): the balances converted at the cut-over are already on the town's books from the old
    # system, so they move against a clearing account the Town Accountant reconciles with the old system's closing
    # entries, never against fee revenue (which would count last year's bills as this year's revenue).
    gl_conversion: str = "329900"               # go-live conversion clearing (opening balances from the old system)
    # Issue 30: a permit application fee (Ch. 380 § 380-10 G(1)) paid online, receipted with the processor's file
    gl_permit_fees: str = "432100"              # stormwater permit application, inspection and review fees

    # Payments (issue 17: one lockbox row of $99,999,999,999,999.00 broke the office): a payment above this
    # amount is refused, by row and column in a file, as a keying or file error. The ordinance sets no limit;
    # Longmeadow's largest stormwater bill is a few thousand dollars, so $100,000 leaves room for a
    # landlord paying many accounts in one check while catching a misplaced decimal point or a garbled file.
    payment_plausible_max: Decimal = Decimal("100000.00")

    # Bill runs (issue 17: FY2031 was issued in 2026 into closed books, FY2029 two and a half years early): a
    # run's issue date must fall from this many months before its period's first day through this many months
    # after its period's last day. Ch. 295 Art. IV ¶B has the fee billed for the period (at least annually,
    # at most quarterly); the ordinance sets no window, so the town's: bills go out within the year before their
    # period (a fiscal year's bills are mailed in its first months, or ahead of it), or late within a quarter after.
    bill_issue_months_before_period: int = 12
    bill_issue_months_after_period: int = 3

    # The bill a resident can act on (issue 17). Where to send a check (the Collector's office at Town Hall) and
    # how to reach the Division, printed on every bill; blank phone = not printed. public_url is the address
    # residents reach this system at (the bill's QR code and links in mailed PDFs); blank = pages rendered for a
    # web request use that request's address, and bills printed in the background carry no QR code.
    remit_to: str = "Town of Longmeadow, Town Collector\n20 Williams Street\nLongmeadow, MA 01106"
    division_phone: str = ""
    public_url: str = ""
    # Paying online (issue 17): the payment processor's hosted payment page, as a URL template with {account},
    # {amount} (dollars, two decimals) and {bill}; the "Pay" button hands the resident off to it and no card data
    # ever touches this system. Blank = no processor: no Pay button. Must be https.
    payment_url_template: str = ""
    # The Pay button offers the amount due now (past-due and issued installments, interest to date). True also offers
    # the whole balance, installments not yet issued included, as a second choice: some towns accept prepayment
    # online, others want installments paid as they fall due (Ch. 295 Art. IV ¶B). Default: the amount due only.
    pay_whole_balance_online: bool = False
    # The processor's daily payment file (receivables/processor.py): which of its columns hold the account, the
    # amount, the day the payment was made and the processor's confirmation number ("field=Header" each), and
    # how its dates are written (a strftime pattern). Defaults: a common processor export.
    processor_columns: tuple[str, ...] = ("account=Account Number", "amount=Amount", "received_on=Payment Date",
                                          "reference=Confirmation Number")
    processor_date_format: str = "%m/%d/%Y"
    # The built-in TEST payment page (issue 25, receivables/testprocessor.py), used where no payment_url_template is
    # set: "development" (as shipped) = on everywhere except a production installation (STORMWATER_ENV=production),
    # so the demo town can be paid online end to end; "on" = on even in production (a training server: the town
    # says so explicitly, docs/deploy.md); "off" = never. Every screen of it says TEST; no money moves.
    test_payment_page: str = "development"

    def __post_init__(self):
        if not 1 <= self.submit_token_keep_days <= 366:
            raise ValueError("town configuration: submit_token_keep_days must be between 1 and 366")
        if not 1 <= self.staff_idle_minutes <= 24 * 60:
            raise ValueError("town configuration: staff_idle_minutes must be between 1 and 1440")
        if not (0 <= self.bill_issue_months_before_period <= 120 and 0 <= self.bill_issue_months_after_period <= 120):
            raise ValueError("town configuration: bill_issue_months_before/after_period must be 0 to 120 months")
        if self.payment_url_template and not self.payment_url_template.startswith("https://"):
            raise ValueError("town configuration: payment_url_template must start with https://")
        if self.payment_url_template:
            try:
                self.payment_url_template.format(account="A", amount="1.00", bill="B")
            except (KeyError, IndexError, ValueError):
                raise ValueError("town configuration: payment_url_template may use only {account}, {amount} and "
                                 "{bill}") from None
        if self.test_payment_page not in ("development", "on", "off"):
            raise ValueError('town configuration: test_payment_page must be "development", "on" or "off"')
        fields_mapped = {p.partition("=")[0].strip() for p in self.processor_columns if "=" in p}
        if fields_mapped != {"account", "amount", "received_on", "reference"}:
            raise ValueError("town configuration: processor_columns must map account, amount, received_on and "
                             "reference, e.g. [\"account=Account Number\", …]")
        if self.public_url and not self.public_url.startswith(("https://", "http://")):
            raise ValueError("town configuration: public_url must start with https:// (or http://)")
        if self.payment_plausible_max <= 0:
            raise ValueError("town configuration: payment_plausible_max must be greater than zero")
        if not (-90 <= self.field_start_latitude <= 90 and -180 <= self.field_start_longitude <= 180):
            raise ValueError("town configuration: field_start_latitude/longitude must be WGS84 degrees")
        if not (-180 <= self.town_extent_west < self.town_extent_east <= 180
                and -90 <= self.town_extent_south < self.town_extent_north <= 90 and self.town_extent_margin_miles >= 0):
            raise ValueError("town configuration: town_extent_west/south/east/north must be WGS84 degrees, west < east, "
                             "south < north, and town_extent_margin_miles not negative")
        tiles = self.map_tile_url.strip()
        if tiles and tiles != "none" and not (tiles.startswith("https://") and "{z}" in tiles):
            raise ValueError('town configuration: map_tile_url must be "", "none" or an https:// URL with {z}/{x}/{y}')
        if not (Decimal("0") <= self.lien_certificate_fee < Decimal("10000")
                and Decimal("0") <= self.returned_check_charge < Decimal("10000")):
            raise ValueError("town configuration: lien_certificate_fee and returned_check_charge must be "
                             "between 0 and 9,999.99")

    def payment_url(self, *, account: str, amount, bill: str = "") -> str | None:
        """The processor's hosted page for paying ``amount`` on ``account`` (None without a processor)."""
        if not self.payment_url_template:
            return None
        from urllib.parse import quote

        return self.payment_url_template.format(account=quote(account, safe=""),
                                                amount="" if amount is None else f"{amount:.2f}",
                                                bill=quote(bill, safe=""))

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
