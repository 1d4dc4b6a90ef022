from django import forms

from .models import CLASS_CHOICES


class ClassOverrideForm(forms.Form):
    property_class = forms.ChoiceField(choices=[("", "— from assessor data (clear override) —"), *CLASS_CHOICES],
                                       required=False, label="Class")
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False,
                             label="Why (recorded in the audit trail)")


DATE = forms.DateInput(attrs={"type": "date"})


class InstrumentForm(forms.Form):
    """A new instrument of a property association (Ch. 295 Art. IV ¶G): the Registry facts and the unit rows, typed
    (one unit a line) or from a CSV file (columns unit_parcel_id, share_percent). The checks are the service's
    (``parcels.services.association_check``); this form only reads what was typed."""

    name = forms.CharField(max_length=200, required=False, label="Association's name",
                           help_text="Required for the parcel's first instrument; leave blank to keep the name on "
                                     "file.")
    reference = forms.CharField(max_length=200, required=False, label="Recorded instrument",
                                help_text="Hampden Registry of Deeds book and page, or Land Court document number.")
    recorded_on = forms.DateField(required=False, widget=DATE, label="Recorded on")
    effective_on = forms.DateField(required=False, widget=DATE, label="In force for bills made from",
                                   help_text="Default: the recording date. Bills already made are not changed.")
    note = forms.CharField(required=False, label="Note", widget=forms.Textarea(attrs={"rows": 2}),
                           help_text="E.g. “First amendment to the master deed: units 9–12 added”.")
    shares = forms.CharField(
        required=False, label="Units and their shares", widget=forms.Textarea(attrs={"rows": 8, "spellcheck": "false"}),
        help_text="One unit a line: the unit's parcel id, a comma, its percentage of common ownership "
                  "(e.g. 04-01-1-101, 8.3334). The shares must total exactly 100 %.")
    file = forms.FileField(required=False, label="Or a CSV file of the units",
                           help_text="Columns unit_parcel_id and share_percent, one row per unit; checked before "
                                     "anything is recorded.")

    def share_rows(self) -> list[dict]:
        """The typed lines as the service's rows (line numbers as row numbers); blank lines skipped."""
        out = []
        for n, line in enumerate((self.cleaned_data.get("shares") or "").splitlines(), 1):
            if not line.strip():
                continue
            pid, _, pct = line.replace("\t", ",").replace(";", ",").partition(",")
            if not out and pid.strip().lower() == "unit_parcel_id":
                continue  # the header row of a pasted CSV
            out.append({"row": n, "unit_parcel_id": pid.strip(), "share_percent": pct.strip()})
        return out
