"""What the go-live conversion brought in from the old system (issue 32), so that a re-run changes nothing and every
converted bill and credit can be traced to its row of the old export.

Money itself is only in ``utility.LedgerEntry`` (append-only): a converted installment's entries are dated as in the
old system (its charge on the issue date, its demand charge on the demand's day, its lien on the commitment day);
these rows say which entries came from which old bill number, file and conversion."""
from __future__ import annotations

from django.conf import settings
from django.db import models

from stormwater.utility.models import MONEY, Account, Installment, LedgerEntry


class Conversion(models.Model):
    """One applied conversion of an export: its cut-over date, the old system's control totals beside what the books
    hold, and the differences accepted (by whom: ``created_by``)."""

    as_of = models.DateField(help_text="the cut-over date")
    source = models.CharField(max_length=300)
    import_record = models.ForeignKey("imports.ImportRecord", null=True, blank=True, on_delete=models.PROTECT,
                                      related_name="+")
    control = models.JSONField(default=dict, blank=True, help_text="the old system's control totals by fiscal year")
    converted = models.JSONField(default=dict, blank=True, help_text="what the books hold, by fiscal year")
    accepted_differences = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                   related_name="+")

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"Conversion {self.pk} of {self.source} as of {self.as_of}"


class ConvertedInstallment(models.Model):
    """An open installment of the old system, by its bill number and installment: converted once."""

    old_key = models.CharField(max_length=100, unique=True, help_text="old bill number#installment")
    old_bill_number = models.CharField(max_length=80, db_index=True)
    fiscal_year = models.PositiveIntegerField()
    conversion = models.ForeignKey(Conversion, on_delete=models.PROTECT, related_name="installments")
    installment = models.OneToOneField(Installment, on_delete=models.PROTECT, related_name="converted_from")
    row = models.PositiveIntegerField(help_text="its row in the export")
    facts = models.JSONField(default=dict, help_text="what the old system said (compared on a re-run)")


class ConvertedCredit(models.Model):
    """An account's credit balance in the old system, held as unapplied credit from the cut-over: converted once."""

    account = models.OneToOneField(Account, on_delete=models.PROTECT, related_name="converted_credit")
    amount = models.DecimalField(**MONEY)
    fiscal_year = models.PositiveIntegerField(null=True, blank=True)
    conversion = models.ForeignKey(Conversion, on_delete=models.PROTECT, related_name="credits")
    entry = models.OneToOneField(LedgerEntry, on_delete=models.PROTECT, related_name="+")
    row = models.PositiveIntegerField()
