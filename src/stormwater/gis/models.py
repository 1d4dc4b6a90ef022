"""GIS imports and the geometry behind each impervious survey (Ch. 295 Art. IV ¶E, ¶F).

Areas live in ``parcels.ParcelImpervious`` (the fee reads them there); this app keeps how they
were made: the import run with its field mapping and validation report, the parcel polygons and
the impervious pieces per survey (for the map, the change report and exports), and the assessor
facts each survey was taken with (so a change report can say a class changed).

Geometry is stored database-portably (SQLite and PostgreSQL, no PostGIS): WKB in EPSG:2249
(Massachusetts State Plane, US ft) with its envelope in four float columns for window queries.
"""
from __future__ import annotations

from django.conf import settings
from django.db import models

from stormwater.parcels.models import CLASS_CHOICES, ImperviousSurvey, Parcel


class GisImport(models.Model):
    """One import run: the uploaded files, the field mapping, the validation report, the outcome."""

    class Kind(models.TextChoices):
        LAYERS = "layers", "GIS layers → impervious survey"
        ASSESSOR = "assessor", "Assessor records → parcels and owners"

    class Status(models.TextChoices):
        UPLOADED = "uploaded", "Uploaded, fields to map"
        CHECKED = "checked", "Checked, ready to import"
        FAILED = "failed", "Check failed"
        IMPORTED = "imported", "Imported"

    kind = models.CharField(max_length=12, choices=Kind.choices)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.UPLOADED)
    folder = models.CharField(max_length=300, blank=True, help_text="Upload folder under MEDIA_ROOT/gis")
    files = models.JSONField(default=list, blank=True, help_text="Uploaded file names (relative to folder)")
    mapping = models.JSONField(default=dict, blank=True, help_text="The field mapping used")
    report = models.JSONField(default=dict, blank=True, help_text="Validation findings and counts")
    survey = models.OneToOneField(ImperviousSurvey, null=True, blank=True, on_delete=models.PROTECT,
                                  related_name="gis_import")
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                   related_name="+")
    imported_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} #{self.pk} ({self.get_status_display()})"


class Envelope(models.Model):
    """WKB geometry in EPSG:2249 and its envelope [ft]."""

    geom_wkb = models.BinaryField()
    minx = models.FloatField()
    miny = models.FloatField()
    maxx = models.FloatField()
    maxy = models.FloatField()

    class Meta:
        abstract = True


class ParcelShape(Envelope):
    """A parcel's polygon as imported with a survey (parcel lines can move between surveys)."""

    survey = models.ForeignKey(ImperviousSurvey, on_delete=models.PROTECT, related_name="parcel_shapes")
    parcel = models.ForeignKey(Parcel, on_delete=models.PROTECT, related_name="shapes")
    area_sqft = models.DecimalField(max_digits=14, decimal_places=2)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["survey", "parcel"], name="one_shape_per_parcel_per_survey")]


class ImperviousPiece(Envelope):
    """The part of one impervious feature that lies on one parcel, right-of-way removed."""

    survey = models.ForeignKey(ImperviousSurvey, on_delete=models.PROTECT, related_name="pieces")
    parcel = models.ForeignKey(Parcel, on_delete=models.PROTECT, related_name="impervious_pieces")
    layer = models.CharField(max_length=80)
    source_fid = models.CharField(max_length=80, help_text="Feature id in the source layer")
    area_sqft = models.DecimalField(max_digits=14, decimal_places=2)

    class Meta:
        # The map and the change report read one parcel's pieces of one survey.
        indexes = [models.Index(fields=["survey", "parcel"], name="gis_piece_survey_parcel")]


class SurveyParcelFacts(models.Model):
    """The assessor facts of a parcel when the survey was imported (class history for change reports)."""

    survey = models.ForeignKey(ImperviousSurvey, on_delete=models.PROTECT, related_name="parcel_facts")
    parcel = models.ForeignKey(Parcel, on_delete=models.PROTECT, related_name="survey_facts")
    land_use_code = models.CharField(max_length=8)
    dwelling_units = models.PositiveIntegerField(null=True, blank=True)
    property_class = models.CharField(max_length=20, choices=CLASS_CHOICES, blank=True,
                                      help_text="Blank where the data did not decide the class")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["survey", "parcel"], name="one_facts_per_parcel_per_survey")]


class RightOfWayShape(Envelope):
    """One right-of-way (road, sidewalk) polygon of a survey as imported (issue 30): the overlay subtracts it from
    the impervious layers (¶F: right-of-way is not attributed to a parcel); kept so that the field maps can draw the
    town's own roads beside its parcels without a tile server (``selectors.base_geojson``)."""

    survey = models.ForeignKey(ImperviousSurvey, on_delete=models.PROTECT, related_name="row_shapes")
    layer = models.CharField(max_length=80)
    source_fid = models.CharField(max_length=80, help_text="Feature id in the source layer")

    class Meta:
        indexes = [models.Index(fields=["survey", "minx"], name="gis_row_survey_minx")]
