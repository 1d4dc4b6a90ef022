"""The Stormwater Management Account (MGL c.44 §53F½; Ch. 295 Art. IV, fee section ¶C).

Ch. 295 Art. IV fee ¶C: "Receipts generated from the stormwater fee shall be deposited to an enterprise
fund account to be known as the 'Stormwater Management Account' … The funds deposited to this account
shall be used to fund the stormwater management program of the Town."
Budget/rates ¶A: the Director recommends an annual budget; the Select Board approves it with rates
sufficient for a balanced operating and capital budget. Establishment ¶ (first section): the Division
is also funded by "such other funds as may … be appropriated or obtained through other sources,
including but not limited to grants and low-interest loans".

A budget here is a plan, edited until it is approved; each edit is a service that writes an audit row
(who, what before and after). Fee receipts are not stored here: they are read from the append-only
ledger of the utility (``selectors.receipts_by_period``).
"""
from __future__ import annotations

from django.conf import settings
from django.db import models

MONEY = dict(max_digits=14, decimal_places=2)


class Category(models.TextChoices):
    """Budget categories of an enterprise fund (definitions of direct and indirect costs, uses ¶B, ¶C)."""

    DIRECT = "direct", "Direct cost"
    INDIRECT = "indirect", "Indirect cost"
    CAPITAL = "capital", "Capital"
    DEBT_SERVICE = "debt_service", "Debt service"
    RESERVE = "reserve", "Reserve"


# Ch. 295 Art. IV, "uses of the fee" section, ¶A–¶L: the fee "shall only be used for the direct and
# indirect costs of the Stormwater Division to provide stormwater management services … and also
# includes the following". The text, word for word, is shown where a line is entered.
USE_TEXT: dict[str, str] = {
    "A": "The acquisition by gift, purchase or condemnation of real and personal property, and interests therein, "
         "necessary to construct, operate, and maintain stormwater management systems and facilities.",
    "B": "All indirect and direct costs of administration and implementation of the stormwater management programs, "
         "including the cost of labor attributable to the stormwater management program and the establishment of "
         "reasonable operating and capital reserves to meet unanticipated or emergency stormwater management "
         "requirements.",
    "C": "Engineering and design, debt service and related financing expenses, construction costs for new facilities, "
         "and enlargement or improvement of existing facilities.",
    "D": "Operation and maintenance of the stormwater systems, including catch basin cleaning, ditch maintenance, "
         "street sweeping and the purchase of equipment for use in the operation and maintenance of stormwater "
         "systems.",
    "E": "Capital projects for stormwater management.",
    "F": "Illicit discharge detection and elimination.",
    "G": "Monitoring, surveillance, and inspection of stormwater control devices.",
    "H": "Water quality monitoring and water quality programs.",
    "I": "Retrofitting developed areas for pollution control.",
    "J": "Inspection and enforcement activities.",
    "K": "Billing and related administrative costs.",
    "L": "Other activities which are determined to be reasonably necessary by the Director of Public Works, "
         "including costs related to regulatory compliance.",
}


class AllowedUse(models.TextChoices):
    A = "A", "A. Acquisition of real and personal property for stormwater systems and facilities"
    B = "B", "B. Administration and implementation (labor), operating and capital reserves"
    C = "C", "C. Engineering and design, debt service and financing, construction and improvement"
    D = "D", "D. Operation and maintenance (catch basins, ditches, street sweeping, equipment)"
    E = "E", "E. Capital projects for stormwater management"
    F = "F", "F. Illicit discharge detection and elimination"
    G = "G", "G. Monitoring, surveillance and inspection of stormwater control devices"
    H = "H", "H. Water quality monitoring and water quality programs"
    I = "I", "I. Retrofitting developed areas for pollution control"  # noqa: E741 — the ordinance's letter
    J = "J", "J. Inspection and enforcement activities"
    K = "K", "K. Billing and related administrative costs"
    L = "L", "L. Other activities the Director determines reasonably necessary, incl. regulatory compliance"


class RevenueKind(models.TextChoices):
    """Secondary sources of revenue (establishment section; budget/rates ¶C)."""

    GRANT = "grant", "Grant"
    LOAN = "loan", "Low-interest loan"
    APPROPRIATION = "appropriation", "Appropriation"
    OTHER = "other", "Other"


class FiscalYearBudget(models.Model):
    """The account's budget for one Massachusetts fiscal year (FYnnnn: July 1 of nnnn−1 to June 30 of nnnn)."""

    fiscal_year = models.PositiveSmallIntegerField(unique=True)
    reserve_use = models.DecimalField(**MONEY, default=0,
                                      help_text="part of the budget funded from the account's reserves ($)")
    approved_on = models.DateField(null=True, blank=True, help_text="Select Board approval (budget/rates ¶A)")
    notes = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                   related_name="+")

    class Meta:
        ordering = ["-fiscal_year"]

    def __str__(self) -> str:
        return f"FY{self.fiscal_year} Stormwater Management Account budget"


class BudgetLine(models.Model):
    """One appropriation line: what it pays for, its category and the allowed use of the fee it falls under."""

    budget = models.ForeignKey(FiscalYearBudget, on_delete=models.PROTECT, related_name="lines")
    category = models.CharField(max_length=16, choices=Category.choices)
    allowed_use = models.CharField(max_length=1, choices=AllowedUse.choices,
                                   help_text="Ch. 295 Art. IV, uses of the fee ¶A–¶L")
    description = models.CharField(max_length=200)
    amount = models.DecimalField(**MONEY)

    class Meta:
        ordering = ["category", "allowed_use", "id"]
        constraints = [models.CheckConstraint(condition=models.Q(amount__gt=0), name="budget_line_amount_positive")]

    def __str__(self) -> str:
        return f"{self.description} ${self.amount}"

    @property
    def use_text(self) -> str:
        return USE_TEXT[self.allowed_use]


class OtherRevenue(models.Model):
    """Revenue of the account other than the fee: grants, low-interest loans, appropriations, other."""

    budget = models.ForeignKey(FiscalYearBudget, on_delete=models.PROTECT, related_name="other_revenue")
    kind = models.CharField(max_length=16, choices=RevenueKind.choices)
    source = models.CharField(max_length=200, help_text="who grants, lends or appropriates it")
    amount = models.DecimalField(**MONEY)
    dated = models.DateField(help_text="date awarded, or received")
    received = models.BooleanField(default=False, help_text="received (else anticipated)")
    notes = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["dated", "id"]
        constraints = [models.CheckConstraint(condition=models.Q(amount__gt=0), name="other_revenue_amount_positive")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.source} ${self.amount}"
