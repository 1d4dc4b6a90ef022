"""The parcels list (issue 16): search, class, land use, owner on record, impervious area, balance; sortable,
paged, exported — on the one list mechanism (``web.lists``)."""
from __future__ import annotations

import django_filters
import django_tables2 as tables
from django.utils.functional import cached_property
from django.db.models import Case, CharField, F, OuterRef, Q, QuerySet, Subquery, Sum, Value, When
from django.db.models.functions import Substr, Trim

from stormwater.accounts.roles import Perm
from stormwater.rules.classes import ROOMING_HOUSE_CODES, PropertyClass
from stormwater.web.lists import (BALANCE_CHOICES, MONEY_FIELD, ListFilter, ListPage, ListTable, MoneyColumn,
                                  NumberColumn, SearchFilter, amount_range_filters, balance_filter,
                                  choice_filter)

from .fees import fee_provider
from .models import CLASS_CHOICES, Parcel, ParcelImpervious

UNDECIDED = "undecided"
CLASS_FILTER_CHOICES = [*CLASS_CHOICES, (UNDECIDED, "Not decided by the assessor data (staff must classify)")]
CLASS_LABELS = dict(CLASS_FILTER_CHOICES)


def property_class_expression() -> Case:
    """The parcel's class as SQL, the same decision as ``rules.classes.classify`` (Ch. 295 Art. IV definitions
    and exemptions ¶B(1)) with the staff override first (``parcel_classification``), so that the list filters by
    class over every parcel in its one query. A land-use code that does not start with three digits, or a
    residential code without dwelling units, is "undecided" here (``classify`` may normalise such a code or
    refuses it). tests/parcels/test_parcel_list.py holds this equal to ``classify`` over a grid of facts."""
    luc = Substr(Trim(F("land_use_code")), 1, 3)
    nonres, small, large = (Value(c.value) for c in (PropertyClass.NONRESIDENTIAL, PropertyClass.SMALL_RESIDENTIAL,
                                                      PropertyClass.LARGE_RESIDENTIAL))
    return Case(
        When(~Q(class_override=""), then=F("class_override")),
        When(public_way=True, road_maintenance=False, then=Value(PropertyClass.EXEMPT.value)),
        When(~Q(land_use_code__regex=r"^\s*[0-9]{3}"), then=Value(UNDECIDED)),
        When(public_way=True, then=nonres),
        When(Q(_luc__startswith="0") | ~Q(_luc__startswith="1"), then=nonres),
        When(_luc__in=sorted(ROOMING_HOUSE_CODES), then=large),
        When(Q(_luc__startswith="13") | Q(_luc__startswith="14"), then=nonres),
        When(dwelling_units__isnull=True, then=Value(UNDECIDED)),
        When(dwelling_units=0, then=nonres),
        When(dwelling_units__lte=3, then=small),
        default=large, output_field=CharField()), luc


def parcels_annotated(qs: QuerySet[Parcel], *, balance: bool = True) -> QuerySet[Parcel]:
    """Each parcel with its class, the impervious area of the latest survey measuring it and (for billing staff:
    a condominium's parcel sums every unit's account) the posted balance of its accounts (the utility's ledger,
    through ``parcels.fees``)."""
    klass, luc = property_class_expression()
    latest = (ParcelImpervious.objects.filter(parcel=OuterRef("pk"))
              .order_by("-survey__surveyed_on", "-survey_id").values("impervious_sqft")[:1])
    return qs.annotate(_luc=luc).annotate(
        property_class=klass, impervious_sqft=Subquery(latest, output_field=MONEY_FIELD),
        balance=fee_provider().parcel_balance() if balance else Value(None, output_field=MONEY_FIELD))


class ParcelFilter(ListFilter):
    q = SearchFilter(fields=["parcel_id", "address", "owner__name"], label="Search (address, parcel id or owner)")
    property_class = choice_filter("property_class", "Class", CLASS_FILTER_CHOICES)
    land_use = django_filters.CharFilter(field_name="land_use_code", lookup_expr="startswith",
                                         label="Land-use code starts with")
    owner = choice_filter(None, "Owner on record", [("yes", "Has a record owner"), ("no", "No record owner")],
                          method="_owner")
    impervious = choice_filter(None, "Impervious area", [("measured", "Measured"), ("none", "Not measured")],
                               method="_impervious")
    balance = choice_filter(None, "Due now", BALANCE_CHOICES, method="_balance")
    due_min, due_max = amount_range_filters("balance", "Due now")

    def __init__(self, *args, request=None, **kwargs):
        super().__init__(*args, request=request, **kwargs)
        if request is not None and not request.user.can(Perm.BILLING_VIEW_ALL):
            self.drop("balance", "due_min", "due_max")

    def _owner(self, qs, name, value):
        return qs.filter(owner__isnull=value == "no")

    def _impervious(self, qs, name, value):
        return qs.filter(impervious_sqft__isnull=value == "none")

    def _balance(self, qs, name, value):
        return balance_filter(qs, value)


class ParcelTable(ListTable):
    parcel_id = tables.Column("Parcel id", linkify=("parcel_detail", [tables.A("parcel_id")]))
    address = tables.Column("Address")
    owner = tables.Column("Owner", accessor="owner__name", default="— none on record —")
    mailing_address = tables.Column("Mailing address", accessor="owner__mailing_address", default="",
                                    orderable=False)
    land_use_code = tables.Column("Land use")
    dwelling_units = NumberColumn("Units", default="?")
    property_class = tables.Column("Class")
    impervious_sqft = NumberColumn("Impervious ft²", default="—")
    balance = MoneyColumn("Due now")

    def render_property_class(self, value):
        return CLASS_LABELS.get(value, value)

    value_property_class = render_property_class

    def render_impervious_sqft(self, value):
        return f"{value:,.0f}"

    def value_impervious_sqft(self, value):
        return value

    def value_dwelling_units(self, value):
        return value


class ParcelList(ListPage):
    table_class = ParcelTable
    filter_class = ParcelFilter
    noun = ("parcel", "parcels")
    export_name = "parcels"
    default_sort = ("parcel_id",)

    def __init__(self, request, queryset):
        staff = request.user.can(Perm.BILLING_VIEW_ALL)
        fp = fee_provider()
        self._set_total = fp.parcel_balance_total if staff else None
        self.totals = ({"balance": Sum(fp.parcel_balance(), output_field=MONEY_FIELD)}
                       if staff and self._set_total is None else {})
        super().__init__(request, parcels_annotated(queryset, balance=staff))
        if not staff:
            self.table.columns.hide("balance")

    @cached_property
    def summary(self) -> dict:
        """The count, and the total of what is owed in one set-based statement where the fee path gives one."""
        out = super().summary
        if self._set_total is not None:
            out = {**out, "balance": self._set_total(self.queryset)}
        return out
