"""Stewardship's staff forms on the shared form pattern (web/forms.py, web/_form.html; issue 16 "Forms": a
refused form comes back with what was typed and the error at its field)."""
from __future__ import annotations

from django import forms

from stormwater.web.forms import form_auto_id


class SiteNewForm(forms.Form):
    """A new stewardship site (§ 380-14; e.g. to import an existing inventory into): its name is required."""

    name = forms.CharField(label="Site name", max_length=200, strip=True,
                           error_messages={"required": "Enter the site's name."})
    address = forms.CharField(label="Address", max_length=300, required=False, strip=True)

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("auto_id", form_auto_id("site"))
        super().__init__(*args, **kwargs)
