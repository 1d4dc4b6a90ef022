from datetime import date
from decimal import Decimal

from django import forms

from stormwater.rules.rate_model import DEFAULT_SAMPLE_ERUS

from .models import USE_TEXT, AllowedUse, Category, RevenueKind
from .selectors import GROUPINGS, RateModelInputs, fiscal_year_of

DATE = forms.DateInput(attrs={"type": "date"})


class BudgetLineForm(forms.Form):
    category = forms.ChoiceField(choices=Category.choices)
    allowed_use = forms.ChoiceField(
        choices=AllowedUse.choices, label="Allowed use of the fee",
        help_text="Ch. 295 Art. IV, uses of the fee ¶A–¶L (the full text is listed below the form).")
    description = forms.CharField(max_length=200)
    amount = forms.DecimalField(label="Amount ($)", min_value=Decimal("0.01"), decimal_places=2, max_digits=14)


class OtherRevenueForm(forms.Form):
    kind = forms.ChoiceField(choices=RevenueKind.choices)
    source = forms.CharField(max_length=200, help_text="who grants, lends or appropriates it")
    amount = forms.DecimalField(label="Amount ($)", min_value=Decimal("0.01"), decimal_places=2, max_digits=14)
    dated = forms.DateField(label="Date (awarded or received)", widget=DATE)
    received = forms.BooleanField(required=False, label="Received (else anticipated)")
    notes = forms.CharField(max_length=300, required=False)


class BudgetForm(forms.Form):
    reserve_use = forms.DecimalField(label="Use of reserves ($)", min_value=0, decimal_places=2, max_digits=14,
                                     help_text="the part of the budget funded from the account's reserves")
    approved_on = forms.DateField(label="Approved by the Select Board on", required=False, widget=DATE)
    notes = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False)


class ReceiptsForm(forms.Form):
    start = forms.DateField(widget=DATE)
    end = forms.DateField(widget=DATE)
    grouping = forms.ChoiceField(choices=[(g, g.replace("_", " ")) for g in GROUPINGS], initial="month")

    def clean(self):
        c = super().clean()
        if c.get("start") and c.get("end") and c["end"] < c["start"]:
            raise forms.ValidationError("The end date must not be before the start date.")
        return c


def _erus_list(text: str) -> tuple[int, ...]:
    try:
        vals = tuple(int(x) for x in text.replace(";", ",").split(",") if x.strip())
    except ValueError:
        raise forms.ValidationError("Sample ERUs: whole numbers separated by commas, e.g. 5, 20, 60, 200") from None
    if not vals or any(v < 1 or v > 100000 for v in vals) or len(vals) > 12:
        raise forms.ValidationError("Sample ERUs: 1 to 12 whole numbers, each from 1 to 100,000")
    return vals


class RateModelForm(forms.Form):
    """The inputs of the rate model. Blank budget, other revenue and reserve use: the fiscal year's own."""

    fiscal_year = forms.IntegerField(label="Fiscal year (FY)", min_value=2000, max_value=2100)
    budget = forms.DecimalField(label="Budget to fund ($)", required=False, min_value=0, decimal_places=2,
                                max_digits=14, help_text="blank: the year's budget lines")
    other_revenue = forms.DecimalField(label="Other revenue ($)", required=False, min_value=0, decimal_places=2,
                                       max_digits=14, help_text="blank: the year's grants, loans, appropriations")
    reserve_use = forms.DecimalField(label="Use of reserves ($)", required=False, min_value=0, decimal_places=2,
                                     max_digits=14, help_text="blank: the year's budget")
    collection_rate_percent = forms.DecimalField(label="Expected collection rate (%)", min_value=Decimal("0.1"),
                                                 max_value=100, decimal_places=2, initial=100)
    credit_allowance_percent = forms.DecimalField(label="Credits (% of fees)", min_value=0, max_value=Decimal("99.99"),
                                                  decimal_places=2, initial=0,
                                                  help_text="share of fees expected to go to credits")
    flat_ratio = forms.DecimalField(label="Small-residential flat rate ÷ rate per ERU", min_value=0, max_value=100,
                                    decimal_places=4, initial=1,
                                    help_text="1.0 = the flat rate is one ERU's charge")
    base_as_of = forms.DateField(label="Parcel base as of", widget=DATE, initial=date.today,
                                 help_text="the impervious survey in force on this day")
    sample_erus = forms.CharField(label="Sample bills at ERUs", initial=", ".join(map(str, DEFAULT_SAMPLE_ERUS)))

    def clean_sample_erus(self):
        return _erus_list(self.cleaned_data["sample_erus"])

    def inputs(self) -> RateModelInputs:
        c = self.cleaned_data
        return RateModelInputs(
            fiscal_year=c["fiscal_year"], base_as_of=c["base_as_of"], budget=c.get("budget"),
            other_revenue=c.get("other_revenue"), reserve_use=c.get("reserve_use"),
            collection_rate_percent=c["collection_rate_percent"],
            credit_allowance_percent=c["credit_allowance_percent"], flat_ratio=c["flat_ratio"],
            sample_erus=c["sample_erus"])

    @staticmethod
    def initial_for(today: date) -> dict:
        return {"fiscal_year": fiscal_year_of(today) + 1, "collection_rate_percent": 100, "credit_allowance_percent": 0,
                "flat_ratio": 1, "base_as_of": today, "sample_erus": ", ".join(map(str, DEFAULT_SAMPLE_ERUS))}


class AdoptForm(forms.Form):
    """The Select Board's act: a resolution from the modelled rate (Ch. 295 Art. IV budget/rates ¶D)."""

    label = forms.CharField(max_length=200)
    adopted_on = forms.DateField(widget=DATE, initial=date.today)
    effective_from = forms.DateField(widget=DATE)
    rate_per_eru = forms.DecimalField(label="Rate per ERU ($ a year)", required=False, min_value=0, decimal_places=2,
                                      max_digits=14, help_text="blank: the solved rate; never below it")
    installments = forms.TypedChoiceField(choices=[(1, "1 (annual)"), (2, "2"), (3, "3"), (4, "4 (quarterly)")],
                                          coerce=int, initial=1)
    interest_rate_percent = forms.DecimalField(label="Interest (% a year)", initial=12, min_value=0, max_value=100)
    demand_charge = forms.DecimalField(label="Demand charge ($)", initial=25, min_value=0, decimal_places=2)
    notes = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False)


USE_LEGEND = [(k, v) for k, v in USE_TEXT.items()]
