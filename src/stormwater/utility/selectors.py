"""Reads of rates, fees, bills and balances. ``bill_get_for_user`` is the only way a view reaches a bill to act on
(``bill_page_get_for_user`` to look at one, a proof's included for staff)."""
from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date
from decimal import Decimal

from django.db.models import QuerySet, Sum
from django.http import Http404

from stormwater.accounts.roles import Perm
from stormwater.parcels.models import Parcel
from stormwater.parcels.selectors import parcel_classification, parcel_impervious
from stormwater.rules.classes import ClassificationError, PropertyClass
from stormwater.rules.fees import ABSURD_IMPERVIOUS_SQFT, Fee, FeeTerms, compute_fee
from stormwater.rules.money import ZERO, fmt_ratio, round_cents

from .models import Account, Bill, Installment, LedgerEntry, RateResolution

ERR_NO_OWNER = "No record owner in the Assessors' data: the bill has no one to go to (Ch. 295 Art. IV ¶B)."
ERR_NO_AREA = "No impervious area measured for this parcel: it cannot be billed by ERUs."
ERR_AREA_OVER_LOT = "Impervious area {imp} ft² exceeds the lot size {lot} ft²: check the data."
ERR_NO_RESOLUTION = "No rate resolution is in force on {day}: enter the Select Board's resolution first."


class BillingProblem(Exception):
    """A parcel that cannot be billed as it stands; the message says why, for staff."""


def resolution_in_force(on: date) -> RateResolution | None:
    """The resolution with the latest effective date on or before ``on`` (Ch. 295 Art. IV ¶D)."""
    return (RateResolution.objects.filter(effective_from__lte=on).prefetch_related("blocks")
            .order_by("-effective_from", "-id").first())


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


def assess(facts: ParcelFacts, terms: FeeTerms, *, cache: dict | None = None) -> Fee:
    """The annual fee of a parcel or a BillingProblem naming what is wrong (never a silent $0).

    ``cache`` (a dict the caller keeps for one set of terms): see ``assess_area``. The result is the same
    with or without it.
    """
    fee, imp = assess_area(facts, terms, cache=cache)
    return fee if fee.impervious_sqft == imp else replace(fee, impervious_sqft=imp)


def assess_area(facts: ParcelFacts, terms: FeeTerms, *, cache: dict | None = None) -> tuple[Fee, Decimal]:
    """``assess`` for a bill run: (fee, the parcel's impervious ft²). With ``cache``, fees are remembered by what
    decides them — class, credit, and the area only where the class is billed by area — so a town's thousands
    of small residential parcels compute one fee (issue 15); the fee's own ``impervious_sqft`` is then the
    first such parcel's, and the area returned is this parcel's (what its bill records)."""
    if not facts.has_owner:
        raise BillingProblem(ERR_NO_OWNER)
    ckey = ("class", facts.land_use_code, facts.dwelling_units, facts.public_way, facts.road_maintenance,
            facts.class_override, facts.class_override_reason)
    cls = cache.get(ckey) if cache is not None else None
    if cls is None:
        try:
            cls = parcel_classification(facts)  # duck-typed: override fields + assessor fields
        except ClassificationError as e:
            cls = BillingProblem(f"Cannot classify: {e}.")
        if cache is not None:
            cache[ckey] = cls
    if isinstance(cls, BillingProblem):
        raise BillingProblem(str(cls))
    imp = facts.impervious_sqft
    needs_area = cls.property_class in (PropertyClass.NONRESIDENTIAL, PropertyClass.LARGE_RESIDENTIAL)
    if imp is None:
        if needs_area:
            raise BillingProblem(ERR_NO_AREA)
        imp = ZERO
    if imp < 0:
        raise BillingProblem(f"Impervious area {imp} ft² is negative: check the data.")
    if facts.lot_sqft is not None and facts.lot_sqft < 0:
        raise BillingProblem(f"Lot size {facts.lot_sqft} ft² is negative: check the data.")
    if needs_area and facts.lot_sqft and imp > facts.lot_sqft:
        raise BillingProblem(ERR_AREA_OVER_LOT.format(imp=imp, lot=facts.lot_sqft))
    credit = min(facts.credit_percent, Decimal(100))
    if cache is None or imp > ABSURD_IMPERVIOUS_SQFT:
        return _fee(cls.property_class, imp, terms, credit, facts.credit_note), imp
    # The area decides the fee (and is in its explanation) only where the class is billed by area.
    key = (cls.property_class, imp if needs_area else None, credit, facts.credit_note)
    fee = cache.get(key)
    if fee is None:
        fee = cache[key] = _fee(cls.property_class, imp, terms, credit, facts.credit_note)
    return fee, imp


def _fee(pclass: PropertyClass, imp: Decimal, terms: FeeTerms, credit: Decimal, credit_note: str) -> Fee:
    try:
        fee = compute_fee(property_class=pclass, impervious_sqft=imp, terms=terms, credit_percent=credit)
    except ValueError as e:
        raise BillingProblem(str(e)) from None
    if credit_note and fee.credit_amount:
        fee = replace(fee, explanation=fee.explanation.replace(
            f"Credit {fmt_ratio(fee.credit_percent)}%", f"Credit {fmt_ratio(fee.credit_percent)}% ({credit_note})"))
    return fee


def credits_in_force(*, on: date, parcel_pks=None) -> dict[int, tuple[Decimal, str]]:
    """Parcel pk → (credit percent, description) of the credits granted and in force on ``on``.

    Credits are granted in the relief app (credit policy and applications); the fee only needs the
    combined percent. Without that app, no credits.
    """
    try:
        from stormwater.relief.selectors import credit_percent_by_parcel
    except ImportError:
        return {}
    return credit_percent_by_parcel(on=on, parcel_pks=parcel_pks)


def parcel_facts(parcel: Parcel, *, as_of: date) -> ParcelFacts:
    pi = parcel_impervious(parcel, as_of=as_of)
    credit, note = credits_in_force(on=as_of, parcel_pks=[parcel.pk]).get(parcel.pk, (ZERO, ""))
    return ParcelFacts(
        has_owner=parcel.owner_id is not None, land_use_code=parcel.land_use_code,
        dwelling_units=parcel.dwelling_units, public_way=parcel.public_way,
        road_maintenance=parcel.road_maintenance, class_override=parcel.class_override,
        class_override_reason=parcel.class_override_reason, lot_sqft=parcel.lot_sqft,
        impervious_sqft=pi.impervious_sqft if pi else None, credit_percent=credit, credit_note=note)


@dataclass(frozen=True)
class ParcelFee:
    fee: Fee | None
    problem: str | None
    resolution: RateResolution | None
    class_reason: str | None


def parcel_fee(parcel: Parcel, *, as_of: date) -> ParcelFee:
    """The parcel's fee under the resolution in force on ``as_of``, or the problem that stops it."""
    res = resolution_in_force(as_of)
    facts = parcel_facts(parcel, as_of=as_of)
    try:
        reason = parcel_classification(facts).reason
    except ClassificationError:
        reason = None
    if res is None:
        return ParcelFee(None, ERR_NO_RESOLUTION.format(day=as_of), None, reason)
    try:
        return ParcelFee(assess(facts, res.fee_terms()), None, res, reason)
    except BillingProblem as e:
        return ParcelFee(None, str(e), res, reason)


@dataclass(frozen=True)
class ProblemParcel:
    parcel_id: str
    address: str
    problem: str


def billing_problems(*, as_of: date) -> list[ProblemParcel]:
    """Parcels a bill run on ``as_of`` could not bill, with why (never a silent $0), in parcel order.

    Set-based like the bill run (issue 15): the parcels' facts, the survey in force and the credits are
    read in a constant number of queries and every parcel goes through the one fee path (``assess``),
    instead of four queries a parcel.
    """
    from stormwater.parcels.selectors import impervious_as_of

    rows = Parcel.objects.order_by("parcel_id").values_list(
        "parcel_id", "address", "pk", "owner_id", "land_use_code", "dwelling_units", "public_way", "road_maintenance",
        "class_override", "class_override_reason", "lot_sqft")
    res = resolution_in_force(as_of)
    if res is None:
        msg = ERR_NO_RESOLUTION.format(day=as_of)
        return [ProblemParcel(pid, addr, msg) for pid, addr, *_ in rows.iterator(chunk_size=5000)]
    terms = res.fee_terms()
    impervious = impervious_as_of(as_of=as_of)
    credits = credits_in_force(on=as_of)
    out = []
    for pid, addr, pk, owner_id, luc, du, pw, rm, ov, ovr, lot in rows.iterator(chunk_size=5000):
        credit, note = credits.get(pk, (ZERO, ""))
        facts = ParcelFacts(has_owner=owner_id is not None, land_use_code=luc, dwelling_units=du, public_way=pw,
                            road_maintenance=rm, class_override=ov, class_override_reason=ovr, lot_sqft=lot,
                            impervious_sqft=impervious.get(pk), credit_percent=credit, credit_note=note)
        try:
            assess(facts, terms)
        except BillingProblem as e:
            out.append(ProblemParcel(pid, addr, str(e)))
    return out


def bills_for_user(*, user) -> QuerySet[Bill]:
    """The issued bills ``user`` may see (``Bill.objects``: no proof, no voided run)."""
    qs = Bill.objects.select_related("parcel", "account", "run")
    if user.can(Perm.BILLING_VIEW_ALL):
        return qs
    # A union of the two index paths (an OR across joins reads every bill: issue 15).
    whole = Bill.objects.filter(account__unit__isnull=True, parcel__owner__user=user).order_by().values("pk")
    units = Bill.objects.filter(account__unit__owner__user=user).order_by().values("pk")
    return qs.filter(pk__in=whole.union(units))


def bill_get_for_user(*, user, number: str) -> Bill:
    """One issued bill by number, if ``user`` may see it (what every act on a bill starts from)."""
    try:
        return bills_for_user(user=user).get(number=number)
    except Bill.DoesNotExist:
        raise Http404("No such bill.") from None


def bill_page_get_for_user(*, user, number: str) -> Bill:
    """A bill to look at: as ``bill_get_for_user``, and for staff who see every bill also a proof's bills and a
    voided run's (the bill's page and PDF say which). Only the bill page and its PDF use it."""
    if not user.can(Perm.BILLING_VIEW_ALL):
        return bill_get_for_user(user=user, number=number)
    try:
        return Bill.all_objects.select_related("parcel", "account", "run").get(number=number)
    except Bill.DoesNotExist:
        raise Http404("No such bill.") from None


def bill_installments(bill: Bill) -> QuerySet[Installment]:
    """A bill's installments whatever its run's state (``bill.installments`` shows issued bills' only)."""
    return Installment.all_objects.filter(bill=bill).order_by("seq")


def account_balance(account: Account, *, as_of: date) -> Decimal:
    """Sum of the account's ledger entries effective on or before ``as_of`` (owed > 0)."""
    total = LedgerEntry.objects.filter(account=account, effective_on__lte=as_of).aggregate(s=Sum("amount"))["s"]
    return round_cents(total or ZERO)  # SQLite's SUM of decimals comes back with float noise digits


def account_entries(account: Account) -> QuerySet[LedgerEntry]:
    return LedgerEntry.objects.filter(account=account).order_by("effective_on", "id")


def installments_owed_for_user(*, user, as_of):
    """The user's issued installments that still owe something as of ``as_of``, with ``owed`` (every ledger entry
    of the installment effective by then: principal, interest posted, demand charges, less payments, credits and
    abatements). One query whatever the number of bills."""
    from django.db.models import DecimalField, OuterRef, Subquery, Value
    from django.db.models.functions import Coalesce

    from .models import Installment

    owed = (LedgerEntry.objects.filter(installment=OuterRef("pk"), effective_on__lte=as_of).order_by()
            .values("installment").annotate(s=Sum("amount")).values("s"))
    money = DecimalField(max_digits=14, decimal_places=2)
    return (Installment.objects.filter(bill__in=bills_for_user(user=user).values("pk"), issue_date__lte=as_of)
            .annotate(owed=Coalesce(Subquery(owed, output_field=money), Value(0, output_field=money)))
            .filter(owed__gte=Decimal("0.005"))  # a sum of cents; SQLite may add float noise
            .select_related("bill", "bill__parcel").order_by("due_date", "bill__number", "seq"))
