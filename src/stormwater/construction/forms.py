"""The construction file's row forms on the shared form pattern (issue 16 "Forms", ``web/_form.html``): refused,
the file page comes back (400) with what was typed and the error at the field. Each form has its own element ids
(``web.forms.form_auto_id``) because the file page holds many forms; the posted names are unchanged."""
from __future__ import annotations

from django import forms

from stormwater.web.forms import form_auto_id


class AreaForm(forms.Form):
    """A portion of the site tracked for stabilization within 7 days after work ceases (§ 380-11 C(3)(a))."""

    name = forms.CharField(label="Area name", max_length=200, strip=True,
                           error_messages={"required": "Name the area."})

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("auto_id", form_auto_id("area"))
        super().__init__(*args, **kwargs)


class CorrectedForm(forms.Form):
    """The permittee reports a violation corrected: when, and what was done; the Director then approves the
    corrected work (§ 380-16 C(4)(e)[5])."""

    on = forms.DateField(label="Corrected on", widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
                         error_messages={"required": "Enter the date the violation was corrected.",
                                         "invalid": "Enter a real date (YYYY-MM-DD)."})
    note = forms.CharField(label="What was done", max_length=2000, strip=True,
                           error_messages={"required": "Say what was done to correct the violation."})

    def __init__(self, *args, violation_id: int, **kwargs):
        kwargs.setdefault("auto_id", form_auto_id(f"corrected-{violation_id}"))
        super().__init__(*args, **kwargs)
        self.violation_id = violation_id
