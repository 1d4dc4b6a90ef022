"""Construction oversight of a permitted project (Ch. 380 § 380-15 – § 380-19) on the shared case.

One ``ConstructionProject`` per approved permit; its ``case`` (kind "construction") carries the status,
documents (reports, notices, orders, the certificate), the timeline and the clocks.
"""
from __future__ import annotations

from django.conf import settings
from django.db import models

from stormwater.appendonly import AppendOnlyModel
from stormwater.cases.models import Case, CaseDocument
from stormwater.permits.models import PermitApplication
from stormwater.rules.inspections import Frequency, Frozen

USER = settings.AUTH_USER_MODEL


class ConstructionProject(models.Model):
    case = models.OneToOneField(Case, on_delete=models.PROTECT, related_name="construction")
    permit = models.OneToOneField(PermitApplication, on_delete=models.PROTECT, related_name="construction")
    # § 380-16 C(3): the project design engineer (a Massachusetts registered PE) does all inspections other
    # than erosion control and gives 24 hours' notice of each.
    design_engineer = models.ForeignKey(USER, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    design_engineer_name = models.CharField(max_length=200, blank=True)
    design_engineer_pe = models.CharField(max_length=40, blank=True, help_text="MA PE registration number")
    # § 380-16 C(2): the erosion and sediment control inspector (CGP 2022 qualifications).
    esc_inspector = models.ForeignKey(USER, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    esc_inspector_name = models.CharField(max_length=200, blank=True)
    esc_inspector_credentials = models.CharField(max_length=200, blank=True)
    # § 380-16 A: the Director decides whether a pre-construction meeting is needed.
    preconstruction_required = models.BooleanField(default=True)
    # § 380-17 A: surety unless surety is required on another permit for the same project.
    surety_required = models.BooleanField(default=True)
    surety_not_required_reason = models.CharField(max_length=300, blank=True)
    # CGP 2022 Part 4 (rules.inspections): the chosen frequency and the conditions that change it.
    frequency = models.CharField(max_length=20, choices=[(f.value, f.value) for f in Frequency],
                                 default=Frequency.EVERY_7_DAYS.value)
    sensitive_waters = models.BooleanField(default=False, help_text="discharges to impaired or Tier 2/2.5/3 waters")
    stabilized_on = models.DateField(null=True, blank=True, help_text="stabilization completed (CGP 4.4.1)")
    frozen = models.CharField(max_length=20, choices=[(f.value, f.value) for f in Frozen], default=Frozen.NO.value)
    plan_on_site_confirmed_on = models.DateField(null=True, blank=True, help_text="§ 380-16 B")
    started_on = models.DateField(null=True, blank=True)
    certificate_on = models.DateField(null=True, blank=True)
    certificate_document = models.ForeignKey(CaseDocument, null=True, blank=True, on_delete=models.PROTECT,
                                             related_name="+")
    # The site's position (WGS84 degrees) for the inspector's map and route; blank = the centroid of the permit's
    # parcel where the GIS has its shape (construction.field.site_position).
    latitude = models.FloatField(null=True, blank=True)
    longitude = models.FloatField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.case.number} {self.permit.site_address}"


class PreconstructionMeeting(models.Model):
    """§ 380-16 A: applicant, technical representative, general contractor meet the Director."""

    project = models.ForeignKey(ConstructionProject, on_delete=models.PROTECT, related_name="meetings")
    held_on = models.DateField()
    attendees = models.TextField()
    notes = models.TextField(blank=True)
    recorded_by = models.ForeignKey(USER, null=True, on_delete=models.PROTECT, related_name="+")


class InspectionKind(models.TextChoices):
    # § 380-16 C(4)(a)–(f)
    INITIAL_SITE = "initial_site", "Initial site inspection (before plan approval)"
    EROSION_PRE_START = "erosion_pre_start", "Erosion control inspection before the start of construction"
    EROSION_ROUTINE = "erosion_routine", "Erosion control inspection (CGP 2022 Part 4 frequency)"
    EROSION_STORM = "erosion_storm", "Erosion control inspection after a storm (CGP 2022 Part 4)"
    RANDOM = "random", "Random inspection by the Director"
    PRE_BURY = "pre_bury", "Pre-bury inspection (before backfilling)"
    WALK_THROUGH = "walk_through", "Walk-through inspection (punch list)"
    FINAL = "final", "Final inspection"
    PERIODIC = "periodic", "Periodic inspection"


EROSION_KINDS = {InspectionKind.EROSION_PRE_START, InspectionKind.EROSION_ROUTINE, InspectionKind.EROSION_STORM}
# The inspections on the CGP 2022 Part 4.2 routine schedule; a storm inspection does not move it.
ROUTINE_KINDS = {InspectionKind.EROSION_PRE_START, InspectionKind.EROSION_ROUTINE}
# § 380-16 C(3): "All other inspections shall be conducted by the project design engineer … [who] shall
# notify the DPW Director at least 24 hours prior to each inspection."
ENGINEER_KINDS = {InspectionKind.PRE_BURY, InspectionKind.WALK_THROUGH, InspectionKind.FINAL, InspectionKind.PERIODIC}


class InspectionNotice(models.Model):
    """The design engineer's notice to the Director of an inspection (§ 380-16 C(3))."""

    project = models.ForeignKey(ConstructionProject, on_delete=models.PROTECT, related_name="notices")
    kind = models.CharField(max_length=30, choices=InspectionKind.choices)
    scheduled_at = models.DateTimeField()
    noticed_at = models.DateTimeField()
    given_by = models.ForeignKey(USER, null=True, on_delete=models.PROTECT, related_name="+")
    note = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["scheduled_at", "id"]


class RainEvent(models.Model):
    """A 24-hour precipitation total at the site (CGP 2022 Part 4.2(b), 4.3.1 triggers)."""

    project = models.ForeignKey(ConstructionProject, on_delete=models.PROTECT, related_name="rain_events")
    ended_at = models.DateTimeField()
    rain_in = models.DecimalField(max_digits=5, decimal_places=2, default=0)
    snow_in = models.DecimalField(max_digits=5, decimal_places=2, default=0)
    source = models.CharField(max_length=200, help_text="rain gauge, NOAA station …")
    recorded_by = models.ForeignKey(USER, null=True, on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["ended_at", "id"]


class Evaluation(models.TextChoices):
    # § 380-16 C(4)(f)[1][g]
    COMPLIANT = "compliant", "In compliance with the permit and the approved plan"
    VIOLATIONS = "violations", "Violations: failure to comply with the approved plan"


class SignatureMethod(models.TextChoices):
    DRAWN = "drawn", "Signed on the screen"
    TYPED = "typed", "Typed name attestation"


class Inspection(models.Model):
    """A written inspection report with every § 380-16 C(4)(f)[1] item. Never edited once filed."""

    project = models.ForeignKey(ConstructionProject, on_delete=models.PROTECT, related_name="inspections")
    kind = models.CharField(max_length=30, choices=InspectionKind.choices)
    inspected_at = models.DateTimeField()                                   # [a]
    location = models.CharField(max_length=300)                             # [a]
    inspector_name = models.CharField(max_length=200)                       # [b]
    inspector_credentials = models.CharField(max_length=200)                # [b]
    last_inspection_on = models.DateField(null=True, blank=True)            # [d]; null = first inspection
    weather = models.CharField(max_length=200)                              # [e]
    precipitation_24h_in = models.DecimalField(max_digits=5, decimal_places=2)  # [f]
    evaluation = models.CharField(max_length=20, choices=Evaluation.choices)    # [g]
    findings = models.TextField(blank=True)
    corrective_steps = models.TextField(blank=True)                         # [h]
    notice = models.ForeignKey(InspectionNotice, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    storm = models.ForeignKey(RainEvent, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    structures = models.TextField(blank=True, help_text="pre-bury: structures inspected before backfill")
    # Final inspection (§ 380-16 C(4)(e)[1]–[2]): full dated video of all pipes; evaluation in an actual storm.
    video_recorded_on = models.DateField(null=True, blank=True)
    video_reference = models.CharField(max_length=300, blank=True)
    storm_evaluated_on = models.DateField(null=True, blank=True)
    storm_evaluation_rain_in = models.DecimalField(max_digits=5, decimal_places=2, null=True, blank=True)
    filed_by = models.ForeignKey(USER, null=True, on_delete=models.PROTECT, related_name="+")
    filed_at = models.DateTimeField(auto_now_add=True)
    document = models.ForeignKey(CaseDocument, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    # A report written offline carries the key its browser generated; the unique constraint makes a report sent
    # twice (a retry after a lost answer, two tabs) one report (construction.reporting).
    client_key = models.CharField(max_length=64, null=True, blank=True, unique=True)
    # The inspector's signature: drawn on the screen (PNG kept in the case file) or a typed name attestation.
    signature_method = models.CharField(max_length=10, choices=SignatureMethod.choices, blank=True)
    signed_name = models.CharField(max_length=200, blank=True)
    signature_document = models.ForeignKey(CaseDocument, null=True, blank=True, on_delete=models.PROTECT,
                                           related_name="+")
    # CGP 2022 Part 4.5: areas unsafe to inspect at the time of the inspection are not inspected; the report says
    # what made them unsafe and where (issue 30). Blank = the whole site was inspected.
    unsafe_conditions = models.TextField(blank=True)
    unsafe_locations = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["inspected_at", "id"]

    @property
    def unsafe(self) -> bool:
        return bool(self.unsafe_conditions)


class ControlKind(models.TextChoices):
    # The erosion and sediment controls of an approved plan (EPA CGP 2022 Part 2; Ch. 380 § 380-11 C)
    PERIMETER = "perimeter", "Perimeter control (silt fence, fiber roll, berm)"
    EXIT = "exit", "Stabilized construction exit"
    INLET = "inlet", "Storm drain inlet protection"
    SEDIMENT_BASIN = "sediment_basin", "Sediment basin or trap"
    STOCKPILE = "stockpile", "Stockpile protection"
    STABILIZATION = "stabilization", "Soil stabilization (seed, mulch, blanket)"
    DEWATERING = "dewatering", "Dewatering control"
    WASHOUT = "washout", "Concrete washout"
    OTHER = "other", "Other control"


class SiteControl(models.Model):
    """An erosion or sediment control on the site, as the approved plan places it; a row of every erosion-control
    inspection's checklist until it is removed."""

    project = models.ForeignKey(ConstructionProject, on_delete=models.PROTECT, related_name="controls")
    kind = models.CharField(max_length=20, choices=ControlKind.choices)
    name = models.CharField(max_length=200)
    location = models.CharField(max_length=200, blank=True)
    added_on = models.DateField()
    removed_on = models.DateField(null=True, blank=True)
    added_by = models.ForeignKey(USER, null=True, on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.name


class Condition(models.TextChoices):
    IN_PLACE = "in_place", "In place"
    NEEDS_MAINTENANCE = "needs_maintenance", "Needs maintenance"
    FAILED = "failed", "Failed"
    UNSAFE = "unsafe", "Unsafe to inspect"  # CGP 2022 Part 4.5: not inspected; the report says why and where


class ChecklistRow(models.Model):
    """One control or BMP as the inspector found it (CGP 2022 Part 4.6 “all stormwater controls”; Part 5 corrective
    action for one that needs maintenance or failed). ``label`` keeps the name as it was at the inspection."""

    inspection = models.ForeignKey(Inspection, on_delete=models.PROTECT, related_name="rows")
    control = models.ForeignKey(SiteControl, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    bmp = models.ForeignKey("stewardship.Bmp", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    label = models.CharField(max_length=300)
    condition = models.CharField(max_length=20, choices=Condition.choices)
    note = models.TextField(blank=True)

    class Meta:
        ordering = ["id"]


def photo_thumb_upload_to(instance: "InspectionPhoto", filename: str) -> str:
    from stormwater.cases.models import case_upload_to

    return case_upload_to(instance.document, "thumb-" + filename)


class InspectionPhoto(models.Model):
    """A photo of the report (``row`` empty) or of one finding. The original is a case document (content-checked);
    the time and position are read from its EXIF, never from the browser."""

    inspection = models.ForeignKey(Inspection, on_delete=models.PROTECT, related_name="photos")
    row = models.ForeignKey(ChecklistRow, null=True, blank=True, on_delete=models.PROTECT, related_name="photos")
    document = models.ForeignKey(CaseDocument, on_delete=models.PROTECT, related_name="+")
    thumbnail = models.FileField(upload_to=photo_thumb_upload_to, max_length=300)
    width = models.PositiveIntegerField()
    height = models.PositiveIntegerField()
    taken_at = models.DateTimeField(null=True, blank=True, help_text="EXIF DateTimeOriginal")
    latitude = models.FloatField(null=True, blank=True, help_text="EXIF GPS, WGS84")
    longitude = models.FloatField(null=True, blank=True, help_text="EXIF GPS, WGS84")
    caption = models.CharField(max_length=300, blank=True, help_text="typed by the inspector under the photo")

    class Meta:
        ordering = ["id"]


class PunchItem(models.Model):
    """An item of the walk-through punch list (§ 380-16 C(4)(d))."""

    project = models.ForeignKey(ConstructionProject, on_delete=models.PROTECT, related_name="punch_items")
    inspection = models.ForeignKey(Inspection, on_delete=models.PROTECT, related_name="punch_items")
    text = models.CharField(max_length=300)
    done_on = models.DateField(null=True, blank=True)
    done_note = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["id"]


class DisturbedArea(models.Model):
    """A portion of the site; stabilized no more than 7 days after work there ceased (§ 380-11 C(3)(a))."""

    project = models.ForeignKey(ConstructionProject, on_delete=models.PROTECT, related_name="areas")
    name = models.CharField(max_length=200)
    ceased_on = models.DateField(null=True, blank=True)
    stabilized_on = models.DateField(null=True, blank=True)

    class Meta:
        ordering = ["id"]


class FollowUp(models.TextChoices):
    # What a finding in the field becomes (issue 30): a failed control, a notice of violation (§ 380-16 C(4)(e)[5]);
    # a control that needs maintenance, a corrective action (EPA CGP 2022 Part 5), no notice.
    NOTICE = "notice", "Notice of violation"
    CORRECTIVE = "corrective", "Corrective action"


class Violation(models.Model):
    """A failure to comply with the approved plan: written notice with the corrective actions
    (§ 380-16 C(4)(e)[5]); corrected by the permittee, approved by the Director. With ``kind`` corrective, a
    corrective action instead (CGP 2022 Part 5; issue 30): opened from a row that needs maintenance, no written
    notice, done when its completion is recorded (no Director's approval); never counted as a violation
    (``enforcement._unresolved``)."""

    kind = models.CharField(max_length=12, choices=FollowUp.choices, default=FollowUp.NOTICE)
    project = models.ForeignKey(ConstructionProject, on_delete=models.PROTECT, related_name="violations")
    inspection = models.ForeignKey(Inspection, null=True, blank=True, on_delete=models.PROTECT,
                                   related_name="violations")
    area = models.ForeignKey(DisturbedArea, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    # The failed checklist row the notice was opened from (issue 30): its finding and its photos carried over.
    row = models.ForeignKey(ChecklistRow, null=True, blank=True, on_delete=models.PROTECT, related_name="violations")
    # The re-inspection scheduled to see the correction (on the inspector's week list until a report of the site
    # inspected on or after that day is filed).
    reinspect_at = models.DateTimeField(null=True, blank=True)
    found_on = models.DateField()
    description = models.TextField()
    corrective_actions = models.TextField()
    correct_by = models.DateField()
    notice_document = models.ForeignKey(CaseDocument, null=True, on_delete=models.PROTECT, related_name="+")
    corrected_on = models.DateField(null=True, blank=True)
    corrected_note = models.TextField(blank=True)
    approved_on = models.DateField(null=True, blank=True)
    approved_by = models.ForeignKey(USER, null=True, blank=True, on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["found_on", "id"]

    @property
    def resolved(self) -> bool:
        if self.kind == FollowUp.CORRECTIVE:
            return self.corrected_on is not None
        return self.corrected_on is not None and self.approved_on is not None

    @property
    def ref(self) -> str:
        """V12 for a notice of violation, CA12 for a corrective action."""
        return f"{'CA' if self.kind == FollowUp.CORRECTIVE else 'V'}{self.pk}"


class StopWorkOrder(models.Model):
    """§ 380-16 C(4)(e)[5]: all construction activity stops until the violations are corrected and the
    work previously completed is approved by the Director."""

    project = models.ForeignKey(ConstructionProject, on_delete=models.PROTECT, related_name="stop_work_orders")
    issued_on = models.DateField()
    reason = models.TextField()
    violations = models.ManyToManyField(Violation, related_name="stop_work_orders")
    document = models.ForeignKey(CaseDocument, null=True, on_delete=models.PROTECT, related_name="+")
    lifted_on = models.DateField(null=True, blank=True)
    lifted_by = models.ForeignKey(USER, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    work_approved_note = models.TextField(blank=True)

    class Meta:
        ordering = ["issued_on", "id"]


class EnforcementReferral(models.Model):
    """§ 380-16 C(4)(f)[2], § 380-19: enforcement at the Director's discretion; civil and criminal remedies."""

    project = models.ForeignKey(ConstructionProject, on_delete=models.PROTECT, related_name="referrals")
    referred_on = models.DateField()
    reason = models.TextField()
    document = models.ForeignKey(CaseDocument, null=True, on_delete=models.PROTECT, related_name="+")
    resolved_on = models.DateField(null=True, blank=True)
    resolution = models.TextField(blank=True)


class SuretyForm(models.TextChoices):
    # § 380-17 A
    BOND = "bond", "Surety bond"
    LETTER_OF_CREDIT = "loc", "Irrevocable letter of credit"
    CASH = "cash", "Cash"
    OTHER = "other", "Other acceptable security"


class Surety(models.Model):
    """§ 380-17 A: posted before land disturbance; not less than the estimated construction cost of the
    stormwater management facility including prevailing wage rates; form approved by Town Counsel and
    Finance; provisions for forfeiture."""

    project = models.OneToOneField(ConstructionProject, on_delete=models.PROTECT, related_name="surety")
    form = models.CharField(max_length=10, choices=SuretyForm.choices)
    issuer = models.CharField(max_length=200, blank=True)
    reference = models.CharField(max_length=100, blank=True)
    amount = models.DecimalField(max_digits=14, decimal_places=2)
    estimated_cost = models.DecimalField(max_digits=14, decimal_places=2)
    prevailing_wage_included = models.BooleanField(default=False)
    counsel_approved_on = models.DateField()
    finance_approved_on = models.DateField()
    posted_on = models.DateField()
    document = models.ForeignKey(CaseDocument, null=True, blank=True, on_delete=models.PROTECT, related_name="+")


class SuretyEntryKind(models.TextChoices):
    RELEASE = "release", "Release"
    FORFEITURE = "forfeiture", "Forfeiture (used to complete or correct the work)"


class SuretyEntry(AppendOnlyModel):
    """A release (phase or final) or a forfeiture draw. Append-only: the held amount is a sum."""

    surety = models.ForeignKey(Surety, on_delete=models.PROTECT, related_name="entries")
    kind = models.CharField(max_length=12, choices=SuretyEntryKind.choices)
    amount = models.DecimalField(max_digits=14, decimal_places=2)
    on = models.DateField()
    phase = models.CharField(max_length=200, blank=True)
    reason = models.TextField()
    final = models.BooleanField(default=False)
    recorded_by = models.ForeignKey(USER, null=True, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["on", "id"]
        constraints = [models.CheckConstraint(condition=models.Q(amount__gt=0), name="surety_entry_positive")]


class AsBuilt(models.Model):
    """§ 380-15, § 380-10 L: full-size plans with all final grades and deviations, certified by the project
    design engineer (a Massachusetts registered PE); one paper copy and a PDF."""

    project = models.ForeignKey(ConstructionProject, on_delete=models.PROTECT, related_name="as_builts")
    document = models.ForeignKey(CaseDocument, on_delete=models.PROTECT, related_name="+")
    pe_name = models.CharField(max_length=200)
    pe_license = models.CharField(max_length=40)
    certified_on = models.DateField()
    paper_copy_received_on = models.DateField()
    full_size = models.BooleanField(default=False)
    final_grades = models.BooleanField(default=False)
    deviations = models.TextField(help_text="all changes from the approved plans, or “none”")
    accepted_on = models.DateField(null=True, blank=True)
    accepted_by = models.ForeignKey(USER, null=True, blank=True, on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["id"]
