from __future__ import annotations

from django.conf import settings
from django.db import models

from stormwater.appendonly import AppendOnlyModel
from stormwater.parcels.models import CLASS_CHOICES, AssociationUnit, Parcel
from stormwater.rules.fees import Block, FeeTerms
from stormwater.rules.calendar import fmt_day

MONEY = dict(max_digits=14, decimal_places=2)


class RateResolution(AppendOnlyModel):
    """A Select Board rate resolution (Ch. 295 Art. IV ¶B, ¶C, ¶D): the fee terms from a date on.

    A bill uses the resolution in force on its period's first day (latest effective_from on or
    before it). Resolutions are not edited after entry: a change is a new resolution. Append-only at the
    database level (issue 14: interest and fees are computed from it).
    """

    label = models.CharField(max_length=200)
    adopted_on = models.DateField()
    effective_from = models.DateField(db_index=True)
    eru_sqft = models.DecimalField(max_digits=10, decimal_places=2, help_text="ft² in one ERU (¶B)")
    rate_per_eru = models.DecimalField(**MONEY, help_text="annual $ per ERU (¶D)")
    small_residential_rate = models.DecimalField(**MONEY, help_text="annual flat $ (¶E)")
    installments = models.PositiveSmallIntegerField(default=1, help_text="1–4 bills a year (¶B)")
    interest_rate_percent = models.DecimalField(max_digits=6, decimal_places=3, default=12,
                                                help_text="% per annum on unpaid balances (billing ¶C)")
    demand_charge = models.DecimalField(**MONEY, default=25, help_text="Chapter 189 demand charge (billing ¶D)")
    is_demo = models.BooleanField(default=False, help_text="Demo values, not an adopted Longmeadow resolution")
    notes = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                   related_name="+")

    class Meta:
        ordering = ["-effective_from", "-id"]

    def __str__(self) -> str:
        return f"{self.label} (from {fmt_day(self.effective_from)}){' — demo values' if self.is_demo else ''}"

    def fee_terms(self) -> FeeTerms:
        blocks = tuple(Block(b.first_eru, b.last_eru, b.coefficient) for b in self.blocks.all())
        label = f"{self.label}, effective {fmt_day(self.effective_from)}" + (" (demo values)" if self.is_demo else "")
        return FeeTerms(eru_sqft=self.eru_sqft, rate_per_eru=self.rate_per_eru,
                        small_residential_rate=self.small_residential_rate, blocks=blocks,
                        installments=self.installments, label=label)


class ResolutionBlock(AppendOnlyModel):
    """One row of the declining block table (Ch. 295 Art. IV ¶E, Table 1). Append-only, as its resolution."""

    resolution = models.ForeignKey(RateResolution, on_delete=models.CASCADE, related_name="blocks")
    first_eru = models.PositiveIntegerField()
    last_eru = models.PositiveIntegerField(null=True, blank=True)
    coefficient = models.DecimalField(max_digits=5, decimal_places=3)

    class Meta:
        ordering = ["first_eru"]


class Account(models.Model):
    """What a bill is addressed to: a parcel, or one unit of a property association (¶G)."""

    number = models.CharField(max_length=60, unique=True)
    parcel = models.ForeignKey(Parcel, on_delete=models.PROTECT, related_name="accounts")
    unit = models.ForeignKey(AssociationUnit, null=True, blank=True, on_delete=models.PROTECT,
                             related_name="accounts")

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(fields=["parcel", "unit"], name="one_account_per_parcel_unit"),
            models.UniqueConstraint(fields=["parcel"], condition=models.Q(unit__isnull=True),
                                    name="one_whole_parcel_account"),
        ]

    def __str__(self) -> str:
        return self.number

    # Ch. 295 Art. IV ¶G: a unit of a property association is billed to its own owner for its percentage; what is
    # addressed to the account (bills, demands, the commitment list for the Assessors) names that owner and the
    # unit, never the association's owner of record and the master parcel alone (issue 17).
    @property
    def billed_owner(self):
        """The unit's owner for an association unit, else the parcel's owner of record."""
        return self.unit.owner if self.unit_id else self.parcel.owner

    @property
    def property_id(self) -> str:
        """The parcel id: the unit's own parcel id for a unit recorded with its parcel (``04-01-1-101``); for a
        unit on file by label only, the master's id with the unit (``04-01-1-UB``, as in the account number)."""
        if not self.unit_id:
            return self.parcel.parcel_id
        if self.unit.parcel_id:
            return self.unit.parcel.parcel_id
        return f"{self.parcel.parcel_id}-U{self.unit.unit}"


class RunState(models.TextChoices):
    """Where a bill run is (issue 16 "preview, confirm, undo"). TRANSITIONS in utility/billrun.py."""

    PREPARING = "preparing", "Preparing the proof"
    PROOF = "proof", "Proof: waiting for approval"
    ISSUED = "issued", "Issued"
    VOIDED = "voided", "Voided"
    DISCARDED = "discarded", "Proof discarded"


OPEN_STATES = (RunState.PREPARING, RunState.PROOF)
DEAD_STATES = (RunState.VOIDED, RunState.DISCARDED)  # its bills stay, owed by no one; the period may be billed again


class BillRun(models.Model):
    """One issue of bills for a period (Ch. 295 Art. IV ¶B). Re-running a period bills nothing twice.

    A run is first a proof (its bills and installments written, invisible to owners, balances, reports and
    exports: ``Bill.objects`` shows issued runs only), then issued when a Collector or Director approves it
    (the ledger charges are posted then), and can be voided before mailing by reversing entries.
    Runs created without a state (back bills, runs before proofs existed) are issued.
    """

    period_label = models.CharField(max_length=40)
    period_start = models.DateField(db_index=True)
    period_end = models.DateField()
    issue_date = models.DateField()
    resolution = models.ForeignKey(RateResolution, on_delete=models.PROTECT, related_name="bill_runs")
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                   related_name="+")
    bill_count = models.PositiveIntegerField(default=0)
    total_billed = models.DecimalField(**MONEY, default=0)
    state = models.CharField(max_length=10, choices=RunState.choices, default=RunState.ISSUED)
    issue_when_ready = models.BooleanField(
        default=False, help_text="started in one step (CLI/API): issued as soon as its proof is complete")
    summary = models.JSONField(default=dict, blank=True,
                               help_text="the proof: counts and totals by class and ERU band, against last year")
    proof_ready_at = models.DateTimeField(null=True, blank=True)
    approved_at = models.DateTimeField(null=True, blank=True)
    approved_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                    related_name="+")
    mailed_on = models.DateField(null=True, blank=True, help_text="the paper bills went to the mail (no void after)")
    voided_at = models.DateTimeField(null=True, blank=True)
    voided_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                  related_name="+")
    void_reason = models.TextField(blank=True)

    class Meta:
        ordering = ["-period_start", "-id"]
        constraints = [
            # One proof at a time per period: two clerks starting a run for FY2027 get the same one.
            models.UniqueConstraint(fields=["period_start"], condition=models.Q(state__in=["preparing", "proof"]),
                                    name="one_open_bill_run_per_period"),
        ]

    def __str__(self) -> str:
        return f"{self.period_label} issued {fmt_day(self.issue_date)}"

    @property
    def is_open(self) -> bool:
        return self.state in OPEN_STATES


class BillRunChunk(models.Model):
    """One slice of the parcels (by primary key) of a run's proof, written in its own short transaction.

    A run killed mid-way (``kill -9`` of the worker) resumes after the slices recorded here; two processes
    preparing the same run skip each other's slices. The counts add up to the run's totals.
    """

    run = models.ForeignKey(BillRun, on_delete=models.CASCADE, related_name="chunks")
    after_pk = models.BigIntegerField(help_text="parcels with a primary key above this …")
    last_pk = models.BigIntegerField(help_text="… up to and including this one")
    parcels = models.PositiveIntegerField(default=0)
    bills = models.PositiveIntegerField(default=0)
    total = models.DecimalField(**MONEY, default=0)
    exempt = models.PositiveIntegerField(default=0)
    no_fee = models.PositiveIntegerField(default=0)
    already_billed = models.PositiveIntegerField(default=0)
    problems = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["run", "after_pk"]
        constraints = [models.UniqueConstraint(fields=["run", "after_pk"], name="bill_run_chunk_once")]


class BillRunException(models.Model):
    """A parcel a run could not bill, with why: listed for staff, never a silent $0."""

    run = models.ForeignKey(BillRun, on_delete=models.CASCADE, related_name="exceptions")
    parcel = models.ForeignKey(Parcel, on_delete=models.PROTECT, related_name="+")
    message = models.TextField()


class LiveBillManager(models.Manager):
    """Bills of issued runs: what owners, balances, reports, exports and mailings see.

    The default manager, so every selector is right without remembering it; a proof's bills (and a voided or
    discarded run's) are reached only through ``Bill.all_objects`` by the bill run's own pages and services.
    Whether a bill is live is its run's state: a bill row is never changed (append-only, issue 14).
    """

    def get_queryset(self):
        return super().get_queryset().filter(run__state=RunState.ISSUED)


class LiveInstallmentManager(models.Manager):
    """Installments of live bills (see LiveBillManager); ``Installment.all_objects`` for every one."""

    def get_queryset(self):
        return super().get_queryset().filter(bill__run__state=RunState.ISSUED)


# A bill converted at go-live (issue 32) is numbered "CV-" + the old system's number: the old system's open balance
# at the cut-over, not the bill it sent (golive/balances.py, golive/relief_cases.py; the proof leaves it out of
# "last year", utility/proof.py).
CONVERTED_BILL_PREFIX = "CV-"


class Bill(AppendOnlyModel):
    """A stormwater bill: the period's charge of one account, billed to the record owner (¶B).

    The fee facts are a snapshot at issue, so the bill stays explainable after data change. Append-only at the
    database level (issue 14: interest is computed from it; no code changes a bill — a correction is an abatement
    or a reversing ledger entry).
    ``Bill.objects`` holds the bills of issued runs only; ``Bill.all_objects`` also a proof's and a voided or
    discarded run's (which stay, unchanged: the run's state says they no longer count; see ``revision``).
    """

    number = models.CharField(max_length=80, unique=True)
    run = models.ForeignKey(BillRun, on_delete=models.PROTECT, related_name="bills")
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="bills")
    parcel = models.ForeignKey(Parcel, on_delete=models.PROTECT, related_name="bills")
    period_start = models.DateField()
    period_end = models.DateField()
    issue_date = models.DateField()
    owner_name = models.CharField(max_length=200)
    mailing_address = models.TextField()
    property_class = models.CharField(max_length=20, choices=CLASS_CHOICES)
    impervious_sqft = models.DecimalField(max_digits=14, decimal_places=2)
    erus = models.PositiveIntegerField()
    gross_fee = models.DecimalField(**MONEY)
    credit_percent = models.DecimalField(max_digits=6, decimal_places=3, default=0)
    share_percent = models.DecimalField(max_digits=7, decimal_places=4, null=True, blank=True)
    amount = models.DecimalField(**MONEY, help_text="this account's annual charge for the period")
    blocks = models.JSONField(default=list)
    explanation = models.TextField()
    flagged = models.BooleanField(default=False, help_text="over the last block: review")
    is_back_bill = models.BooleanField(default=False, help_text="back bill: no interest or late charges (billing ¶A)")
    water_sewer_account = models.CharField(max_length=40, blank=True,
                                           help_text="consolidated on this water/sewer account (fee section ¶B)")
    revision = models.PositiveSmallIntegerField(
        default=1, help_text="the account's n-th bill for the period: earlier ones were voided or discarded")

    objects = LiveBillManager()
    all_objects = models.Manager()

    class Meta:
        ordering = ["-period_start", "number"]
        default_manager_name = "objects"
        constraints = [
            # Idempotency: one bill per account and period (Ch. 295 Art. IV ¶B), with no row ever changed (bills
            # are append-only, issue 14). A bill's revision is 1 + the number of its account's bills for the
            # period whose run was voided or discarded (the run's state: DEAD_STATES), taken when it is written;
            # so while a bill of the period is live (issued, or in a proof) a second one computes a revision
            # already taken and is refused here; once every earlier one is dead the next revision is free and
            # the period is billed again (issue 16).
            models.UniqueConstraint(fields=["account", "period_start", "revision"],
                                    name="one_bill_per_account_period_revision"),
        ]

    def __str__(self) -> str:
        return self.number

    @property
    def voided(self) -> bool:
        """Its run was voided (its charges reversed): owed by no one."""
        return self.run.state == RunState.VOIDED


class Installment(AppendOnlyModel):
    """One installment of a bill; a bill's installments sum exactly to its amount (1–4 a year, ¶B). Append-only:
    interest runs from its due date on its amount (billing ¶C)."""

    bill = models.ForeignKey(Bill, on_delete=models.PROTECT, related_name="installments")
    seq = models.PositiveSmallIntegerField()
    amount = models.DecimalField(**MONEY)
    issue_date = models.DateField()
    due_date = models.DateField(help_text="30 days after issue (¶B), rolled past weekends/holidays (MGL c.4 §9)")

    objects = LiveInstallmentManager()
    all_objects = models.Manager()

    class Meta:
        ordering = ["bill", "seq"]
        default_manager_name = "objects"
        constraints = [models.UniqueConstraint(fields=["bill", "seq"], name="installment_seq_once")]


class EntryKind(models.TextChoices):
    CHARGE = "charge", "Charge"
    PAYMENT = "payment", "Payment"
    INTEREST = "interest", "Interest"
    DEMAND = "demand", "Demand charge"
    ABATEMENT = "abatement", "Abatement"
    CREDIT = "credit", "Credit"
    LIEN = "lien", "Committed to tax lien"
    REFUND = "refund", "Refund"
    REVERSAL = "reversal", "Reversal"
    # Go-live (issue 32): an opening balance of the old system with no act of this one behind it — a credit balance
    # held at the cut-over, or the difference between the interest the old system accrued and what the old dates
    # imply here (kept as the old system said; interest continues from the cut-over at the ordinance's rate).
    CONVERSION = "conversion", "Converted from the old system"


class Component(models.TextChoices):
    """What part of an installment an entry moves. Payments apply oldest installment first: demand
    charges, then interest, then principal (DESIGN.md; Ch. 295 Art. IV billing ¶C–¶D)."""

    PRINCIPAL = "principal", "Principal"
    INTEREST = "interest", "Interest"
    DEMAND = "demand", "Demand charge"
    UNAPPLIED = "unapplied", "Unapplied credit"


class LedgerEntry(AppendOnlyModel):
    """An append-only ledger line of an account. Positive = owed to the Town, negative = paid/credited.

    A balance is a sum as of a date; a mistake is corrected by a reversing entry (``reverses``).
    The database refuses UPDATE and DELETE (triggers, see migrations).
    """

    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="entries")
    kind = models.CharField(max_length=12, choices=EntryKind.choices)
    component = models.CharField(max_length=10, choices=Component.choices, default=Component.PRINCIPAL)
    amount = models.DecimalField(**MONEY)
    effective_on = models.DateField(db_index=True)
    bill = models.ForeignKey(Bill, null=True, blank=True, on_delete=models.PROTECT, related_name="entries")
    installment = models.ForeignKey(Installment, null=True, blank=True, on_delete=models.PROTECT,
                                    related_name="entries")
    reverses = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT, related_name="reversed_by")
    payment = models.ForeignKey("receivables.Payment", null=True, blank=True, on_delete=models.PROTECT,
                                related_name="entries")
    memo = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                   related_name="+")

    class Meta:
        ordering = ["effective_on", "id"]
        indexes = [models.Index(fields=["account", "effective_on"])]
        constraints = [
            # An installment is charged once: approving a run twice, or two approvers at once, cannot post
            # its charges twice (the bill run's state check comes first; this is the database's backstop).
            models.UniqueConstraint(fields=["installment"], condition=models.Q(kind="charge"),
                                    name="one_charge_per_installment"),
        ]
