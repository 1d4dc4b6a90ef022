from datetime import date

from django import forms

from .services import fiscal_year


class BillRunForm(forms.Form):
    fiscal_year = forms.IntegerField(min_value=2000, max_value=2100, label="Fiscal year (FY)",
                                     help_text="FY2027 runs Jul 1, 2026 – Jun 30, 2027.")
    issue_date = forms.DateField(label="Issue date", widget=forms.DateInput(attrs={"type": "date"}))

    def period(self):
        return fiscal_year(self.cleaned_data["fiscal_year"])


class ResolutionForm(forms.Form):
    label = forms.CharField(max_length=200)
    adopted_on = forms.DateField(widget=forms.DateInput(attrs={"type": "date"}), initial=date.today)
    effective_from = forms.DateField(widget=forms.DateInput(attrs={"type": "date"}))
    eru_sqft = forms.DecimalField(label="ERU size (ft²)", min_value=1, decimal_places=2)
    rate_per_eru = forms.DecimalField(label="Rate per ERU ($ a year)", min_value=0, decimal_places=2)
    small_residential_rate = forms.DecimalField(label="Small residential flat rate ($ a year)", min_value=0,
                                                decimal_places=2)
    installments = forms.TypedChoiceField(choices=[(1, "1 (annual)"), (2, "2"), (3, "3"), (4, "4 (quarterly)")],
                                          coerce=int)
    interest_rate_percent = forms.DecimalField(label="Interest (% a year)", initial=12, min_value=0, max_value=100)
    demand_charge = forms.DecimalField(label="Demand charge ($)", initial=25, min_value=0, decimal_places=2)
    blocks = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 5}), label="Block table (first ERU, last ERU or blank, coefficient)",
        initial="1,10,1.0\n11,50,0.9\n51,100,0.8\n101,500,0.7")
    notes = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False)

    def clean_blocks(self):
        from decimal import Decimal, InvalidOperation

        rows = []
        for n, line in enumerate(self.cleaned_data["blocks"].splitlines(), 1):
            if not line.strip():
                continue
            parts = [p.strip() for p in line.split(",")]
            if len(parts) != 3:
                raise forms.ValidationError(f"Line {n}: expected first ERU, last ERU, coefficient")
            try:
                rows.append((int(parts[0]), int(parts[1]) if parts[1] else None, Decimal(parts[2])))
            except (ValueError, InvalidOperation):
                raise forms.ValidationError(f"Line {n}: not numbers") from None
        return rows
