from django import forms

from .models import CLASS_CHOICES


class ClassOverrideForm(forms.Form):
    property_class = forms.ChoiceField(choices=[("", "— from assessor data (clear override) —"), *CLASS_CHOICES],
                                       required=False, label="Class")
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False,
                             label="Why (recorded in the audit trail)")
