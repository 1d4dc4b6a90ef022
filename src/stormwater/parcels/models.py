from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.db import models

from stormwater.appendonly import AppendOnlyModel
from stormwater.rules.classes import PropertyClass
from stormwater.rules.calendar import fmt_day

CLASS_CHOICES = [(c.value, c.label) for c in PropertyClass]


class Owner(models.Model):
    """A record title owner (from the Assessors' records), billed per Ch. 295 Art. IV ¶B."""

    name = models.CharField(max_length=200)
    mailing_address = models.TextField(help_text="As printed on the envelope, one line per line.")
    email = models.EmailField(blank=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="owner_records")
    # Paperless bills (issue 17 "Paying online": "an owner can choose e-mail only"): the owner's bills are e-mailed
    # and left out of the print file for mailing. Only with an e-mail address on file (parcels.services.
    # owner_paperless_set); without one a bill is always printed (utility.paperless.paperless_q).
    paperless = models.BooleanField(default=False, help_text="Bills by e-mail only (the owner's choice)")

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Parcel(models.Model):
    """A parcel of land in single and separate ownership (Assessors' records, Ch. 295 Art. IV ¶E)."""

    parcel_id = models.CharField(max_length=40, unique=True, help_text="Assessors' map-block-lot id")
    address = models.CharField(max_length=200, db_index=True)
    owner = models.ForeignKey(Owner, null=True, blank=True, on_delete=models.PROTECT, related_name="parcels")
    land_use_code = models.CharField(max_length=8, help_text="Massachusetts DOR property type code")
    dwelling_units = models.PositiveIntegerField(null=True, blank=True)
    lot_sqft = models.DecimalField(max_digits=14, decimal_places=2, null=True, blank=True)
    public_way = models.BooleanField(default=False, help_text="Public street, highway or right-of-way")
    road_maintenance = models.BooleanField(default=False, help_text="Used for road maintenance (not exempt)")
    water_sewer_account = models.CharField(
        max_length=40, blank=True, help_text="Town water/sewer account: the stormwater fee is consolidated on its bill")
    class_override = models.CharField(max_length=20, choices=CLASS_CHOICES, blank=True)
    class_override_reason = models.TextField(blank=True)

    class Meta:
        ordering = ["parcel_id"]

    def __str__(self) -> str:
        return f"{self.parcel_id} {self.address}"


class ImperviousSurvey(models.Model):
    """A dated determination of impervious area for parcels (one GIS import = one survey)."""

    name = models.CharField(max_length=200)
    surveyed_on = models.DateField(db_index=True)
    source = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-surveyed_on", "-id"]

    def __str__(self) -> str:
        return f"{self.name} ({fmt_day(self.surveyed_on)})"


class ParcelImpervious(models.Model):
    """Impervious area of one parcel in one survey, right-of-way excluded (Ch. 295 Art. IV ¶E, ¶F)."""

    survey = models.ForeignKey(ImperviousSurvey, on_delete=models.PROTECT, related_name="areas")
    parcel = models.ForeignKey(Parcel, on_delete=models.PROTECT, related_name="impervious")
    impervious_sqft = models.DecimalField(max_digits=14, decimal_places=2)
    by_layer = models.JSONField(default=dict, blank=True, help_text="ft² per GIS layer")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["survey", "parcel"], name="one_area_per_parcel_per_survey")]


class PropertyAssociation(models.Model):
    """A condominium or other association whose recorded instrument divides the fee (Ch. 295 Art. IV ¶G).

    ``parcel`` is the master parcel (the one the impervious area is measured on and the fee computed for). The
    instruments the association has submitted are ``instruments`` (each dated, none ever replaced): the one in
    force on a date decides the units' shares (``selectors.instrument_in_force``)."""

    parcel = models.OneToOneField(Parcel, on_delete=models.PROTECT, related_name="association")
    name = models.CharField(max_length=200)

    def __str__(self) -> str:
        return self.name


class AssociationUnit(models.Model):
    """One unit of an association: what a unit's account is addressed to (``utility.Account.unit``), kept across
    instruments so the unit's account and its history stay one. ``parcel`` is the unit's own parcel in the
    Assessors' records (a condominium unit is assessed separately); ``owner`` is whom the unit is billed to, taken
    from that parcel's owner of record each time an instrument naming the unit is recorded. Its share is on the
    instruments (``InstrumentShare``), never here."""

    association = models.ForeignKey(PropertyAssociation, on_delete=models.PROTECT, related_name="units")
    unit = models.CharField(max_length=40)
    parcel = models.OneToOneField(Parcel, null=True, blank=True, on_delete=models.PROTECT,
                                  related_name="association_unit", help_text="The unit's own parcel (Assessors' id)")
    owner = models.ForeignKey(Owner, null=True, blank=True, on_delete=models.PROTECT, related_name="units")

    class Meta:
        ordering = ["unit"]
        constraints = [models.UniqueConstraint(fields=["association", "unit"], name="unit_once_per_association")]

    def __str__(self) -> str:
        return f"Unit {self.unit}"


class AssociationInstrument(AppendOnlyModel):
    """A copy of an instrument recorded in the Hampden Registry of Deeds or Land Court, submitted to the DPW, that
    defines each unit's percentage of common ownership (Ch. 295 Art. IV ¶G): a master deed, or an amendment.

    Each recording is a new row (append-only: an amended master deed is a new instrument, the earlier ones kept and
    shown). The one in force on a day is the one with the latest ``effective_on`` on or before it (the later
    recording on a tie)."""

    association = models.ForeignKey(PropertyAssociation, on_delete=models.PROTECT, related_name="instruments")
    reference = models.CharField(max_length=200,
                                 help_text="Hampden Registry of Deeds book/page or Land Court document number")
    recorded_on = models.DateField(help_text="Recorded at the Registry")
    effective_on = models.DateField(db_index=True, help_text="Bills for periods from this day use its shares")
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")

    class Meta:
        ordering = ["-effective_on", "-id"]

    def __str__(self) -> str:
        return f"{self.reference} (recorded {fmt_day(self.recorded_on)}, effective {fmt_day(self.effective_on)})"


class InstrumentShare(AppendOnlyModel):
    """One unit's percentage of common ownership under one instrument (Ch. 295 Art. IV ¶G). The shares of an
    instrument total exactly 100 % (``services.validate_shares``)."""

    instrument = models.ForeignKey(AssociationInstrument, on_delete=models.PROTECT, related_name="shares")
    unit = models.ForeignKey(AssociationUnit, on_delete=models.PROTECT, related_name="shares")
    percent = models.DecimalField(max_digits=7, decimal_places=4)

    class Meta:
        ordering = ["unit__unit"]
        constraints = [models.UniqueConstraint(fields=["instrument", "unit"], name="unit_once_per_instrument")]

    def __str__(self) -> str:
        return f"{self.unit.unit}: {self.percent}%"


HUNDRED = Decimal(100)
