from __future__ import annotations

from django import forms

from stormwater.rules.calendar import fmt_day
from stormwater.rules.money import fmt_usd
from stormwater.web.forms import CHOOSE, form_auto_id

from .models import AbatementGround, Decision, Disposition


class CreditApplicationForm(forms.Form):
    parcel_id = forms.CharField(max_length=40, label="Parcel id", help_text="As on your bill or the Assessors' map.")
    credit_code = forms.ChoiceField(label="Credit")
    statement = forms.CharField(widget=forms.Textarea(attrs={"rows": 4}),
                                label="How the property meets the criteria of the credit",
                                help_text="What is built or in place, since when, and how it is kept up. "
                                          "Ch. 295 Art. IV, credits ¶D.")

    def __init__(self, *a, types=(), parcels=(), **kw):
        super().__init__(*a, **kw)
        self.fields["credit_code"].choices = [(t.code, t.name) for t in types]
        if parcels:
            self.fields["parcel_id"] = forms.ChoiceField(choices=[(p.parcel_id, f"{p.parcel_id} · {p.address}")
                                                                  for p in parcels], label="Parcel")


class AbatementForm(forms.Form):
    bill = forms.CharField(max_length=80, label="Bill number")
    grounds = forms.MultipleChoiceField(choices=AbatementGround.choices, widget=forms.CheckboxSelectMultiple,
                                        label="Grounds")
    statement = forms.CharField(widget=forms.Textarea(attrs={"rows": 4}),
                                label="Why the billing is more likely than not in error",
                                help_text="What is wrong on the bill and what shows it. Ch. 295 Art. IV, billing ¶E.")
    amount = forms.DecimalField(min_value=0, max_digits=14, decimal_places=2, label="Amount to abate ($)")
    disposition = forms.ChoiceField(choices=Disposition.choices, label="If granted",
                                    widget=forms.RadioSelect, initial=Disposition.REFUND)
    evidence = forms.FileField(required=False, label="Evidence (PDF, PNG or JPEG)")

    def __init__(self, *a, bills=(), **kw):
        super().__init__(*a, **kw)
        if bills:
            self.fields["bill"] = forms.ChoiceField(choices=[(b.number, f"{b.number} · {b.parcel.address} · "
                                                                        f"{fmt_usd(b.amount)} issued {fmt_day(b.issue_date)}")
                                                             for b in bills], label="Bill")


class LienAbatementForm(forms.Form):
    bill = forms.CharField(max_length=80, label="Bill number")
    commitment_line = forms.IntegerField(label="Commitment line (from the Collector's commitment list)")
    grounds = forms.CharField(widget=forms.Textarea(attrs={"rows": 4}), label="Grounds (as a notice of appeal)")
    amount = forms.DecimalField(min_value=0, max_digits=14, decimal_places=2, label="Amount to abate ($)")
    assessors_copy_on = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}),
                                        label="Copy delivered to the Board of Assessors on")
    evidence = forms.FileField(required=False, label="Evidence (PDF, PNG or JPEG)")


# --- the Director's written decisions (credits ¶E, billing ¶E) -------------------------------------------
# Issue 16 "Forms": the page re-renders a refused decision with what was typed and the error at the field,
# and no outcome is preselected on a legal act (CHOOSE first). The posted names are the JSON API's
# (relief/actions.py reads them); the element ids carry the act's name (two forms can share a page).

def _decisions():
    return [CHOOSE, *Decision.choices]


class CreditDecisionForm(forms.Form):
    decision = forms.ChoiceField(choices=_decisions, label="Decision")
    percent = forms.CharField(required=False, max_length=20, label="Percent of the fee granted (a grant in part)",
                              widget=forms.TextInput(attrs={"inputmode": "decimal"}))
    reasons = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3}), label="Reasons",
                              help_text="Required unless the credit is granted in full (credits ¶E).")


class AbatementDecisionForm(forms.Form):
    decision = forms.ChoiceField(choices=_decisions, label="Decision")
    amount = forms.CharField(required=False, max_length=20, label="Amount abated ($, a grant in part)",
                             widget=forms.TextInput(attrs={"inputmode": "decimal"}))
    reasons = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3}), label="Reasons",
                              help_text="Required unless the abatement is granted in full (billing ¶E).")


DECISION_FORMS = {"decide_credit": CreditDecisionForm, "decide_abatement": AbatementDecisionForm}


def decision_form(action: str, data=None):
    return DECISION_FORMS[action](data, auto_id=form_auto_id(action))
