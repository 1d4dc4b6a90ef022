"""Forms of the workbench: parse the checklist table and the small forms; services decide."""
from __future__ import annotations

from django import forms

from stormwater.permits.forms import DecisionForm
from stormwater.web.forms import form_auto_id

from .models import Finding


class DecideForm(DecisionForm):
    """The Director's decision from the workbench; conditions pre-filled from the findings."""


class MeetingForm(forms.Form):
    applicant_name = forms.CharField(max_length=200)
    applicant_email = forms.EmailField(required=False)
    applicant_username = forms.CharField(max_length=150, required=False,
                                         help_text="the applicant's sign-in, so they can read the record")
    site_address = forms.CharField(max_length=300)
    concept = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3}))
    scheduled_at = forms.DateTimeField(widget=forms.DateTimeInput(attrs={"type": "datetime-local"}))
    location = forms.CharField(max_length=200, required=False, initial="DPW, 170 Dwight Road")


def parse_findings(post, paras: list[str], documents: dict) -> list[dict]:
    """Rows of a checklist table: ``f-<para>`` the finding (blank = leave as is), ``reason-``, ``mitigation-``,
    ``comment-``, ``page-``, ``doc-`` (a document id of the file), ``condition-``."""
    out = []
    for p in paras:
        value = (post.get(f"f-{p}") or "").strip()
        if not value:
            continue
        doc_id = (post.get(f"doc-{p}") or "").strip()
        doc = None
        if doc_id:
            doc = documents.get(int(doc_id)) if doc_id.isdigit() else None
            if doc is None:
                raise ValueError("The document cited must be one of this file's documents.")
        out.append({"para": p, "finding": value, "document": doc,
                    **{k: post.get(f"{k}-{p}", "") for k in ("reason", "mitigation", "comment", "page", "condition")}})
    return out


FINDING_CHOICES = [("", "—")] + list(Finding.choices)


class AttendeeForm(forms.Form):
    """One attendee of a pre-application meeting; other Town boards and officers are invited at the Director's
    discretion (§ 380-10 A). On the shared form pattern (web/_form.html): refused, what was typed is kept."""

    name = forms.CharField(label="Name", max_length=200, strip=True,
                           error_messages={"required": "Enter the attendee's name."})
    organization = forms.CharField(label="Board, office or firm", max_length=200, required=False, strip=True)
    invited_board = forms.BooleanField(label="Another Town board or officer, invited (§ 380-10 A)", required=False)

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("auto_id", form_auto_id("attendee"))
        super().__init__(*args, **kwargs)
