"""The Collector's office (issue 17): the cashier's window and what follows it.

A payment is still ``receivables.Payment`` posted by ``receivables.services.payment_post`` (the arithmetic of
Ch. 295 Art. IV billing ¶C–¶D lives there and only there). This app records the office's acts around it:

- ``Receipt``: the numbered receipt for a payment taken at the window, in a cashier's ``CashBatch``;
- ``CashBatch``: one cashier's drawer, closed with the totals counted by tender (cash, check, card, ACH);
- ``Deposit``: closed batches and posted lockbox/processor files taken to the bank, reconciled against the
  bank's deposit amount;
- ``RefundVoucher``: a credit balance paid back to the owner once a second person approves it;
- ``LienCertificate``: a municipal lien certificate (MGL c.60 §23) requested for a parcel and issued within
  10 days with every unpaid stormwater charge.
"""
from __future__ import annotations

from django.conf import settings
from django.db import models

from stormwater.parcels.models import Parcel
from stormwater.receivables.models import Payment, PaymentBatch
from stormwater.utility.models import MONEY, Account, LedgerEntry


class Tender(models.TextChoices):
    """What the window takes (the values are receivables.PaymentMethod's)."""

    CASH = "cash", "Cash"
    CHECK = "check", "Check"
    CARD = "card", "Card"
    ACH = "ach", "ACH / online"


class BatchState(models.TextChoices):
    OPEN = "open", "Open"
    CLOSED = "closed", "Closed (counted)"
    DEPOSITED = "deposited", "Deposited"


class Deposit(models.Model):
    """A bank deposit: the closed batches and posted files it carries, against the bank's figure."""

    deposited_on = models.DateField()
    bank_amount = models.DecimalField(**MONEY, help_text="the amount the bank credited")
    bank_reference = models.CharField(max_length=80, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["-deposited_on", "-id"]

    @property
    def number(self) -> str:
        return f"D-{self.pk:06d}"


class CashBatch(models.Model):
    """One cashier's drawer for a day: every receipt taken at the window belongs to one."""

    cashier = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="cash_batches")
    opened_on = models.DateField()
    opened_at = models.DateTimeField(auto_now_add=True)
    state = models.CharField(max_length=10, choices=BatchState.choices, default=BatchState.OPEN)
    closed_at = models.DateTimeField(null=True, blank=True)
    closed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                  related_name="+")
    # {"cash": "120.00", …}: what the cashier counted, and what the receipts say (money as strings, 2 places)
    counted = models.JSONField(default=dict, blank=True)
    expected = models.JSONField(default=dict, blank=True)
    counted_total = models.DecimalField(**MONEY, null=True, blank=True)
    expected_total = models.DecimalField(**MONEY, null=True, blank=True)
    deposit = models.ForeignKey(Deposit, null=True, blank=True, on_delete=models.PROTECT, related_name="batches")
    # Issue 25: a drawer counted over or short is closed with the cashier's reason and approved by a second person
    # (another user with the Collector/Treasurer role) before it is deposited.
    over_short_reason = models.TextField(blank=True)
    over_short_approved_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                               on_delete=models.PROTECT, related_name="+")
    over_short_approved_at = models.DateTimeField(null=True, blank=True)
    over_short_note = models.CharField(max_length=500, blank=True)

    class Meta:
        ordering = ["-opened_on", "-id"]
        constraints = [models.UniqueConstraint(fields=["cashier"], condition=models.Q(state="open"),
                                               name="one_open_cash_batch_per_cashier")]

    @property
    def number(self) -> str:
        return f"B-{self.pk:06d}"

    @property
    def over_short(self):
        if self.counted_total is None or self.expected_total is None:
            return None
        return self.counted_total - self.expected_total

    @property
    def over_short_waiting(self) -> bool:
        """Closed over or short and not yet approved by a second person (it cannot be deposited)."""
        return bool(self.over_short) and self.over_short_approved_by_id is None


class Receipt(models.Model):
    """The numbered receipt of a payment taken at the window (printed or e-mailed as a PDF)."""

    payment = models.OneToOneField(Payment, on_delete=models.PROTECT, related_name="receipt")
    batch = models.ForeignKey(CashBatch, on_delete=models.PROTECT, related_name="receipts")
    tender = models.CharField(max_length=10, choices=Tender.choices)
    issued_at = models.DateTimeField(auto_now_add=True)
    # What the account owed just before and just after (as of the day received), printed on the receipt.
    balance_before = models.DecimalField(**MONEY)
    balance_after = models.DecimalField(**MONEY)
    payer = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["-id"]

    @property
    def number(self) -> str:
        """Receipts are numbered by their row: unique and increasing (a rolled-back post may leave a gap, which
        the audit log explains: every receipt issued has a receipt.issue row)."""
        return f"R-{self.pk:07d}"


class DepositFile(models.Model):
    """A posted lockbox or processor file (receivables.PaymentBatch) carried by a deposit."""

    deposit = models.ForeignKey(Deposit, on_delete=models.PROTECT, related_name="files")
    file = models.OneToOneField(PaymentBatch, on_delete=models.PROTECT, related_name="deposit_file")


class RefundState(models.TextChoices):
    REQUESTED = "requested", "Waiting for approval"
    APPROVED = "approved", "Approved (refunded)"
    REJECTED = "rejected", "Rejected"


class RefundVoucher(models.Model):
    """A credit balance paid back to the owner: requested by one person, approved by another."""

    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="refund_vouchers")
    amount = models.DecimalField(**MONEY)
    payee = models.CharField(max_length=200)
    payee_address = models.TextField(blank=True)
    reason = models.TextField()
    state = models.CharField(max_length=10, choices=RefundState.choices, default=RefundState.REQUESTED)
    requested_on = models.DateField()
    requested_at = models.DateTimeField(auto_now_add=True)
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+")
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                   related_name="+")
    decision_note = models.TextField(blank=True)
    entry = models.OneToOneField(LedgerEntry, null=True, blank=True, on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["-requested_at", "-id"]

    @property
    def number(self) -> str:
        return f"RV-{self.pk:06d}"


class LienChannel(models.TextChoices):
    ONLINE = "online", "Online"
    COUNTER = "counter", "At the counter"


class LienCertificate(models.Model):
    """A municipal lien certificate (MGL c.60 §23) for a parcel's stormwater charges."""

    parcel = models.ForeignKey(Parcel, on_delete=models.PROTECT, related_name="lien_certificates")
    requester_name = models.CharField(max_length=200)
    requester_role = models.CharField(max_length=80, blank=True, help_text="buyer, closing attorney, lender …")
    requester_email = models.EmailField(blank=True)
    channel = models.CharField(max_length=10, choices=LienChannel.choices)
    requested_on = models.DateField()
    requested_at = models.DateTimeField(auto_now_add=True)
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+")
    due_on = models.DateField(help_text="MGL c.60 §23: issued within ten days of the request")
    fee = models.DecimalField(**MONEY)
    fee_reference = models.CharField(max_length=80, blank=True, help_text="receipt or check for the fee")
    issued_on = models.DateField(null=True, blank=True)
    issued_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                  related_name="+")
    total_due = models.DecimalField(**MONEY, null=True, blank=True)
    figures = models.JSONField(default=dict, blank=True, help_text="the certificate's lines as issued")

    class Meta:
        ordering = ["-requested_on", "-id"]

    @property
    def number(self) -> str:
        return f"MLC-{self.requested_on.year}-{self.pk:05d}"


class FeeKind(models.TextChoices):
    LIEN_CERTIFICATE = "lien_certificate", "Lien certificate fees"


class FeeReceipt(models.Model):
    """A fee taken at the window that is no account's payment (issue 25): the municipal lien certificate fee
    (MGL c.60 §23). It belongs to the cashier's open batch like a receipt, so the batch's expected totals, the daily
    cash, the deposit and the general ledger (its own revenue line, ``TownConfig.gl_lien_certificate_fees``) carry
    it. Numbered ``F-`` and its row."""

    kind = models.CharField(max_length=20, choices=FeeKind.choices, default=FeeKind.LIEN_CERTIFICATE)
    certificate = models.OneToOneField(LienCertificate, null=True, blank=True, on_delete=models.PROTECT,
                                       related_name="fee_receipt")
    batch = models.ForeignKey(CashBatch, on_delete=models.PROTECT, related_name="fee_receipts")
    tender = models.CharField(max_length=10, choices=Tender.choices)
    amount = models.DecimalField(**MONEY)
    reference = models.CharField(max_length=80, blank=True, help_text="check number …")
    payer = models.CharField(max_length=200, blank=True)
    issued_at = models.DateTimeField(auto_now_add=True)
    issued_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["-id"]

    @property
    def number(self) -> str:
        return f"F-{self.pk:07d}"
