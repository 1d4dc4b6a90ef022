"""Relief under Ch. 295 Art. IV: the credit policy, credit applications and grants, abatements and
appeals to the Select Board. Each application is a ``cases.Case`` (status, parties, documents,
timeline, clocks); these models hold what is particular to each remedy."""
from __future__ import annotations

from django.conf import settings
from django.db import models

from stormwater.cases.models import Case
from stormwater.parcels.models import Parcel
from stormwater.receivables.models import CommitmentLine
from stormwater.utility.models import MONEY, Bill
from stormwater.rules.calendar import fmt_day, roll_forward

PCT = dict(max_digits=6, decimal_places=3)


class CreditPolicy(models.Model):
    """The stormwater management credit policy (credits ¶A): proposed by the Town Manager, approved by
    the Select Board, in force from ``effective_from``. Never edited after entry: a change is a new policy."""

    label = models.CharField(max_length=200)
    approved_on = models.DateField(help_text="Select Board approval (credits ¶A)")
    effective_from = models.DateField(db_index=True)
    max_combined_percent = models.DecimalField(**PCT, default=50,
                                               help_text="cap on all credits of one parcel together [%]")
    is_demo = models.BooleanField(default=False, help_text="demo values, not an approved Longmeadow policy")
    notes = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                   related_name="+")

    class Meta:
        ordering = ["-effective_from", "-id"]

    def __str__(self) -> str:
        return f"{self.label} (from {fmt_day(self.effective_from)}){' — demo values' if self.is_demo else ''}"


class CreditCategory(models.TextChoices):
    """The kinds of credit the ordinance names (credits ¶A)."""

    IMPROVEMENTS = "improvements", "Stormwater improvements (BMPs on the property)"
    PROTECTED_LAND = "protected_land", "Undeveloped land with protected status"
    MULTIPLE_UNDEVELOPED = "multiple_undeveloped", "Multiple undeveloped parcels under single ownership"
    SENIOR = "senior", "Seniors"
    LOW_INCOME = "low_income", "Low income"
    EDUCATION = "education", "Educational programs"
    OTHER = "other", "Other"


class AmountKind(models.TextChoices):
    PERCENT = "percent", "Percent of the fee"
    FIXED = "fixed", "Fixed dollars a year"


class CreditType(models.Model):
    """One credit of a policy: who is eligible, what an application needs, how much, for how long."""

    policy = models.ForeignKey(CreditPolicy, on_delete=models.PROTECT, related_name="types")
    code = models.CharField(max_length=40)
    category = models.CharField(max_length=30, choices=CreditCategory.choices)
    name = models.CharField(max_length=200)
    eligibility = models.TextField(help_text="the criteria, in words")
    property_classes = models.JSONField(default=list, blank=True,
                                        help_text="eligible property classes; empty = every class")
    required_documents = models.JSONField(default=list, help_text="[[tag, label], …] an application must include")
    amount_kind = models.CharField(max_length=10, choices=AmountKind.choices, default=AmountKind.PERCENT)
    amount = models.DecimalField(**MONEY, help_text="percent of the fee, or $ a year")
    max_percent = models.DecimalField(**PCT, help_text="cap of this credit [% of the fee]")
    stackable = models.BooleanField(default=True, help_text="adds to other credits; if not, only the largest "
                                                            "non-stackable credit counts")
    duration_months = models.PositiveIntegerField(null=True, blank=True, help_text="empty = until revoked")
    recertify_months = models.PositiveIntegerField(null=True, blank=True,
                                                   help_text="recertification interval; empty = none")

    class Meta:
        ordering = ["policy", "code"]
        constraints = [models.UniqueConstraint(fields=["policy", "code"], name="credit_type_code_once")]

    def __str__(self) -> str:
        return self.name


class Decision(models.TextChoices):
    GRANT = "grant", "Granted in full"
    GRANT_PART = "grant_part", "Granted in part"
    DENY = "deny", "Denied"


class CreditApplication(models.Model):
    """An owner's application for a credit (credits ¶D–¶E)."""

    case = models.OneToOneField(Case, on_delete=models.PROTECT, related_name="credit_application")
    parcel = models.ForeignKey(Parcel, on_delete=models.PROTECT, related_name="credit_applications")
    credit_type = models.ForeignKey(CreditType, on_delete=models.PROTECT, related_name="applications")
    statement = models.TextField(help_text="how the property meets the criteria")
    requested_percent = models.DecimalField(**PCT)
    accepted_on = models.DateField(null=True, blank=True, help_text="complete application accepted (starts 30 days)")
    decision = models.CharField(max_length=12, choices=Decision.choices, blank=True)
    decided_on = models.DateField(null=True, blank=True)
    granted_percent = models.DecimalField(**PCT, null=True, blank=True)
    reasons = models.TextField(blank=True)


class CreditGrant(models.Model):
    """A credit in force on a parcel: applied to bills issued from ``effective_from`` (prospectively)
    until it expires or is revoked (credits ¶C, ¶E). The fee path reads these through
    ``relief.selectors.credit_percent_by_parcel``."""

    application = models.ForeignKey(CreditApplication, on_delete=models.PROTECT, related_name="grants")
    parcel = models.ForeignKey(Parcel, on_delete=models.PROTECT, related_name="credit_grants")
    credit_type = models.ForeignKey(CreditType, on_delete=models.PROTECT, related_name="grants")
    percent = models.DecimalField(**PCT)
    basis = models.CharField(max_length=300, blank=True, help_text="how a fixed-dollar credit became a percent")
    effective_from = models.DateField()
    expires_on = models.DateField(null=True, blank=True, help_text="first day no longer in force")
    recertify_by = models.DateField(null=True, blank=True)
    granted_by = models.CharField(max_length=20, default="director", help_text="director | select_board")
    revoked_on = models.DateField(null=True, blank=True, help_text="first day no longer in force")
    revoke_reason = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["effective_from", "id"]
        indexes = [models.Index(fields=["parcel", "effective_from"])]

    @property
    def recertify_due(self):
        """The owner's last day to recertify (credits ¶C): ``recertify_by`` (the interval counted from the grant or the
        last recertification) rolled forward past a weekend or Massachusetts legal holiday (MGL c.4 §9) — the day the
        case's recertification clock falls due. What the owner's page and letters show and what a lapse is counted
        from (issue 25: a Sunday's credit was revoked as lapsed on the Monday the page showed as the last day)."""
        return roll_forward(self.recertify_by) if self.recertify_by else None


class AbatementGround(models.TextChoices):
    AREA = "area", "Impervious area measured wrong"
    CLASS = "class", "Property class wrong"
    OWNER = "owner", "Not the owner of record / wrong parcel"
    CALCULATION = "calculation", "Fee calculated wrong"
    CREDIT = "credit", "A credit was not applied"
    DUPLICATE = "duplicate", "Billed twice"
    OTHER = "other", "Other"


class Disposition(models.TextChoices):
    REFUND = "refund", "Refund to me"
    CREDIT = "credit", "Credit on my account"


class Abatement(models.Model):
    """An application to abate a paid bill (billing ¶E)."""

    case = models.OneToOneField(Case, on_delete=models.PROTECT, related_name="abatement")
    bill = models.ForeignKey(Bill, on_delete=models.PROTECT, related_name="abatements")
    grounds = models.JSONField(default=list)
    statement = models.TextField(help_text="why it is more likely than not that the billing is in error")
    amount_requested = models.DecimalField(**MONEY)
    disposition = models.CharField(max_length=10, choices=Disposition.choices, default=Disposition.REFUND)
    decision = models.CharField(max_length=12, choices=Decision.choices, blank=True)
    decided_on = models.DateField(null=True, blank=True)
    amount_granted = models.DecimalField(**MONEY, null=True, blank=True)
    reasons = models.TextField(blank=True)


class AppealSubject(models.TextChoices):
    ABATEMENT = "abatement", "Denial of an abatement (appeals ¶A)"
    CREDIT = "credit", "Denial of a credit (appeals ¶A)"
    LIEN = "lien", "Abatement of charges committed to the tax bill (MGL c.83 §16E; appeals ¶B)"


class AppealOutcome(models.TextChoices):
    AFFIRM = "affirm", "Affirmed"
    REVERSE = "reverse", "Reversed"
    GRANT = "grant", "Abatement granted in full"
    GRANT_PART = "grant_part", "Abatement granted in part"
    DENY = "deny", "Abatement denied"


class Appeal(models.Model):
    """An appeal to the Select Board (appeals ¶A), or an abatement application under MGL c.83 §16E for
    charges committed to the tax bill, which follows the same hearing process (appeals ¶B). The
    decided case is ``case.parent`` for an appeal."""

    case = models.OneToOneField(Case, on_delete=models.PROTECT, related_name="appeal")
    subject = models.CharField(max_length=12, choices=AppealSubject.choices)
    grounds = models.TextField()
    decision_date = models.DateField(null=True, blank=True, help_text="the written decision appealed from")
    # §16E: the bill and the commitment line the application is about; the copy to the Assessors.
    bill = models.ForeignKey(Bill, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    commitment_line = models.ForeignKey(CommitmentLine, null=True, blank=True, on_delete=models.PROTECT,
                                        related_name="+")
    amount_requested = models.DecimalField(**MONEY, null=True, blank=True)
    assessors_copy_on = models.DateField(null=True, blank=True)
    # A credit appeal: the owner paid in full and also asked for an abatement of this bill (appeals ¶A).
    related_abatement = models.ForeignKey(Abatement, null=True, blank=True, on_delete=models.PROTECT,
                                          related_name="+")
    record_transmitted_on = models.DateField(null=True, blank=True)
    hearing_at = models.DateTimeField(null=True, blank=True)
    hearing_place = models.CharField(max_length=300, blank=True)
    notice_sent_on = models.DateField(null=True, blank=True)
    hearing_closed_on = models.DateField(null=True, blank=True)
    outcome = models.CharField(max_length=12, choices=AppealOutcome.choices, blank=True)
    decided_on = models.DateField(null=True, blank=True)
    findings = models.TextField(blank=True)
    amount_abated = models.DecimalField(**MONEY, null=True, blank=True)
    credit_percent = models.DecimalField(**PCT, null=True, blank=True)
