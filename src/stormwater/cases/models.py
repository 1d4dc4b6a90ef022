"""The one model of a case (DESIGN.md "One web of cases"): permit applications, waivers, and later
credit applications, abatements and appeals are all a ``Case`` with a status, parties, documents,
an append-only timeline of events and clocks."""
from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils.text import get_valid_filename

from stormwater.appendonly import AppendOnlyModel
from stormwater.rules.clocks import ClockState, Extension, Toll, Unit, clock_state


class Case(models.Model):
    kind = models.CharField(max_length=40, db_index=True)  # a registered machine: "permit", "waiver", …
    number = models.CharField(max_length=30, unique=True)
    # Status is only ever changed by cases.services.case_transition (the table in the kind's machine).
    status = models.CharField(max_length=40, db_index=True)
    title = models.CharField(max_length=300)
    applicant = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                  related_name="cases", help_text="The person who files (owner or agent)")
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT, related_name="children",
                               help_text="e.g. a waiver request within a permit application")
    opened_at = models.DateTimeField(auto_now_add=True)
    filed_on = models.DateField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-opened_at", "-id"]
        indexes = [models.Index(fields=["kind", "status"])]

    def __str__(self) -> str:
        return f"{self.number} {self.title}"

    @property
    def machine(self):
        from .machines import machine_for

        return machine_for(self.kind)

    @property
    def status_label(self) -> str:
        return self.machine.labels.get(self.status, self.status)


class CaseNumber(models.Model):
    """The last number issued per prefix and year (row-locked when a case is opened)."""

    prefix = models.CharField(max_length=10)
    year = models.PositiveIntegerField()
    last = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["prefix", "year"], name="case_number_prefix_year")]


class CaseNumberAlias(AppendOnlyModel):
    """A number a case was known by before it was renumbered (issue 16: construction files had the credit
    applications' prefix SWC and now have their own, SWD). Links to the old number keep working: the middleware
    ``cases.middleware.CaseNumberRedirectMiddleware`` sends a page or API address with an old number to the same
    address with the new one. Append-only: an old number always names the same case."""

    old_number = models.CharField(max_length=30, unique=True)
    case = models.ForeignKey(Case, on_delete=models.PROTECT, related_name="number_aliases")
    at = models.DateTimeField(auto_now_add=True)
    reason = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["at", "id"]

    def __str__(self) -> str:
        return f"{self.old_number} → {self.case.number}"


class PartyRole(models.TextChoices):
    OWNER = "owner", "Owner (permittee)"
    APPLICANT = "applicant", "Applicant"
    AGENT = "agent", "Agent of the owner"
    SUCCESSOR = "successor", "Successor in interest"
    CONSULTANT = "consultant", "Outside consultant"
    # issue 18: people the applicant (or staff) links to the permit; what each sees follows these parties
    DESIGN_ENGINEER = "design_engineer", "Design engineer"
    CONTRACTOR = "contractor", "Contractor"


class CaseParty(models.Model):
    case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="parties")
    role = models.CharField(max_length=20, choices=PartyRole.choices)
    name = models.CharField(max_length=200)
    mailing_address = models.TextField(blank=True)
    email = models.EmailField(blank=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                             related_name="case_parties")

    class Meta:
        ordering = ["role", "id"]


class CaseEvent(AppendOnlyModel):
    """The timeline: every status change, notice, upload, clock change. Append-only (DB triggers)."""

    case = models.ForeignKey(Case, on_delete=models.PROTECT, related_name="events")
    at = models.DateTimeField(auto_now_add=True, db_index=True)
    on = models.DateField(help_text="The date the event takes effect (e.g. the day a notice was mailed)")
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                              related_name="+")
    kind = models.CharField(max_length=60)  # "status", "notice", "document", "clock.start", …
    from_status = models.CharField(max_length=40, blank=True)
    to_status = models.CharField(max_length=40, blank=True)
    why = models.TextField(blank=True)
    data = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["at", "id"]

    # What people read for an event's kind (a timeline row); a kind not named here reads as its words.
    KIND_LABELS = {"status": "Status", "clock.start": "Clock started", "clock.toll": "Clock stopped",
                   "clock.resume": "Clock resumed", "clock.met": "Clock met", "clock.extend": "Clock extended",
                   "as_built": "As-built", "as_built.accepted": "As-built accepted", "om_plan": "O&M plan",
                   "om_amendment": "O&M plan amended", "bmp": "BMP"}

    @property
    def kind_label(self) -> str:
        return self.KIND_LABELS.get(self.kind) or self.kind.replace(".", " · ").replace("_", " ").capitalize()

    def _status_label(self, status: str) -> str:
        try:
            labels = self.case.machine.labels
        except LookupError:
            labels = {}
        return labels.get(status) or status.replace("_", " ").capitalize()

    @property
    def from_label(self) -> str:
        """The status before, as its state machine labels it (never the stored value)."""
        return self._status_label(self.from_status) if self.from_status else ""

    @property
    def to_label(self) -> str:
        return self._status_label(self.to_status) if self.to_status else ""


def case_upload_to(instance: "CaseDocument", filename: str) -> str:
    return f"cases/{instance.case.number}/{uuid.uuid4().hex[:12]}-{get_valid_filename(filename)[-80:]}"


class CaseDocument(models.Model):
    """An uploaded or generated document. Never edited; a new version is a new row."""

    case = models.ForeignKey(Case, on_delete=models.PROTECT, related_name="documents")
    tag = models.CharField(max_length=60, db_index=True, help_text="checklist item or document kind")
    title = models.CharField(max_length=300)
    file = models.FileField(upload_to=case_upload_to, max_length=300)
    original_name = models.CharField(max_length=255)
    content_type = models.CharField(max_length=60)  # from the magic bytes, not from the browser
    size = models.PositiveBigIntegerField()
    sha256 = models.CharField(max_length=64)
    generated = models.BooleanField(default=False, help_text="rendered by the system (notices, decisions)")
    uploaded_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                    related_name="+")
    uploaded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["uploaded_at", "id"]


class Clock(models.Model):
    """A deadline: start event, length in calendar or business days, tolls, extensions. The due date
    is never stored: it is computed by ``rules.clocks.clock_state`` from these rows."""

    case = models.ForeignKey(Case, on_delete=models.PROTECT, related_name="clocks")
    kind = models.CharField(max_length=40)   # "action", "cure", "consultant_payment", …
    label = models.CharField(max_length=200)
    citation = models.CharField(max_length=120)
    start = models.DateField()
    start_event = models.ForeignKey("CaseEvent", null=True, blank=True, on_delete=models.PROTECT, related_name="+",
                                    help_text="the timeline event that started the clock")
    length = models.PositiveIntegerField()
    unit = models.CharField(max_length=10, choices=[(u.value, u.value) for u in Unit], default=Unit.CALENDAR.value)
    roll = models.BooleanField(default=True, help_text="roll a last day on a weekend/holiday forward (MGL c.4 §9)")
    window = models.BooleanField(default=False, help_text="a right that lapses (not a duty that falls due)")
    met_on = models.DateField(null=True, blank=True, help_text="the act was done (or the clock ended) on this day")
    stop_reason = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["start", "id"]
        indexes = [models.Index(fields=["case", "kind"])]

    def state(self) -> ClockState:
        tolls = [Toll(t.first, t.last, t.reason) for t in self.tolls.all()]
        ext = [Extension(e.days, e.reason) for e in self.extensions.all()]
        return clock_state(start=self.start, length=self.length, unit=self.unit, tolls=tolls, extensions=ext,
                           roll=self.roll)

    @property
    def running(self) -> bool:
        return self.met_on is None


class ClockToll(models.Model):
    """Dates [first, last] on which a clock stands still; ``last`` is set when it resumes."""

    clock = models.ForeignKey(Clock, on_delete=models.PROTECT, related_name="tolls")
    first = models.DateField()
    last = models.DateField(null=True, blank=True)
    reason = models.CharField(max_length=300)

    class Meta:
        ordering = ["first", "id"]


class ClockExtension(AppendOnlyModel):
    """Days added to a clock, with the reason (§ 380-10 I(2)). Append-only."""

    clock = models.ForeignKey(Clock, on_delete=models.PROTECT, related_name="extensions")
    days = models.IntegerField()
    reason = models.TextField()
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                              related_name="+")
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["at", "id"]
