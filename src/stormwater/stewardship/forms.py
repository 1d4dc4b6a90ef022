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


class MaintenanceNoticeForm(forms.Form):
    """§ 380-14 E: the Director's notice to correct states the violation and the maintenance work required; the
    BMP is optional (a violation may concern the whole system)."""

    bmp = forms.TypedChoiceField(label="BMP", required=False, coerce=int, empty_value=None,
                                 help_text="The BMP the violation concerns, if one.")
    violation = forms.CharField(label="Violation", widget=forms.Textarea(attrs={"rows": 2}), strip=True,
                                error_messages={"required": "State the violation found (§ 380-14 E)."})
    corrective_work = forms.CharField(label="Maintenance work required", widget=forms.Textarea(attrs={"rows": 2}),
                                      strip=True, error_messages={"required": "State the maintenance work required "
                                                                              "(§ 380-14 E)."})

    def __init__(self, *args, site, **kwargs):
        kwargs.setdefault("auto_id", form_auto_id("notice"))
        super().__init__(*args, **kwargs)
        self.site = site
        self.fields["bmp"].choices = [("", "— the whole system —")] + [(b.pk, b.name) for b in site.bmps.all()]

    def bmp_obj(self):
        pk = self.cleaned_data.get("bmp")
        return self.site.bmps.filter(pk=pk).first() if pk else None


class EasementNoneForm(forms.Form):
    """No stormwater management easement is necessary, and why (§ 380-14 D(1), D(3)); who and when are recorded."""

    reason = forms.CharField(label="Why none is necessary", max_length=300, strip=True,
                             error_messages={"required": "Say why no stormwater management easement is necessary "
                                                         "(§ 380-14 D(1), D(3))."})

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("auto_id", form_auto_id("easement_none"))
        super().__init__(*args, **kwargs)


class VerifiedForm(forms.Form):
    """The corrections of a failure to maintain are made and verified by the Director (§ 380-14 E): how."""

    note = forms.CharField(label="How the correction was verified", max_length=2000, strip=True,
                           error_messages={"required": "Record how the correction was verified."})

    def __init__(self, *args, notice_id: int, **kwargs):
        kwargs.setdefault("auto_id", form_auto_id(f"verified-{notice_id}"))
        super().__init__(*args, **kwargs)
        self.notice_id = notice_id
