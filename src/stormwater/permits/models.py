"""The permit file (Ch. 380 § 380-10) on top of the shared case (cases.Case)."""
from __future__ import annotations

from django.conf import settings
from django.db import models

from stormwater.appendonly import AppendOnlyModel
from stormwater.cases.models import Case, CaseDocument
from stormwater.parcels.models import Owner, Parcel


class PermitFeeSchedule(models.Model):
    """Fees the DPW Director establishes (§ 380-10 G(1)), in force from a date. The text sets no amounts."""

    label = models.CharField(max_length=200)
    effective_from = models.DateField(db_index=True)
    application_fee = models.DecimalField(max_digits=14, decimal_places=2)
    inspection_fee_per_acre = models.DecimalField(max_digits=14, decimal_places=2)
    technical_review_fee_per_acre = models.DecimalField(max_digits=14, decimal_places=2)
    is_demo = models.BooleanField(default=False, help_text="demo values, not adopted by the Director")

    class Meta:
        ordering = ["-effective_from", "-id"]


class ProjectType(models.TextChoices):
    NEW = "new", "New development"           # definitions, "new development"
    REDEVELOPMENT = "redevelopment", "Redevelopment"


class DecisionKind(models.TextChoices):
    # § 380-10 I(1)(a)–(c)
    APPROVE = "approve", "Approval"
    APPROVE_WITH_CONDITIONS = "approve_conditions", "Approval with conditions, modifications or restrictions"
    DISAPPROVE = "disapprove", "Disapproval"
    # § 380-10 D and G(2)(d)
    DENY_INCOMPLETE = "deny_incomplete", "Denial: administratively incomplete"
    DENY_NONPAYMENT = "deny_nonpayment", "Denial: consultant fee not paid"


class PermitApplication(models.Model):
    case = models.OneToOneField(Case, on_delete=models.PROTECT, related_name="permit")
    # § 380-10 B(1): "While the applicant can be a representative, the permittee must be the owner of the site."
    owner = models.ForeignKey(Owner, null=True, blank=True, on_delete=models.PROTECT, related_name="permit_applications")
    owner_name = models.CharField(max_length=200, help_text="The permittee: the owner of the site")
    owner_address = models.TextField(blank=True)
    agent_name = models.CharField(max_length=200, blank=True, help_text="The owner's agent, if an agent files")
    site_address = models.CharField(max_length=300)
    parcels = models.ManyToManyField(Parcel, blank=True, related_name="permit_applications")
    description = models.TextField()
    project_type = models.CharField(max_length=20, choices=ProjectType.choices, default=ProjectType.NEW)
    disturbance_sqft = models.DecimalField(max_digits=14, decimal_places=2)
    determination = models.JSONField(default=dict, blank=True, help_text="applicability (rules.applicability)")
    # Segmentation flagged for the Director (§ 380-4 A) and the Director's finding.
    segmentation_flagged = models.BooleanField(default=False)
    segmentation_finding = models.CharField(max_length=20, blank=True,
                                            choices=[("one_project", "One project"), ("separate", "Separate projects")])
    segmentation_reason = models.TextField(blank=True)
    # § 380-9 A / § 380-10 F: Wetlands Protection Act jurisdiction (Conservation Commission).
    wetlands_jurisdiction = models.BooleanField(default=False)
    # § 380-10 H(3): a public hearing of another board covers the project → abutter notice waived.
    other_board_hearing = models.CharField(max_length=200, blank=True, help_text="board holding a public hearing")
    planning_board = models.BooleanField(default=False, help_text="the Planning Board reviews the project too")
    autocad_plans = models.BooleanField(default=False, help_text="plans drawn in AutoCAD (§ 380-10 B(2))")
    paper_copies = models.PositiveSmallIntegerField(default=0, help_text="paper copies received (§ 380-10 B(1)(d))")
    # Fees (§ 380-10 G(1)): a snapshot of the schedule in force on filing.
    fee_schedule = models.ForeignKey(PermitFeeSchedule, null=True, blank=True, on_delete=models.PROTECT)
    fees = models.JSONField(default=list, blank=True)
    fees_total = models.DecimalField(max_digits=14, decimal_places=2, null=True, blank=True)
    fees_paid_on = models.DateField(null=True, blank=True)
    fees_receipt = models.CharField(max_length=60, blank=True)
    # Abutters (§ 380-10 B(1)(b)–(c), H).
    abutter_list_certified_on = models.DateField(null=True, blank=True)
    abutters_mailed_on = models.DateField(null=True, blank=True)
    # Decision (§ 380-10 I).
    decision = models.CharField(max_length=30, choices=DecisionKind.choices, blank=True)
    decided_on = models.DateField(null=True, blank=True)
    findings = models.TextField(blank=True)
    standards_cited = models.JSONField(default=list, blank=True)
    order_of_conditions = models.CharField(max_length=200, blank=True,
                                           help_text="Conservation Commission Order of Conditions serving as the "
                                                     "permit (§ 380-9 A)")
    issued_on = models.DateField(null=True, blank=True)
    started_on = models.DateField(null=True, blank=True, help_text="start of construction (§ 380-10 K)")
    # issue 18: the permit lists the plan sheets it approves ([{"number", "title", "revision", "date"}]) and is signed
    # by the Director who decided (name printed under the signature line)
    approved_sheets = models.JSONField(default=list, blank=True)
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                   related_name="+")
    refund_payee = models.CharField(max_length=200, blank=True)

    def __str__(self) -> str:
        return f"{self.case.number} {self.site_address}"

    @property
    def applicability_label(self) -> str:
        """The stored determination's outcome as people read it (rules/applicability.py ``Outcome.label``)."""
        from stormwater.rules.applicability import Outcome

        raw = (self.determination or {}).get("outcome") or ""
        try:
            label = Outcome(raw).label
        except ValueError:
            return raw.replace("_", " ").capitalize()
        letter = (self.determination or {}).get("exemption")
        return label.replace("§ 380-5", f"§ 380-5 {letter}") if raw == Outcome.EXEMPT and letter else label

    @property
    def disturbance_acres(self):
        from stormwater.rules.applicability import SQFT_PER_ACRE

        return (self.disturbance_sqft / SQFT_PER_ACRE).quantize(self.disturbance_sqft.__class__("0.01"))


class ChecklistItem(models.Model):
    """One item of the application package (§ 380-10 B). Satisfied by an upload, by staff
    confirmation, or not applicable / waived with the reason."""

    application = models.ForeignKey(PermitApplication, on_delete=models.CASCADE, related_name="checklist")
    key = models.CharField(max_length=40)
    satisfied_on = models.DateField(null=True, blank=True)
    document = models.ForeignKey(CaseDocument, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    not_applicable_reason = models.CharField(max_length=300, blank=True)
    note = models.CharField(max_length=300, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["application", "key"], name="checklist_item_once")]
        ordering = ["id"]

    @property
    def done(self) -> bool:
        return self.satisfied_on is not None or bool(self.not_applicable_reason)


class NoticeRecipient(models.Model):
    """Who receives the filing notice (§ 380-10 F). Email is sent only where an address is configured."""

    key = models.CharField(max_length=40, unique=True)
    name = models.CharField(max_length=200)
    email = models.EmailField(blank=True)
    active = models.BooleanField(default=True)

    class Meta:
        ordering = ["id"]


class FilingNotice(models.Model):
    application = models.ForeignKey(PermitApplication, on_delete=models.PROTECT, related_name="filing_notices")
    recipient_key = models.CharField(max_length=40)
    recipient_name = models.CharField(max_length=200)
    email = models.EmailField(blank=True)
    sent_on = models.DateField()
    document = models.ForeignKey(CaseDocument, on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["id"]


class InformationRequest(models.Model):
    """§ 380-10 E: information the Director requests, and the applicant's response."""

    application = models.ForeignKey(PermitApplication, on_delete=models.PROTECT, related_name="info_requests")
    requested_on = models.DateField()
    items = models.TextField()
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+")
    document = models.ForeignKey(CaseDocument, null=True, on_delete=models.PROTECT, related_name="+")
    responded_on = models.DateField(null=True, blank=True)
    response = models.TextField(blank=True)

    class Meta:
        ordering = ["id"]


class Abutter(models.Model):
    """An abutter from the list certified by the Assessors (§ 380-10 B(1)(b))."""

    application = models.ForeignKey(PermitApplication, on_delete=models.CASCADE, related_name="abutters")
    name = models.CharField(max_length=200)
    mailing_address = models.TextField()
    parcel_id = models.CharField(max_length=40, blank=True)
    certified_mail_number = models.CharField(max_length=40, blank=True)

    class Meta:
        ordering = ["id"]


class ConsultantEngagement(models.Model):
    """An outside consultant under MGL c.44 §53G (§ 380-10 G(2)(b)–(e))."""

    class State(models.TextChoices):
        FEE_REQUESTED = "fee_requested", "Fee requested"
        ENGAGED = "engaged", "Fee paid: engaged"
        DISQUALIFIED = "disqualified", "Disqualified by the Select Board"

    application = models.ForeignKey(PermitApplication, on_delete=models.PROTECT, related_name="consultants")
    name = models.CharField(max_length=200)
    firm = models.CharField(max_length=200, blank=True)
    # § 380-10 G(2)(e): minimum qualifications: an educational degree or three or more years of practice.
    degree = models.CharField(max_length=200, blank=True)
    years_of_practice = models.PositiveSmallIntegerField(default=0)
    services = models.TextField(help_text="technical or legal review, on-site monitoring … (§ 380-10 G(2)(b))")
    fee = models.DecimalField(max_digits=14, decimal_places=2)
    notice_on = models.DateField(help_text="the day the notice was mailed or delivered (§ 380-10 G(2)(c))")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                             related_name="consultant_engagements", help_text="the consultant's sign-in, if any")
    state = models.CharField(max_length=20, choices=State.choices, default=State.FEE_REQUESTED)
    paid_on = models.DateField(null=True, blank=True)
    document = models.ForeignKey(CaseDocument, null=True, on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["id"]


class ConsultantAppeal(models.Model):
    """Appeal of the selection to the Select Board (§ 380-10 G(2)(e))."""

    class Ground(models.TextChoices):
        CONFLICT = "conflict", "Conflict of interest"
        QUALIFICATIONS = "qualifications", "Does not possess the minimum required qualifications"

    class Outcome(models.TextChoices):
        UPHELD = "upheld", "Selection upheld (appeal denied)"
        DISQUALIFIED = "disqualified", "Consultant disqualified"

    engagement = models.ForeignKey(ConsultantEngagement, on_delete=models.PROTECT, related_name="appeals")
    received_on = models.DateField(help_text="received by the Select Board, copy to the Director")
    ground = models.CharField(max_length=20, choices=Ground.choices)
    statement = models.TextField()
    decided_on = models.DateField(null=True, blank=True)
    outcome = models.CharField(max_length=20, choices=Outcome.choices, blank=True)
    decision_note = models.TextField(blank=True)

    class Meta:
        ordering = ["id"]


class AccountEntryKind(models.TextChoices):
    DEPOSIT = "deposit", "Deposit (consultant fee received)"
    INTEREST = "interest", "Interest credited"
    EXPENDITURE = "expenditure", "Expenditure (consultant services for this project)"
    REFUND = "refund", "Refund of the balance"


class AccountEntry(AppendOnlyModel):
    """The project's share of the MGL c.44 §53G special account (§ 380-10 G(2)(a), (f)). Append-only:
    amounts are positive, the kind gives the sign, the balance is a sum."""

    application = models.ForeignKey(PermitApplication, on_delete=models.PROTECT, related_name="account_entries")
    kind = models.CharField(max_length=20, choices=AccountEntryKind.choices)
    amount = models.DecimalField(max_digits=14, decimal_places=2)
    on = models.DateField()
    memo = models.CharField(max_length=300)
    payee = models.CharField(max_length=200, blank=True)
    reference = models.CharField(max_length=60, blank=True, help_text="receipt, invoice or check number")
    recorded_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["on", "id"]
        constraints = [models.CheckConstraint(condition=models.Q(amount__gt=0), name="account_entry_positive")]


class PermitCondition(models.Model):
    """A condition, modification or restriction of an approval (§ 380-10 I(1)(b))."""

    application = models.ForeignKey(PermitApplication, on_delete=models.PROTECT, related_name="conditions")
    seq = models.PositiveSmallIntegerField()
    text = models.TextField()

    class Meta:
        ordering = ["seq"]


class ProjectChange(models.Model):
    """§ 380-10 J: written notice of a change before it happens; the Director's determination."""

    application = models.ForeignKey(PermitApplication, on_delete=models.PROTECT, related_name="changes")
    notified_on = models.DateField()
    description = models.TextField()
    determined_on = models.DateField(null=True, blank=True)
    significant = models.BooleanField(null=True)
    interim_measures = models.TextField(blank=True)
    amended_case = models.ForeignKey(Case, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    note = models.TextField(blank=True)

    class Meta:
        ordering = ["id"]


class Waiver(models.Model):
    """A waiver request (§ 380-8) — a case of kind "waiver" within the permit file."""

    case = models.OneToOneField(Case, on_delete=models.PROTECT, related_name="waiver")
    application = models.ForeignKey(PermitApplication, on_delete=models.PROTECT, related_name="waivers")
    requirement = models.CharField(max_length=300, help_text="the requirement to be waived, with its section")
    justification = models.TextField()
    public_comment_from = models.DateField(null=True, blank=True)
    public_comment_note = models.TextField(blank=True)
    info_requested = models.TextField(blank=True)
    decision_note = models.TextField(blank=True)


class RuleHearing(models.Model):
    """The Director's rule-making (§ 380-7): a public hearing advertised ≥ 7 days before."""

    title = models.CharField(max_length=300)
    summary = models.TextField()
    newspaper = models.CharField(max_length=200)
    advertised_on = models.DateField()
    hearing_at = models.DateTimeField()
    location = models.CharField(max_length=300)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-hearing_at"]


class StandardCondition(models.Model):
    """A standard permit condition the Director keeps (issue 30; § 380-10 I(1)(b)): ticked on the decision form, its
    text is copied into the decision's conditions, edited there, and kept as the decision's ``PermitCondition``.
    ``citation`` names the section of the rules it comes from; a retired one (``active`` off) is no longer offered.
    ``key`` marks the rows the migration seeds (empty for the Director's own)."""

    key = models.CharField(max_length=60, blank=True, db_index=True)
    title = models.CharField(max_length=120)
    text = models.TextField()
    citation = models.CharField(max_length=80, help_text="the section of the rules it comes from, e.g. § 380-16 B")
    active = models.BooleanField(default=True)
    seq = models.PositiveSmallIntegerField(default=0, help_text="its place in the list")

    class Meta:
        ordering = ["seq", "id"]

    def __str__(self):
        return f"{self.title} ({self.citation})"
