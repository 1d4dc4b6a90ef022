"""The fee of a parcel as the parcel app and the GIS reports reach it (docs/architecture.md "Layers").

The fee path — the rate resolution in force, credits, who is billed through whom (Ch. 295 Art. IV ¶B–¶G), the
balance of a parcel's accounts — is the utility app's (``utility.selectors.assess`` is the one fee path). The
utility sits above parcels and GIS (it bills parcels), so they never import it: at start-up
``utility.apps.UtilityConfig.ready`` registers its functions here (``register``), as Django's admin registers
ModelAdmins, and the parcel page, the parcel API, the parcels list and the GIS fee-change reports call
``fee_provider()``. The plain values the fee is computed from (``ParcelFacts``) and the refusal of a parcel that
cannot be billed (``BillingProblem``) belong to this interface; ``utility.selectors`` re-exports them."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from stormwater.rules.money import ZERO


class BillingProblem(Exception):
    """A parcel that cannot be billed as it stands; the message says why, for staff."""


@dataclass(frozen=True)
class ParcelFacts:
    """The plain values the fee needs, so one parcel and a 100,000-parcel run share one code path."""

    has_owner: bool
    land_use_code: str
    dwelling_units: int | None
    public_way: bool
    road_maintenance: bool
    class_override: str
    class_override_reason: str
    lot_sqft: Decimal | None
    impervious_sqft: Decimal | None
    credit_percent: Decimal = ZERO  # granted credits in force (Ch. 295 Art. IV credits ¶B–¶E)
    credit_note: str = ""           # which credits, for the explanation


@dataclass(frozen=True)
class FeeProvider:
    """What the utility registers (each a function of ``utility.selectors`` / ``utility.balances``)."""

    # (parcel, *, as_of) → the parcel's fee as a bill run on that day would bill it: ``.fee`` (a ``rules.fees.Fee``
    # or None), ``.problem``, ``.resolution``, ``.class_reason``, ``.share`` (a unit billed through its master).
    parcel_fee: Callable[..., Any]
    # (day) → the rate resolution in force (``str()`` names it, ``.fee_terms()`` its ``rules.fees.FeeTerms``) or None.
    resolution_in_force: Callable[..., Any]
    # (ParcelFacts, FeeTerms, *, cache=None) → ``rules.fees.Fee``, or raises ``BillingProblem``.
    assess: Callable[..., Any]
    # (*, on) → the association instruments in force (``master_of``, ``problem``, ``unit_share``): Ch. 295 Art. IV ¶G.
    association_split: Callable[..., Any]
    # () → a query expression over parcels: what the parcel's accounts owe today, "Due now" (0 without any). The
    # utility registers the posted ledger; collections replace it with interest to the day (receivables.owed).
    parcel_balance: Callable[[], Any]
    # (parcels queryset) → the sum of ``parcel_balance`` over its rows in one set-based statement, or None: the list
    # then sums the expression row by row.
    parcel_balance_total: Callable[[Any], Any] | None = None


_provider: FeeProvider | None = None


def register(provider: FeeProvider) -> None:
    global _provider
    _provider = provider


def fee_provider() -> FeeProvider:
    """The registered fee path; an error that says so when none is (the utility app is not installed or ready)."""
    if _provider is None:
        raise RuntimeError("No fee path is registered: stormwater.utility must be in INSTALLED_APPS (its "
                           "AppConfig.ready registers it in stormwater.parcels.fees).")
    return _provider
