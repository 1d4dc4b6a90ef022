from datetime import date

from django import forms

from .models import PaymentMethod


class PaymentForm(forms.Form):
    account = forms.CharField(label="Account number", max_length=60)
    amount = forms.DecimalField(label="Amount ($)", decimal_places=2, min_value=0.01)
    received_on = forms.DateField(label="Received on", initial=date.today, widget=forms.DateInput(attrs={"type": "date"}))
    method = forms.ChoiceField(choices=PaymentMethod.choices, initial=PaymentMethod.CHECK)
    reference = forms.CharField(label="Reference (check number …)", max_length=80, required=False)
    # Shown only when the payment matches one already posted (selectors.payment_duplicates; issue 16).
    confirm_duplicate = forms.BooleanField(required=False, label="Post it anyway: this is a second payment, "
                                                                 "not the same one entered again")

    def __init__(self, *args, ask_duplicate: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        if not ask_duplicate:
            del self.fields["confirm_duplicate"]


def duplicate_message(dups) -> str:
    """What the Collector sees (and the API answers) when a payment matches one already posted."""
    first = dups[0]
    by = f" by {first.created_by}" if first.created_by_id else (f" from {first.batch.filename}" if first.batch_id else "")
    more = f" (and {len(dups) - 1} more)" if len(dups) > 1 else ""
    return (f"A payment of ${first.amount} with reference {first.reference or '(none)'} received {first.received_on} "
            f"was already posted to {first.account.number} (payment {first.pk}, entered {first.created_at:%Y-%m-%d}"
            f"{by}){more}. Is this a second payment?")


class BatchForm(forms.Form):
    file = forms.FileField(label="Lockbox / bank file (CSV: account, amount, received_on, reference[, method])")
    kind = forms.ChoiceField(label="Kind of file", required=False, initial="lockbox", choices=[
        ("lockbox", "Lockbox or bank file (the columns above)"),
        ("processor", "Online payment processor's daily file (columns as the town configuration maps them)")])
    check_only = forms.BooleanField(label="Check only: list what would post and post nothing", required=False)


class ReverseForm(forms.Form):
    reason = forms.CharField(label="Why (e.g. returned for insufficient funds)", max_length=300)
    reversed_on = forms.DateField(label="Reversed on", initial=date.today, widget=forms.DateInput(attrs={"type": "date"}))
    # issue 17: a check the bank returned adds the town's returned-check charge (cashier.returns)
    returned_check = forms.BooleanField(label="A check returned unpaid by the bank (adds the returned-check charge)",
                                        required=False)


class AsOfForm(forms.Form):
    as_of = forms.DateField(label="As of", required=False, widget=forms.DateInput(attrs={"type": "date"}))

    def day(self) -> date:
        return (self.cleaned_data.get("as_of") if self.is_valid() else None) or date.today()


class CommitForm(forms.Form):
    tax_fiscal_year = forms.IntegerField(label="Tax bill fiscal year (FY)", min_value=2000, max_value=2100)
    committed_on = forms.DateField(label="Committed on", initial=date.today, widget=forms.DateInput(attrs={"type": "date"}))


class BackBillForm(forms.Form):
    parcel_id = forms.CharField(label="Parcel id", max_length=40)
    period_start = forms.DateField(widget=forms.DateInput(attrs={"type": "date"}))
    period_end = forms.DateField(widget=forms.DateInput(attrs={"type": "date"}))
    issue_date = forms.DateField(initial=date.today, widget=forms.DateInput(attrs={"type": "date"}))


class CloseForm(forms.Form):
    closed_through = forms.DateField(label="Close the books through", widget=forms.DateInput(attrs={"type": "date"}))


class LienPaidForm(forms.Form):
    paid_on = forms.DateField(initial=date.today, widget=forms.DateInput(attrs={"type": "date"}))
    amount = forms.DecimalField(decimal_places=2, min_value=0.01)
