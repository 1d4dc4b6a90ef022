"""Reads of rates, fees, bills and balances. ``bill_get_for_user`` is the only way a view reaches a bill to act on
(``bill_page_get_for_user`` to look at one, a proof's included for staff)."""
from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date
from decimal import Decimal

from django.db.models import QuerySet, Sum
from django.http import Http404

from stormwater.accounts.roles import Perm
from stormwater.parcels.fees import BillingProblem, ParcelFacts  # noqa: F401 (the fee path's types, named here too)
from stormwater.parcels.models import Parcel
from stormwater.parcels.selectors import parcel_classification, parcel_impervious
from stormwater.rules.classes import ClassificationError, PropertyClass
from stormwater.rules.fees import ABSURD_IMPERVIOUS_SQFT, Fee, FeeTerms, compute_fee
from stormwater.rules.money import ZERO, allocate, fmt, fmt_ratio, round_cents, split_equal

from . import credits
from .models import Account, Bill, Installment, LedgerEntry, RateResolution

ERR_NO_OWNER = "No record owner in the Assessors' data: the bill has no one to go to (Ch. 295 Art. IV ¶B)."
ERR_NO_AREA = "No impervious area measured for this parcel: it cannot be billed by ERUs."
ERR_AREA_OVER_LOT = "Impervious area {imp} ft² exceeds the lot size {lot} ft²: check the data."
ERR_NO_RESOLUTION = "No rate resolution is in force on {day}: enter the Select Board's resolution first."


def resolution_in_force(on: date) -> RateResolution | None:
    """The resolution with the latest effective date on or before ``on`` (Ch. 295 Art. IV ¶D)."""
    return (RateResolution.objects.filter(effective_from__lte=on).prefetch_related("blocks")
            .order_by("-effective_from", "-id").first())


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

    Credits are granted in the relief app (credit policy and applications), which registers its reader in
    ``utility.credits``; the fee only needs the combined percent. Without that app, no credits.
    """
    return credits.credits_in_force(on=on, parcel_pks=parcel_pks)


def parcel_facts(parcel: Parcel, *, as_of: date) -> ParcelFacts:
    pi = parcel_impervious(parcel, as_of=as_of)
    credit, note = credits_in_force(on=as_of, parcel_pks=[parcel.pk]).get(parcel.pk, (ZERO, ""))
    return ParcelFacts(
        has_owner=parcel.owner_id is not None, land_use_code=parcel.land_use_code,
        dwelling_units=parcel.dwelling_units, public_way=parcel.public_way,
        road_maintenance=parcel.road_maintenance, class_override=parcel.class_override,
        class_override_reason=parcel.class_override_reason, lot_sqft=parcel.lot_sqft,
        impervious_sqft=pi.impervious_sqft if pi else None, credit_percent=credit, credit_note=note)


# --- property associations (Ch. 295 Art. IV ¶G): who is billed through whom -------------------------------------
# "Upon receipt of the recorded instrument, each unit's owner billed separately for its percentage": the master
# parcel's fee is computed once and divided by the instrument in force; a unit with a parcel id of its own owes no fee
# of its own. ``association_split`` is the one reading of that, shared by the bill run (``billrun/prepare.py``),
# ``parcel_fee`` (every page, the API, relief) and the set-based reports (billing problems, the fund's rate base, the
# GIS fee-change reports), so that all of them agree with the bill.

ERR_UNIT_NO_OWNER = "An association unit has no record owner: {units}"


def association_unit_problem(shares) -> str | None:
    """Why a master parcel's fee cannot be divided among its units (the bill run refuses the master): a unit of the
    instrument in force with no record owner has no one to bill (Ch. 295 Art. IV ¶B, ¶G)."""
    missing = [sh.unit.unit for sh in shares if sh.unit.owner_id is None]
    return ERR_UNIT_NO_OWNER.format(units=", ".join(missing)) if missing else None


def unit_share_line(share, master_annual: Decimal, amount: Decimal) -> str:
    """The explanation's line for a unit's share of the master parcel's fee (the bill's and every page's)."""
    from stormwater.formats import day

    inst = share.instrument
    return (f"Property association {inst.association.name} (instrument {inst.reference}, recorded "
            f"{day(inst.recorded_on)}): unit {share.unit.unit} is {fmt_ratio(share.percent)}% of "
            f"${fmt(master_annual)} = ${fmt(amount)} (Ch. 295 Art. IV ¶G).")


@dataclass(frozen=True)
class UnitShare:
    """A unit parcel's part of its master parcel's fee under the instrument in force (Ch. 295 Art. IV ¶G)."""

    association: str
    instrument_reference: str
    instrument_recorded_on: date
    unit: str
    percent: Decimal
    master_parcel_id: str
    master_fee: Decimal | None   # the master parcel's annual fee (None: it cannot be computed)
    amount: Decimal | None       # this unit's part of it, allocated to the cent as the bill run does

    def as_json(self) -> dict:
        return {"association": self.association, "instrument": self.instrument_reference,
                "recorded_on": str(self.instrument_recorded_on), "unit": self.unit,
                "percent": fmt_ratio(self.percent), "master_parcel_id": self.master_parcel_id,
                "master_annual_fee": None if self.master_fee is None else fmt(self.master_fee),
                "amount": None if self.amount is None else fmt(self.amount)}

    @property
    def billed_through(self) -> str:
        """One line for a report: where this parcel's fee is billed instead."""
        return (f"Unit {self.unit} of {self.association}: billed {fmt_ratio(self.percent)}% of parcel "
                f"{self.master_parcel_id}'s fee (instrument {self.instrument_reference}, Ch. 295 Art. IV ¶G)")


@dataclass(frozen=True)
class AssociationSplit:
    """The instruments in force on one day, read once: ``shares`` master parcel pk → its unit shares (each with
    ``unit``, its ``owner`` and ``instrument.association``, in unit order); ``unit_of`` unit parcel pk → (master parcel
    pk, the unit's index in the master's shares)."""

    on: date
    shares: dict
    unit_of: dict

    def master_of(self, pk: int) -> int | None:
        """The master parcel a unit parcel is billed through, or None for a parcel billed on its own."""
        hit = self.unit_of.get(pk)
        return hit[0] if hit else None

    def problem(self, master_pk: int) -> str | None:
        """Why the master's fee cannot be divided (``association_unit_problem``), or None."""
        shares = self.shares.get(master_pk)
        return association_unit_problem(shares) if shares else None

    def amounts(self, master_pk: int, annual: Decimal) -> list[Decimal]:
        """The master's annual fee allocated to its units, to the cent, the parts summing to it (``allocate``)."""
        return allocate(annual, [sh.percent for sh in self.shares[master_pk]])

    def unit_share(self, pk: int, *, master_parcel_id: str, master_fee: Decimal | None) -> UnitShare:
        master_pk, i = self.unit_of[pk]
        sh = self.shares[master_pk][i]
        inst = sh.instrument
        amount = None if master_fee is None else self.amounts(master_pk, master_fee)[i]
        return UnitShare(inst.association.name, inst.reference, inst.recorded_on, sh.unit.unit, sh.percent,
                         master_parcel_id, master_fee, amount)

    def unit_fee(self, pk: int, master: Fee) -> Fee:
        """A unit parcel's fee: the master's fee (class, ERUs, blocks: what the bill snapshots) with the unit's part of
        the gross fee, the credit and the annual fee, its installments, and the ¶G line in the explanation."""
        master_pk, i = self.unit_of[pk]
        sh = self.shares[master_pk][i]
        annual = self.amounts(master_pk, master.annual_fee)[i]
        gross = self.amounts(master_pk, master.gross_fee)[i]
        return replace(master, gross_fee=gross, credit_amount=gross - annual, annual_fee=annual,
                       installments=tuple(split_equal(annual, len(master.installments) or 1)),
                       explanation=master.explanation + "\n" + unit_share_line(sh, master.annual_fee, annual))


def association_split(*, on: date) -> AssociationSplit:
    """The instruments in force on ``on`` (``parcels.selectors.shares_in_force``: two queries, whatever the number of
    associations; a town has dozens) as an ``AssociationSplit``."""
    from stormwater.parcels.selectors import shares_in_force

    shares = shares_in_force(on=on)
    unit_of = {sh.unit.parcel_id: (master, i) for master, lst in shares.items() for i, sh in enumerate(lst)
               if sh.unit.parcel_id is not None}
    return AssociationSplit(on, shares, unit_of)


@dataclass(frozen=True)
class ParcelFee:
    fee: Fee | None
    problem: str | None
    resolution: RateResolution | None
    class_reason: str | None
    share: UnitShare | None = None  # a unit parcel billed through its master (Ch. 295 Art. IV ¶G)


def parcel_fee(parcel: Parcel, *, as_of: date) -> ParcelFee:
    """The parcel's fee under the resolution in force on ``as_of``, or the problem that stops it, as a bill run on
    ``as_of`` would bill it: a unit parcel named by its association's instrument in force owes its share of the master
    parcel's fee (``share`` says which), never its own (Ch. 295 Art. IV ¶G); a master whose unit has no owner is the
    run's problem."""
    split = association_split(on=as_of)
    master_pk = split.master_of(parcel.pk)
    if master_pk is None:
        return _own_fee(parcel, as_of=as_of, split=split)
    master = Parcel.objects.get(pk=master_pk)
    mf = _own_fee(master, as_of=as_of, split=split)
    fee = split.unit_fee(parcel.pk, mf.fee) if mf.fee else None
    share = split.unit_share(parcel.pk, master_parcel_id=master.parcel_id,
                             master_fee=mf.fee.annual_fee if mf.fee else None)
    problem = None if fee else f"Billed through parcel {master.parcel_id} (Ch. 295 Art. IV ¶G): {mf.problem}"
    return ParcelFee(fee, problem, mf.resolution, mf.class_reason, share)


def _own_fee(parcel: Parcel, *, as_of: date, split: AssociationSplit) -> ParcelFee:
    res = resolution_in_force(as_of)
    facts = parcel_facts(parcel, as_of=as_of)
    try:
        reason = parcel_classification(facts).reason
    except ClassificationError:
        reason = None
    if res is None:
        return ParcelFee(None, ERR_NO_RESOLUTION.format(day=as_of), None, reason)
    try:
        fee = assess(facts, res.fee_terms())
    except BillingProblem as e:
        return ParcelFee(None, str(e), res, reason)
    problem = split.problem(parcel.pk) if _billable(fee) else None
    return ParcelFee(None, problem, res, reason) if problem else ParcelFee(fee, None, res, reason)


def _billable(fee: Fee) -> bool:
    """A fee a bill run makes a bill of (not exempt, not $0): only then does the run divide it among units."""
    return fee.property_class is not PropertyClass.EXEMPT and fee.annual_fee != 0


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
    split = association_split(on=as_of)
    out = []
    for pid, addr, pk, owner_id, luc, du, pw, rm, ov, ovr, lot in rows.iterator(chunk_size=5000):
        if split.master_of(pk) is not None:
            continue  # a unit parcel: billed through its master only (Ch. 295 Art. IV ¶G), its own data stops nothing
        credit, note = credits.get(pk, (ZERO, ""))
        facts = ParcelFacts(has_owner=owner_id is not None, land_use_code=luc, dwelling_units=du, public_way=pw,
                            road_maintenance=rm, class_override=ov, class_override_reason=ovr, lot_sqft=lot,
                            impervious_sqft=impervious.get(pk), credit_percent=credit, credit_note=note)
        try:
            fee = assess(facts, terms)
        except BillingProblem as e:
            out.append(ProblemParcel(pid, addr, str(e)))
            continue
        problem = split.problem(pk) if _billable(fee) else None
        if problem:  # the run refuses a master whose unit has no one to bill
            out.append(ProblemParcel(pid, addr, problem))
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
