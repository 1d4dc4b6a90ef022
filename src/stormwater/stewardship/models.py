"""The life of a stormwater system after construction (Ch. 380 § 380-14): sites, O&M plans recorded at the
Hampden County Registry of Deeds, easements, the BMP inventory with maintenance logs, annual
certifications, failure-to-maintain notices, ownership changes and amendments.
"""
from __future__ import annotations

from django.conf import settings
from django.db import models

from stormwater.appendonly import AppendOnlyModel
from stormwater.cases.models import Case, CaseDocument
from stormwater.parcels.models import Parcel
from stormwater.permits.models import PermitApplication
from stormwater.rules.calendar import fmt_day

USER = settings.AUTH_USER_MODEL
REGISTRY = "Hampden County Registry of Deeds"  # § 380-14 B, D(4); definitions "Registry of Deeds"


class Site(models.Model):
    """A stormwater management system (one per permitted project, or an inventory imported from GIS)."""

    case = models.OneToOneField(Case, on_delete=models.PROTECT, related_name="site")
    name = models.CharField(max_length=200)
    address = models.CharField(max_length=300, blank=True)
    permit = models.ForeignKey(PermitApplication, null=True, blank=True, on_delete=models.PROTECT,
                               related_name="stewardship_sites")
    parcels = models.ManyToManyField(Parcel, blank=True, related_name="stewardship_sites")
    owner_user = models.ForeignKey(USER, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
                                   help_text="the owner's sign-in (they see their own site)")
    # § 295-22 (utility): the Town is responsible in ROW/easements, the owner otherwise.
    town_maintained = models.BooleanField(default=False)
    # § 380-14 D(1), D(3): easements "as necessary"; the Director may record that none is necessary.
    easements_not_required_reason = models.CharField(max_length=300, blank=True)
    # who recorded that none is necessary, and when (issue 18: the certificate names them, staff or the Director)
    easements_not_required_by = models.ForeignKey(USER, null=True, blank=True, on_delete=models.PROTECT,
                                                  related_name="+")
    easements_not_required_on = models.DateField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return f"{self.case.number} {self.name}"


class PartyRole(models.TextChoices):
    # § 380-14 C(1), C(2)(a)–(b), F(2): owners, operators, financially responsible persons, easement grantors
    OWNER = "owner", "Owner"
    OPERATOR = "operator", "Responsible for operation and maintenance"
    FINANCIAL = "financial", "Responsible for financing maintenance and emergency repairs"
    GRANTOR = "grantor", "Easement grantor"


class ResponsibleParty(models.Model):
    site = models.ForeignKey(Site, on_delete=models.PROTECT, related_name="parties")
    role = models.CharField(max_length=12, choices=PartyRole.choices)
    name = models.CharField(max_length=200)
    address = models.TextField(blank=True)
    email = models.EmailField(blank=True)
    user = models.ForeignKey(USER, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    since = models.DateField()
    until = models.DateField(null=True, blank=True, help_text="ended by an ownership change (§ 380-14 F(1))")

    class Meta:
        ordering = ["role", "id"]


class OMPlan(models.Model):
    """A draft or final O&M plan and agreement (§ 380-14 A–C). The final plan is recorded at the
    Registry with proof filed (§ 380-14 B); it binds all later owners (§ 380-14 A(3))."""

    site = models.ForeignKey(Site, on_delete=models.PROTECT, related_name="plans")
    version = models.PositiveSmallIntegerField()
    final = models.BooleanField(default=False)
    # key of each § 380-14 C content item → where it is in the plan (page/section)
    items = models.JSONField(default=dict)
    annual_budget = models.DecimalField(max_digits=14, decimal_places=2, null=True, blank=True)
    document = models.ForeignKey(CaseDocument, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    registry = models.CharField(max_length=100, default=REGISTRY)
    book = models.CharField(max_length=20, blank=True)
    page = models.CharField(max_length=20, blank=True)
    document_number = models.CharField(max_length=40, blank=True)
    recorded_on = models.DateField(null=True, blank=True)
    proof_document = models.ForeignKey(CaseDocument, null=True, blank=True, on_delete=models.PROTECT,
                                       related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["version"]
        constraints = [models.UniqueConstraint(fields=["site", "version"], name="omplan_version_once")]

    @property
    def recorded(self) -> bool:
        return self.recorded_on is not None and (bool(self.book and self.page) or bool(self.document_number))

    @property
    def recording(self) -> str:
        if self.document_number:
            return f"{self.registry}, document no. {self.document_number}, {fmt_day(self.recorded_on)}"
        if self.book:
            return f"{self.registry}, Book {self.book} Page {self.page}, {fmt_day(self.recorded_on)}"
        return "not recorded"


class EasementPurpose(models.TextChoices):
    # § 380-14 D(1)(a)–(c), D(3)
    ACCESS = "access", "Access for facility inspections and maintenance"
    PRESERVATION = "preservation", "Preservation of conveyance, infiltration and detention areas (incl. 100-year flood routes)"
    HEAVY_EQUIPMENT = "heavy_equipment", "Direct maintenance access by heavy equipment"
    OFFSITE = "offsite", "Off-site stormwater control area"


class Easement(models.Model):
    """A stormwater management easement (§ 380-14 D): purpose, location, grantor; recorded at the Registry
    before the certificate of completion (§ 380-14 D(4))."""

    site = models.ForeignKey(Site, on_delete=models.PROTECT, related_name="easements")
    purpose = models.CharField(max_length=20, choices=EasementPurpose.choices)
    location = models.CharField(max_length=300)
    grantor = models.CharField(max_length=200)
    grantee = models.CharField(max_length=200, default="Town of Longmeadow")
    book = models.CharField(max_length=20, blank=True)
    page = models.CharField(max_length=20, blank=True)
    document_number = models.CharField(max_length=40, blank=True)
    recorded_on = models.DateField(null=True, blank=True)
    proof_document = models.ForeignKey(CaseDocument, null=True, blank=True, on_delete=models.PROTECT,
                                       related_name="+")

    class Meta:
        ordering = ["id"]

    @property
    def recorded(self) -> bool:
        return self.recorded_on is not None and (bool(self.book and self.page) or bool(self.document_number))


class InventoryImport(models.Model):
    """One import of a BMP / structure inventory from GIS files (what came in, the type mapping used)."""

    site = models.ForeignKey(Site, on_delete=models.PROTECT, related_name="imports")
    source = models.CharField(max_length=300)
    imported_at = models.DateTimeField(auto_now_add=True)
    imported_by = models.ForeignKey(USER, null=True, on_delete=models.PROTECT, related_name="+")
    counts = models.JSONField(default=dict)


class Bmp(models.Model):
    """A BMP of the inventory (type, location, drainage area, what it treats) mapped to an EPA Region 1
    performance category where one fits (engineering.water_quality; Ch. 380 § 380-11 A(4))."""

    site = models.ForeignKey(Site, on_delete=models.PROTECT, related_name="bmps")
    name = models.CharField(max_length=200)
    source_type = models.CharField(max_length=100, help_text="the type as the source names it")
    region1_category = models.CharField(max_length=60, blank=True,
                                        help_text="EPA Region 1 BMP category; blank = none applies")
    mapping_note = models.CharField(max_length=300, blank=True)
    latitude = models.FloatField(null=True, blank=True)
    longitude = models.FloatField(null=True, blank=True)
    drainage_area_acres = models.DecimalField(max_digits=10, decimal_places=3, null=True, blank=True)
    treats = models.CharField(max_length=300, blank=True)
    subwatershed = models.CharField(max_length=100, blank=True)
    owner = models.CharField(max_length=100, blank=True)
    external_id = models.CharField(max_length=60, blank=True, db_index=True)
    source_import = models.ForeignKey(InventoryImport, null=True, blank=True, on_delete=models.PROTECT,
                                      related_name="bmps")
    added_on = models.DateField()

    class Meta:
        ordering = ["id"]


class Structure(models.Model):
    """A drainage structure of the inventory (catch basin, manhole, outfall …)."""

    site = models.ForeignKey(Site, on_delete=models.PROTECT, related_name="structures")
    kind = models.CharField(max_length=60, db_index=True)
    external_id = models.CharField(max_length=60, blank=True)
    latitude = models.FloatField(null=True)
    longitude = models.FloatField(null=True)
    owner = models.CharField(max_length=100, blank=True)
    source_import = models.ForeignKey(InventoryImport, null=True, on_delete=models.PROTECT, related_name="structures")


class MaintenanceKind(models.TextChoices):
    # § 380-14 C(2)(j): inspections, repairs, replacement, and disposal (type of material and location)
    INSPECTION = "inspection", "Inspection"
    REPAIR = "repair", "Repair"
    REPLACEMENT = "replacement", "Replacement"
    DISPOSAL = "disposal", "Disposal"
    ROUTINE = "routine", "Routine maintenance (cleaning, mowing, sediment removal)"


class MaintenanceLog(AppendOnlyModel):
    """One entry of a BMP's O&M log (§ 380-14 C(2)(e), (i), (j)). Append-only."""

    bmp = models.ForeignKey(Bmp, on_delete=models.PROTECT, related_name="logs")
    on = models.DateField()
    kind = models.CharField(max_length=12, choices=MaintenanceKind.choices)
    description = models.TextField()
    performed_by = models.CharField(max_length=200)
    disposal_material = models.CharField(max_length=200, blank=True)
    disposal_location = models.CharField(max_length=300, blank=True)
    recorded_by = models.ForeignKey(USER, null=True, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["on", "id"]


class AnnualCertification(models.Model):
    """§ 380-14 C(2)(l): the yearly certification of the work done over the last 12 months."""

    plan = models.ForeignKey(OMPlan, on_delete=models.PROTECT, related_name="certifications")
    seq = models.PositiveSmallIntegerField(help_text="1 = the first year after recording")
    period_start = models.DateField()
    period_end = models.DateField()
    due_on = models.DateField()
    received_on = models.DateField()
    work_summary = models.TextField()
    signed_by = models.CharField(max_length=200)
    late = models.BooleanField(default=False)
    document = models.ForeignKey(CaseDocument, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    recorded_by = models.ForeignKey(USER, null=True, on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["seq"]
        constraints = [models.UniqueConstraint(fields=["plan", "seq"], name="certification_once_per_year")]


class CertificationReminder(models.Model):
    """A reminder sent (the scheduler's command never sends the same one twice)."""

    plan = models.ForeignKey(OMPlan, on_delete=models.PROTECT, related_name="reminders")
    seq = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=10)  # "upcoming" or "overdue"
    sent_on = models.DateField()
    to = models.CharField(max_length=300, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["plan", "seq", "kind"], name="reminder_once")]


class MaintenanceNotice(models.Model):
    """A failure to maintain (§ 380-14 E) — a case of kind "maintenance" on the site."""

    case = models.OneToOneField(Case, on_delete=models.PROTECT, related_name="maintenance_notice")
    site = models.ForeignKey(Site, on_delete=models.PROTECT, related_name="maintenance_notices")
    bmp = models.ForeignKey(Bmp, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    noticed_on = models.DateField()
    violation = models.TextField()
    corrective_work = models.TextField()
    corrected_on = models.DateField(null=True, blank=True)
    verified_note = models.TextField(blank=True)
    referred_on = models.DateField(null=True, blank=True)


class OwnershipChange(models.Model):
    """§ 380-14 F(1): the owners notify the Director of changes in ownership or financial responsibility."""

    site = models.ForeignKey(Site, on_delete=models.PROTECT, related_name="ownership_changes")
    notified_on = models.DateField()
    effective_on = models.DateField()
    role = models.CharField(max_length=12, choices=PartyRole.choices)
    from_name = models.CharField(max_length=200)
    to_name = models.CharField(max_length=200)
    to_address = models.TextField(blank=True)
    deed_reference = models.CharField(max_length=100, blank=True)
    recorded_by = models.ForeignKey(USER, null=True, on_delete=models.PROTECT, related_name="+")


class PlanAmendment(models.Model):
    """§ 380-14 F(2): the maintenance schedule amended in writing, signed by all responsible parties, by
    mutual agreement with the Director."""

    plan = models.ForeignKey(OMPlan, on_delete=models.PROTECT, related_name="amendments")
    description = models.TextField()
    signed_by = models.ManyToManyField(ResponsibleParty, related_name="+")
    director_agreed_on = models.DateField()
    effective_on = models.DateField()
    document = models.ForeignKey(CaseDocument, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    recorded_by = models.ForeignKey(USER, null=True, on_delete=models.PROTECT, related_name="+")
