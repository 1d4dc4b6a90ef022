from datetime import date

from django import forms

from .models import LienChannel, Tender

DATE = {"widget": forms.DateInput(attrs={"type": "date"})}


class SearchForm(forms.Form):
    q = forms.CharField(label="Owner name, address, parcel id, bill number or account number", max_length=120,
                        required=False)


class ReceiptForm(forms.Form):
    amount = forms.DecimalField(label="Amount ($)", decimal_places=2, min_value=0.01, max_digits=12)
    tender = forms.ChoiceField(choices=Tender.choices, initial=Tender.CHECK)
    reference = forms.CharField(label="Check number / reference", max_length=80, required=False)
    payer = forms.CharField(label="Paid by (if not the owner)", max_length=200, required=False)
    received_on = forms.DateField(label="Received on", initial=date.today, **DATE)
    confirm_duplicate = forms.BooleanField(label="Yes, post it: this is a second payment, not the same one again",
                                           required=False, widget=forms.HiddenInput)


class ScanForm(forms.Form):
    """Scan and post (issue 25): a stack of stubs, keyboard only. The scanline comes last because a USB scanner types
    it and presses Enter, which sends the form; the tender stays as chosen for the next stub."""

    tender = forms.ChoiceField(choices=Tender.choices, initial=Tender.CHECK)
    reference = forms.CharField(label="Check number / reference (type it before scanning the stub)", max_length=80,
                                required=False)
    amount = forms.DecimalField(label="Amount ($), if not the stub's", decimal_places=2, min_value=0.01,
                                max_digits=12, required=False,
                                help_text="Leave empty to take the amount printed on the stub.")
    scanline = forms.CharField(label="Scan the stub", max_length=120,
                               help_text="The line under the bill's tear-off stub: account, amount in cents, check "
                                         "digit.")
    confirm_duplicate = forms.BooleanField(label="Yes, post it: this is a second payment, not the same one again",
                                           required=False, widget=forms.HiddenInput)

    def __init__(self, *args, focus: str = "scanline", **kw):
        super().__init__(*args, **kw)
        self.fields[focus].widget.attrs["autofocus"] = True
        self.fields["scanline"].widget.attrs.update({"autocomplete": "off", "spellcheck": "false"})


class EmailForm(forms.Form):
    to = forms.EmailField(label="E-mail the receipt to")


class CloseBatchForm(forms.Form):
    cash = forms.DecimalField(label="Cash counted ($)", decimal_places=2, min_value=0, max_digits=12, initial=0)
    check = forms.DecimalField(label="Checks counted ($)", decimal_places=2, min_value=0, max_digits=12, initial=0)
    card = forms.DecimalField(label="Card slips ($)", decimal_places=2, min_value=0, max_digits=12, initial=0)
    ach = forms.DecimalField(label="ACH ($)", decimal_places=2, min_value=0, max_digits=12, initial=0)
    over_short_reason = forms.CharField(label="Why the count differs (when over or short)", required=False,
                                        max_length=1000, widget=forms.Textarea(attrs={"rows": 2}),
                                        help_text="Required when the count is over or short; a second person "
                                                  "approves the difference before the batch is deposited.")


class DepositForm(forms.Form):
    deposited_on = forms.DateField(label="Deposited on", initial=date.today, **DATE)
    bank_amount = forms.DecimalField(label="Bank deposit amount ($)", decimal_places=2, min_value=0, max_digits=12)
    bank_reference = forms.CharField(label="Bank reference", max_length=80, required=False)


class DayForm(forms.Form):
    day = forms.DateField(label="Day", required=False, **DATE)

    def value(self) -> date:
        from django.utils import timezone

        return (self.cleaned_data.get("day") if self.is_valid() else None) or timezone.localdate()


class RangeForm(forms.Form):
    start = forms.DateField(label="From", **DATE)
    end = forms.DateField(label="Through", **DATE)

    def clean(self):
        cd = super().clean()
        if cd.get("start") and cd.get("end") and cd["end"] < cd["start"]:
            raise forms.ValidationError("The end is before the start.")
        return cd


class LienRequestForm(forms.Form):
    parcel_id = forms.CharField(label="Parcel id or street address", max_length=120,
                                help_text="e.g. 01-01-1, or 12 Elm Street")
    requester_name = forms.CharField(label="Requested by (name)", max_length=200)
    requester_role = forms.CharField(label="As (buyer, closing attorney, lender …)", max_length=80, required=False)
    requester_email = forms.EmailField(label="E-mail (the certificate is sent there when issued)", required=False)


class CounterLienRequestForm(LienRequestForm):
    channel = forms.ChoiceField(choices=LienChannel.choices, initial=LienChannel.COUNTER)
    fee_tender = forms.ChoiceField(label="Take the fee now at the window", required=False,
                                   choices=[("", "Not now (or paid elsewhere)"), *Tender.choices],
                                   help_text="Receipted into your open batch (MGL c.60 §23 fee).")
    fee_reference = forms.CharField(label="Check number, or where the fee was paid", max_length=80, required=False)


class FeeForm(forms.Form):
    tender = forms.ChoiceField(choices=Tender.choices, initial=Tender.CHECK)
    reference = forms.CharField(label="Check number / reference", max_length=80, required=False)
    payer = forms.CharField(label="Paid by", max_length=200, required=False)


class RefundRequestForm(forms.Form):
    amount = forms.DecimalField(label="Refund ($)", decimal_places=2, min_value=0.01, max_digits=12)
    payee = forms.CharField(max_length=200)
    payee_address = forms.CharField(label="Mail to", widget=forms.Textarea(attrs={"rows": 3}), required=False)
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}))


class DecisionForm(forms.Form):
    note = forms.CharField(label="Note", max_length=500, required=False)
