from django import forms

from stormwater.accounts.services import PASSWORD_RULES


class DescribedForm(forms.Form):
    """After validation each input points at its help and its error (aria-describedby) and says it is
    invalid (aria-invalid), so a screen reader reads the error when the field gets focus (WCAG 3.3.1, 1.3.1).
    The ids match templates/portal/_form.html."""

    def full_clean(self):
        super().full_clean()
        for name, field in self.fields.items():
            bf = self[name]
            ids = [f"{bf.auto_id}_helptext"] if field.help_text else []
            if name in self._errors:
                ids.append(f"{bf.auto_id}_error")
                field.widget.attrs["aria-invalid"] = "true"
            if ids:
                field.widget.attrs["aria-describedby"] = " ".join(ids)


class ParcelLookupForm(DescribedForm):
    q = forms.CharField(label="Address or parcel id", max_length=100, min_length=2,
                        help_text="For example “12 Elm” or “01-01-1”. Owner names are not searchable.")


class SignupForm(DescribedForm):
    account_number = forms.CharField(label="Account number", max_length=60,
                                     help_text="Printed on your stormwater bill, top right.",
                                     widget=forms.TextInput(attrs={"autocomplete": "off"}))
    code = forms.CharField(label="Verification code", max_length=20,
                           help_text="Printed on your bill in the box “See your bills online”, like ABCDE-FGHIJ.")
    username = forms.RegexField(label="Choose a username", max_length=150, regex=r"^[\w.@+-]+$",
                                error_messages={"invalid": "Use letters, digits and . @ + - _ only."},
                                widget=forms.TextInput(attrs={"autocomplete": "username"}))
    email = forms.EmailField(label="Email (for notices)", required=False,
                             widget=forms.EmailInput(attrs={"autocomplete": "email"}),
                             help_text="Optional. Notices about your cases are emailed here as well as mailed.")
    password1 = forms.CharField(label="Password", widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
                                help_text=PASSWORD_RULES)
    password2 = forms.CharField(label="Password again",
                                widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}))

    def clean(self):
        data = super().clean()
        if data.get("password1") and data.get("password2") and data["password1"] != data["password2"]:
            self.add_error("password2", "The two passwords differ.")
        return data


class PaperlessForm(DescribedForm):
    """Bills by e-mail only (issue 17 "Paperless bills"): the owner's choice on the portal, or the office's for them
    on the account page (parcels.services.owner_paperless_set)."""

    paperless = forms.BooleanField(label="Bills by e-mail only (no paper bill in the mail)", required=False,
                                   help_text="Your bills are e-mailed to the address below as PDFs and are no longer "
                                             "printed and mailed. Untick to get paper bills again.")
    email = forms.EmailField(label="E-mail address for bills", required=False, max_length=254,
                             widget=forms.EmailInput(attrs={"autocomplete": "email"}))
