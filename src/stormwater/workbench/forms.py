"""Forms of the workbench: parse the checklist table and the small forms; services decide."""
from __future__ import annotations

from django import forms

from stormwater.permits.forms import DecisionForm
from stormwater.web.forms import FieldRefusal, form_auto_id

from .models import Finding


class DecideForm(DecisionForm):
    """The Director's decision from the workbench; conditions pre-filled from the findings. The library of standard
    conditions (issue 30) is offered on the permit page's decision form, whose button copies them in; not here."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        del self.fields["standard"]


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
                raise FieldRefusal("The document cited must be one of this file's documents.", field=f"doc-{p}")
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


ROW_KINDS = ("f", "doc", "page", "comment", "reason", "mitigation", "condition")  # the posted names: <kind>-<para>


class _RowBoundField(forms.BoundField):
    """A checklist input's element id from the item's key (``id_reason-380-12-A-1``): a paragraph has spaces and
    parentheses, which an id and a link to it cannot hold; the posted name stays ``reason-380-12 A(1)``."""

    @property
    def auto_id(self):
        return self.form.ids[self.name]


class ChecklistForm(forms.Form):
    """One checklist's rows (issue 16 "Forms", the shared pattern of web/_form.html in a table): per item its
    finding, the document and page where it is shown, the comment (deficient), the reason (not applicable; an LID
    strategy's also the mitigation, § 380-11 B(4)(b)) and the condition that follows. Every input is optional here
    (a row left at "—" stays as it is); ``services.item_findings_record`` decides, its refusal names the input
    (``field``) and ``add_refusal`` puts it at that row's field. ``rows(items)`` gives the template each row's
    bound fields."""

    bound_field_class = _RowBoundField

    def __init__(self, *args, entries, documents, **kwargs):
        super().__init__(*args, **kwargs)
        self.ids: dict[str, str] = {}
        doc_choices = [("", "—")] + [(str(d.pk), (d.title or d.original_name)[:30]) for d in documents]
        for e in entries:
            for kind in ROW_KINDS:
                if kind == "mitigation" and not e.lid:
                    continue
                name = f"{kind}-{e.para}"
                label = {"f": "finding", "doc": "document"}.get(kind, kind)
                if kind == "f":
                    field = forms.ChoiceField(choices=FINDING_CHOICES, required=False)
                elif kind == "doc":
                    field = forms.ChoiceField(choices=doc_choices, required=False, error_messages={
                        "invalid_choice": "The document cited must be one of this file's documents."})
                else:
                    field = forms.CharField(required=False, max_length=20 if kind == "page" else 2000, strip=True)
                field.label = f"{label} § {e.para}"
                attrs = {"aria-label": field.label}
                if kind == "doc":
                    attrs["style"] = "max-width:9rem"
                elif kind in ("page",):
                    attrs["size"] = 5
                elif kind != "f":
                    attrs["size"] = 18
                field.widget.attrs.update(attrs)
                self.fields[name] = field
                self.ids[name] = f"id_{kind}-{e.key}"

    def add_error(self, field, error):
        """A service's message starts with its paragraph ("§ 380-12 A(1): say why…"), which the field's label
        already names in the error summary ("reason § 380-12 A(1): …"): said once, not twice."""
        if field in self.fields and isinstance(error, str):
            para = field.split("-", 1)[1]
            if error.startswith(f"§ {para}: "):
                error = error[len(f"§ {para}: "):]
        super().add_error(field, error)

    def rows(self, items):
        """``(entry, state, {kind: bound field})`` for each ``(entry, state)`` of a section."""
        return [(e, s, {k: self[f"{k}-{e.para}"] for k in ROW_KINDS if f"{k}-{e.para}" in self.fields})
                for e, s in items]
