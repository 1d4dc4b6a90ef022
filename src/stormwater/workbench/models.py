"""The reviewer's workbench (issue 10): the plan-contents checklists of a permit file, item by item.

An item's state is never edited: every finding is a new ``ItemFinding`` row (append-only at the
database level), so the history of who found what, when, is the table itself; the current state of an
item is its latest row. Items are named by their paragraph (``catalog.Entry.para``), not by a foreign
key: the checklist is data, cited from the regulation.
"""
from __future__ import annotations

from django.conf import settings
from django.db import models

from stormwater.appendonly import AppendOnlyModel


class Finding(models.TextChoices):
    PROVIDED = "provided", "Provided"
    NOT_PROVIDED = "not_provided", "Not provided"
    NOT_APPLICABLE = "not_applicable", "Not applicable"
    DEFICIENT = "deficient", "Deficient"


class ItemFinding(AppendOnlyModel):
    """One finding on one checklist item of one permit case (history kept: rows are only added)."""

    case = models.ForeignKey("cases.Case", on_delete=models.PROTECT, related_name="workbench_findings")
    para = models.CharField(max_length=40, help_text="the item's paragraph, e.g. '380-12 A(3)(c)[6]'")
    finding = models.CharField(max_length=20, choices=Finding.choices)
    reason = models.TextField(blank=True, help_text="why not applicable; for an LID strategy not met, the "
                                                    "applicant's documented reason (§ 380-11 B(4)(b))")
    mitigation = models.TextField(blank=True, help_text="LID strategy not met: the mitigation proposed")
    comment = models.TextField(blank=True, help_text="the reviewer's comment (required when deficient)")
    document = models.ForeignKey("cases.CaseDocument", null=True, blank=True, on_delete=models.PROTECT,
                                 related_name="+")
    page = models.CharField(max_length=60, blank=True, help_text="sheet or page where the item is shown")
    condition = models.TextField(blank=True, help_text="a permit condition that follows from this finding")
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["case", "para", "at", "id"]
        # Serves "latest finding per item of a case" (the workbench page, the summary).
        indexes = [models.Index(fields=["case", "para", "-at"], name="workbench_finding_latest")]


class RaisedItem(AppendOnlyModel):
    """An item raised in an information request (§ 380-10 E): the request of the permit file and the
    finding it raised. The item is cleared when the applicant's response to that request is recorded."""

    case = models.ForeignKey("cases.Case", on_delete=models.PROTECT, related_name="workbench_raised")
    para = models.CharField(max_length=40)
    request = models.ForeignKey("permits.InformationRequest", on_delete=models.PROTECT, related_name="workbench_items")
    finding = models.ForeignKey(ItemFinding, on_delete=models.PROTECT, related_name="raised")
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["request_id", "id"]
        constraints = [models.UniqueConstraint(fields=["request", "para"], name="workbench_raised_once")]


class ItemWaiver(models.Model):
    """A waiver request (§ 380-8, a case of its own in permits) and the checklist item it concerns."""

    waiver = models.OneToOneField("permits.Waiver", on_delete=models.PROTECT, related_name="workbench_item")
    case = models.ForeignKey("cases.Case", on_delete=models.PROTECT, related_name="workbench_waivers")
    para = models.CharField(max_length=40)

    class Meta:
        ordering = ["para", "id"]


class PreApplicationMeeting(models.Model):
    """§ 380-10 A: the pre-application and concept plan meeting with the DPW Director (and other boards
    and officers the Director invites), before extensive design; the Town's LID design checklist is
    filled in with the applicant."""

    class State(models.TextChoices):
        SCHEDULED = "scheduled", "Scheduled"
        HELD = "held", "Held"
        CANCELLED = "cancelled", "Cancelled"

    applicant_name = models.CharField(max_length=200)
    applicant_email = models.EmailField(blank=True)
    applicant = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                  related_name="pre_application_meetings",
                                  help_text="the applicant's sign-in, if any (they may then read the record)")
    site_address = models.CharField(max_length=300)
    concept = models.TextField(blank=True, help_text="the project and concept plan as described")
    scheduled_at = models.DateTimeField()
    location = models.CharField(max_length=200, blank=True)
    state = models.CharField(max_length=20, choices=State.choices, default=State.SCHEDULED)
    notes = models.TextField(blank=True)
    case = models.ForeignKey("cases.Case", null=True, blank=True, on_delete=models.PROTECT,
                             related_name="pre_application_meetings", help_text="the permit file, once filed")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-scheduled_at", "-id"]


class MeetingAttendee(models.Model):
    meeting = models.ForeignKey(PreApplicationMeeting, on_delete=models.CASCADE, related_name="attendees")
    name = models.CharField(max_length=200)
    organization = models.CharField(max_length=200, blank=True,
                                    help_text="e.g. Planning Board, Conservation Commission, the applicant's engineer")
    invited_board = models.BooleanField(default=False, help_text="another Town board or officer the Director invited")
    attended = models.BooleanField(default=True)

    class Meta:
        ordering = ["id"]


class LidAnswer(models.TextChoices):
    INCORPORATED = "incorporated", "Incorporated"
    PARTLY = "partly", "Partly incorporated"
    NOT_FEASIBLE = "not_feasible", "Not feasible (reason and mitigation)"
    NOT_APPLICABLE = "not_applicable", "Not applicable to the site"


class LidChecklistAnswer(AppendOnlyModel):
    """One answer on the Town's LID design checklist at a pre-application meeting (history kept)."""

    meeting = models.ForeignKey(PreApplicationMeeting, on_delete=models.PROTECT, related_name="lid_answers")
    para = models.CharField(max_length=40)
    answer = models.CharField(max_length=20, choices=LidAnswer.choices)
    note = models.TextField(blank=True, help_text="how; or why not and the mitigation")
    recorded_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["meeting", "para", "at", "id"]
