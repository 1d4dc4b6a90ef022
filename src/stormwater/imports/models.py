"""The record of every import run through the pipeline (issue 20): which file (its checksum and its content's),
what it did, who ran it. Append-only (``stormwater.appendonly``: the database refuses an update or delete)."""
from __future__ import annotations

from django.conf import settings
from django.db import models

from stormwater.appendonly import AppendOnlyModel


class ImportRecord(AppendOnlyModel):
    class Outcome(models.TextChoices):
        APPLIED = "applied", "Applied"
        UNCHANGED = "unchanged", "Nothing to change (same content as the records)"
        REFUSED = "refused", "Refused: nothing changed"

    kind = models.CharField(max_length=40, db_index=True, help_text="assessor, gis_layers, bmp_inventory, plan, "
                                                                    "water_sewer_accounts …")
    source = models.CharField(max_length=300, help_text="The file's name (and layer) as given")
    checksum = models.CharField(max_length=64, blank=True, help_text="SHA-256 of the file's bytes")
    content_checksum = models.CharField(max_length=64, blank=True, db_index=True,
                                        help_text="SHA-256 of what the file says (same whatever the encoding or "
                                                  "line endings)")
    outcome = models.CharField(max_length=12, choices=Outcome.choices)
    counts = models.JSONField(default=dict, blank=True, help_text="created, updated, unchanged … as numbers")
    report = models.JSONField(default=dict, blank=True, help_text="Findings and changes")
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                   related_name="+")

    class Meta:
        ordering = ["-created_at", "-id"]

    KIND_LABELS = {"assessor": "Assessor records", "gis_layers": "GIS layers", "bmp_inventory": "BMP inventory",
                   "plan": "Plan", "water_sewer_accounts": "Water/sewer accounts"}

    @property
    def kind_label(self) -> str:
        """What people read (the stored kind is for machines)."""
        return self.KIND_LABELS.get(self.kind) or self.kind.replace("_", " ").capitalize()

    def __str__(self) -> str:
        return f"{self.kind} import #{self.pk} {self.source} ({self.get_outcome_display()})"
