"""Collections: payments, demands, commitments to the tax bill (liens), closed periods.

Money moves only through utility.LedgerEntry (append-only); these models record the acts that
caused the entries (who, when, which file, which demand) so each can be explained and reversed.
"""
from __future__ import annotations

from django.conf import settings
from django.db import models

from stormwater.utility.models import MONEY, Account, RateResolution


class PaymentMethod(models.TextChoices):
    CHECK = "check", "Check"
    CASH = "cash", "Cash"
    CARD = "card", "Card"
    ACH = "ach", "ACH / online"
    LOCKBOX = "lockbox", "Lockbox"


class PaymentBatch(models.Model):
    """A lockbox/bank file. The file's SHA-256 is unique: posting the same file twice posts nothing twice."""

    filename = models.CharField(max_length=255)
    sha256 = models.CharField(max_length=64, unique=True)
    rows = models.PositiveIntegerField()
    total = models.DecimalField(**MONEY)
    posted_at = models.DateTimeField(auto_now_add=True)
    posted_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["-posted_at"]


class Payment(models.Model):
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="payments")
    amount = models.DecimalField(**MONEY)
    received_on = models.DateField(db_index=True)
    method = models.CharField(max_length=10, choices=PaymentMethod.choices, default=PaymentMethod.CHECK)
    reference = models.CharField(max_length=80, blank=True, help_text="check number, bank trace …")
    batch = models.ForeignKey(PaymentBatch, null=True, blank=True, on_delete=models.PROTECT, related_name="payments")
    batch_line = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["-received_on", "-id"]

    def __str__(self) -> str:
        return f"Payment {self.pk} ${self.amount} on {self.received_on}"


class PaymentReversal(models.Model):
    """A bounced or mistaken payment, undone by reversing entries (never by deleting)."""

    payment = models.OneToOneField(Payment, on_delete=models.PROTECT, related_name="reversal")
    reversed_on = models.DateField()
    reason = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+")


class Demand(models.Model):
    """A statement of the amount due with a demand for payment (Ch. 295 Art. IV billing ¶D)."""

    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="demands")
    served_on = models.DateField(help_text="the day the demand was mailed")
    resolution = models.ForeignKey(RateResolution, on_delete=models.PROTECT, related_name="+")
    demand_charge = models.DecimalField(**MONEY)
    principal_due = models.DecimalField(**MONEY)
    interest_due = models.DecimalField(**MONEY)
    total_due = models.DecimalField(**MONEY, help_text="including the demand charge")
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["-served_on", "-id"]


class Commitment(models.Model):
    """Unpaid amounts committed to the Board of Assessors for the next annual tax bill (billing ¶D)."""

    tax_fiscal_year = models.PositiveIntegerField()
    committed_on = models.DateField()
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["-committed_on", "-id"]


class CommitmentLine(models.Model):
    commitment = models.ForeignKey(Commitment, on_delete=models.PROTECT, related_name="lines")
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="commitment_lines")
    demand = models.OneToOneField(Demand, on_delete=models.PROTECT, related_name="commitment_line")
    principal = models.DecimalField(**MONEY)
    interest = models.DecimalField(**MONEY)
    demand_charges = models.DecimalField(**MONEY)
    total = models.DecimalField(**MONEY)
    paid_on = models.DateField(null=True, blank=True, help_text="paid through the tax bill: the lien is closed")
    paid_amount = models.DecimalField(**MONEY, null=True, blank=True)


class PeriodClose(models.Model):
    """Finance closes the books through a date; nothing is posted on or before it afterwards."""

    closed_through = models.DateField()
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["-closed_through"]


class OnlinePayment(models.Model):
    """One resident's trip to the payment processor (issue 25 "Pay online as shipped", receivables/online.py): made
    when the resident confirms on the Town's page (``started``), marked ``paid`` once by the processor's signed
    return. It is not money: the ledger moves only when the processor's settlement file posts the payment (a
    ``Payment`` on the account whose reference is ``confirmation``); until then the bill says "Paid online, pending
    settlement". ``reference`` is the Town's one-time reference, unguessable; a return naming it twice is refused."""

    STARTED, PAID = "started", "paid"

    reference = models.CharField(max_length=40, unique=True)
    # What is paid (issue 30): an account's bill or balance, or a permit application's fee (Ch. 380 § 380-10 G(1):
    # "The DPW shall obtain with each submission an application and inspection fee"), never both (the check below).
    account = models.ForeignKey(Account, null=True, blank=True, on_delete=models.PROTECT,
                                related_name="online_payments")
    permit = models.ForeignKey("permits.PermitApplication", null=True, blank=True, on_delete=models.PROTECT,
                               related_name="online_payments")
    bill = models.ForeignKey("utility.Bill", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    amount = models.DecimalField(**MONEY)
    processor = models.CharField(max_length=10, help_text="test: the built-in TEST page; hosted: the town's processor")
    state = models.CharField(max_length=10, default=STARTED, choices=[(STARTED, "Started"), (PAID, "Paid online")])
    confirmation = models.CharField(max_length=80, blank=True, help_text="the processor's confirmation number")
    started_at = models.DateTimeField(auto_now_add=True)
    started_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+")
    paid_at = models.DateTimeField(null=True, blank=True)
    # A permit fee has no account to post a payment to: its settlement is the processor file's row that carried it
    # (receivables/online_fees.py), receipted with that file (its total, daily cash, deposit, GL); a bill's
    # settlement stays the Payment whose reference is ``confirmation``.
    settled_file = models.ForeignKey("PaymentBatch", null=True, blank=True, on_delete=models.PROTECT,
                                     related_name="settled_fees")
    settled_on = models.DateField(null=True, blank=True, help_text="the day the processor's file says it was paid")

    class Meta:
        ordering = ["-started_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=(models.Q(account__isnull=False, permit__isnull=True)
                                              | models.Q(account__isnull=True, permit__isnull=False)),
                                   name="online_payment_pays_an_account_or_a_permit_fee"),
            models.CheckConstraint(condition=models.Q(settled_file__isnull=True) | models.Q(permit__isnull=False),
                                   name="online_payment_settled_file_only_for_a_permit_fee"),
            # a permit's fee is received once (§ 380-10 G(1)): a second settled online fee is a refund due instead
            models.UniqueConstraint(fields=["permit"], condition=models.Q(settled_file__isnull=False),
                                    name="one_settled_online_fee_per_permit"),
        ]

    def __str__(self) -> str:
        return f"Online payment {self.reference} ${self.amount} ({self.state})"

    @property
    def payee_number(self) -> str:
        """What the processor is told the payment is for: the account number, or the permit file's number."""
        return self.account.number if self.account_id else self.permit.case.number


class BooksCheck(models.Model):
    """A check of the books (``bookcheck.check_books``: issue 25), kept by the daily sweep (and by ``stormwater books
    check --record``): while the latest is not clean, its breaks are on the Director's and the Collector's home."""

    as_of = models.DateField()
    checked_at = models.DateTimeField(auto_now_add=True)
    source = models.CharField(max_length=20, help_text="daily (the sweep) or command")
    job_id = models.PositiveIntegerField(null=True, blank=True, help_text="the daily sweep's job that ran it")
    clean = models.BooleanField()
    breaks = models.JSONField(default=list, blank=True)
    counts = models.JSONField(default=dict, blank=True)
    trial_balance = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["-checked_at", "-id"]


class SuspenseReason(models.TextChoices):
    NO_ACCOUNT = "no_account", "No account matches"
    DUPLICATE_REFERENCE = "duplicate_reference", "The same reference on the account with another amount"
    FEE_ALREADY_PAID = "fee_already_paid", "A permit fee paid online that was already paid: a refund is due"


class SuspenseState(models.TextChoices):
    WAITING = "waiting", "Waiting for the Collector"
    MATCHED = "matched", "Matched to an account (posted)"
    RETURNED = "returned", "Returned to the payer"
    REFUNDED = "refunded", "Refunded"


class SuspenseItem(models.Model):
    """A lockbox/processor row held in suspense (issue 25): the money arrived with the file but the row matched no
    account, or repeated a reference already on the account with another amount. It waits in the exceptions list
    until the Collector matches it to an account (then a payment is posted with the file), returns it or refunds it.
    Nothing about it is deleted; the file's totals reconcile at every moment:
    file total = posted + in suspense + returned + refunded (``suspense.file_reconciliation``)."""

    file = models.ForeignKey(PaymentBatch, on_delete=models.PROTECT, related_name="suspense")
    line = models.PositiveIntegerField(help_text="the row's line in the file")
    account_text = models.CharField(max_length=80, help_text="the account as the file wrote it")
    amount = models.DecimalField(**MONEY)
    received_on = models.DateField()
    reference = models.CharField(max_length=80, blank=True)
    method = models.CharField(max_length=10, choices=PaymentMethod.choices, default=PaymentMethod.LOCKBOX)
    reason = models.CharField(max_length=24, choices=SuspenseReason.choices)
    detail = models.CharField(max_length=300, blank=True)
    state = models.CharField(max_length=10, choices=SuspenseState.choices, default=SuspenseState.WAITING)
    payment = models.OneToOneField(Payment, null=True, blank=True, on_delete=models.PROTECT, related_name="suspense")
    payee = models.CharField(max_length=200, blank=True)
    note = models.TextField(blank=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                    related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["received_on", "id"]
        constraints = [models.UniqueConstraint(fields=["file", "line"], name="one_suspense_item_per_file_line")]
        indexes = [models.Index(fields=["state", "received_on"])]

    @property
    def number(self) -> str:
        return f"S-{self.pk:06d}"
