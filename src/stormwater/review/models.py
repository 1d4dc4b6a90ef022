"""Engineering review: official BMP performance tables and stored review runs (issue 7).

A table is never edited: a corrected table is loaded again under the same name and becomes the next
version; the latest version of each name that is not retired is "in force". A review run keeps the
file as uploaded, the results as computed and the tables in force at that moment, so a report can
be re-opened exactly as it was.
"""
from __future__ import annotations

from django.conf import settings
from django.db import models

from stormwater.appendonly import AppendOnlyModel


class BmpTable(models.Model):
    """An official BMP performance table (CSV of points) loaded by a DPW engineer (§ 380-11 A(4))."""

    name = models.CharField(max_length=200, help_text="as shown on every result, e.g. 'MS4 App. F Att. 3 Table 3-1'")
    version = models.PositiveIntegerField()
    source_citation = models.TextField(help_text="where the numbers come from (document, table, page, date)")
    provisional = models.BooleanField(default=False, help_text="mark every result from it provisional")
    csv_text = models.TextField()
    sha256 = models.CharField(max_length=64)
    summary = models.JSONField(default=dict, help_text="BMPs, pollutants and curve count, for listing")
    loaded_at = models.DateTimeField(auto_now_add=True)
    loaded_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                  related_name="+")
    retired_at = models.DateTimeField(null=True, blank=True)
    retired_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                   related_name="+")
    retired_reason = models.TextField(blank=True)

    class Meta:
        ordering = ["name", "-version"]
        constraints = [models.UniqueConstraint(fields=["name", "version"], name="review_bmptable_name_version")]

    def __str__(self) -> str:
        return f"{self.name} v{self.version}"

    @property
    def label(self) -> str:
        """The name results carry: the table's name and version."""
        return f"{self.name} (v{self.version})"


class Review(models.Model):
    """One run of the review on one uploaded plan file (re-running makes a new row)."""

    class Overall(models.TextChoices):
        PASS = "pass", "Pass"
        FAIL = "fail", "Fail"
        NOT_ASSESSABLE = "not_assessable", "Not assessable"

    title = models.CharField(max_length=300)
    input_name = models.CharField(max_length=255, blank=True)
    input_format = models.CharField(max_length=10)  # json | yaml
    input_text = models.TextField()
    input_sha256 = models.CharField(max_length=64)
    results = models.JSONField()
    overall = models.CharField(max_length=20, choices=Overall.choices)
    provisional = models.BooleanField(default=False)
    engine_version = models.CharField(max_length=40)
    tables = models.ManyToManyField(BmpTable, blank=True, related_name="reviews",
                                    help_text="official tables in force when the review ran")
    # The permit case (stormwater.cases) the review belongs to, if any; a review can also be run on a
    # plan before any application is filed.
    case = models.ForeignKey("cases.Case", null=True, blank=True, on_delete=models.PROTECT,
                             related_name="engineering_reviews")
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                   related_name="+")

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["created_by", "-created_at"], name="review_by_user")]

    def __str__(self) -> str:
        return f"Review {self.pk}: {self.title}"


class PlanSheetSet(models.Model):
    """One submission of a permit case's plan set (a PDF of the sheets); a revision is the next version.

    The PDF itself is the case file's document (``cases.CaseDocument``, tag ``plan_set``): the same
    store, sniffing and timeline as every other document. Never edited.
    """

    case = models.ForeignKey("cases.Case", on_delete=models.PROTECT, related_name="plan_sheet_sets")
    document = models.ForeignKey("cases.CaseDocument", on_delete=models.PROTECT, related_name="+")
    version = models.PositiveIntegerField()
    note = models.TextField(blank=True)
    pages = models.PositiveIntegerField(null=True, blank=True, help_text="sheets in the PDF, when known")
    submitted_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                     related_name="+")
    submitted_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["case", "version"]
        constraints = [models.UniqueConstraint(fields=["case", "version"], name="review_sheetset_case_version")]

    def __str__(self) -> str:
        return f"plan set v{self.version} of {self.case.number}"


class SheetComment(models.Model):
    """A reviewer's comment pinned to a sheet and a point of a plan set, tied to a checklist item or a
    standard (the review's row key). Numbered per case for the review letter. The text is never edited;
    only its resolution is recorded."""

    case = models.ForeignKey("cases.Case", on_delete=models.PROTECT, related_name="sheet_comments")
    sheet_set = models.ForeignKey(PlanSheetSet, on_delete=models.PROTECT, related_name="comments")
    review = models.ForeignKey(Review, null=True, blank=True, on_delete=models.PROTECT, related_name="sheet_comments")
    number = models.PositiveIntegerField()
    page = models.PositiveIntegerField(help_text="sheet number in the PDF, from 1")
    x = models.FloatField(help_text="from the sheet's left edge, as a fraction of its width (0-1)")
    y = models.FloatField(help_text="from the sheet's top edge, as a fraction of its height (0-1)")
    sheet_label = models.CharField(max_length=40, blank=True, help_text="the sheet's own number, e.g. C-4")
    ref_key = models.CharField(max_length=120, help_text="checklist item or standard row the comment concerns")
    ref_label = models.CharField(max_length=400)
    text = models.TextField()
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                               related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                    related_name="+")
    resolution = models.TextField(blank=True)

    class Meta:
        ordering = ["case", "number"]
        constraints = [models.UniqueConstraint(fields=["case", "number"], name="review_sheetcomment_case_number")]

    def __str__(self) -> str:
        return f"comment {self.number} on {self.case.number}"


class CommentResponse(AppendOnlyModel):
    """The applicant's answer to one comment, submitted with a revised plan set. Append-only (database triggers)."""

    comment = models.ForeignKey(SheetComment, on_delete=models.PROTECT, related_name="responses")
    sheet_set = models.ForeignKey(PlanSheetSet, null=True, blank=True, on_delete=models.PROTECT, related_name="responses")
    text = models.TextField()
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                               related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["comment", "created_at", "id"]


class ApplicantFigures(models.Model):
    """The applicant's own HydroCAD/SWMM figures for a review (issue 31): peak, volume and peak elevation per
    node and storm, typed or imported, with the tolerances they are compared at. Never edited: entering them
    again makes the next row, and the latest is the one the report shows (review/compare.py)."""

    class Source(models.TextChoices):
        FORM = "form", "typed on the form"
        CSV = "csv", "imported from CSV"

    review = models.ForeignKey(Review, on_delete=models.PROTECT, related_name="applicant_figures")
    rows = models.JSONField(default=list, help_text="[{node, storm, peak_cfs, volume_cf, peak_elev_ft}]")
    peak_tol_pct = models.FloatField()
    volume_tol_pct = models.FloatField()
    elev_tol_ft = models.FloatField()
    source = models.CharField(max_length=10, choices=Source.choices)
    file_name = models.CharField(max_length=255, blank=True)
    entered_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                   related_name="+")
    entered_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["review", "-entered_at", "-id"]

    def __str__(self) -> str:
        return f"applicant's figures for review {self.review_id}"
