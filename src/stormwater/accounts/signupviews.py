"""The sign-up page for applicants, design engineers and contractors (issue 18; ``accounts.signup``)."""
from __future__ import annotations

from django import forms
from django.shortcuts import redirect, render

from stormwater.portal import throttle

from .access import public
from .models import Registration
from .services import AccountError
from .signup import professional_signup

MSG_THROTTLED = ("Too many sign-ups from your network address. Please wait {minutes} minutes, or call the Stormwater "
                 "Division.")


class ProfessionalSignupForm(forms.Form):
    kind = forms.ChoiceField(label="I am the", choices=Registration.Kind.choices)
    first_name = forms.CharField(max_length=150, label="First name")
    last_name = forms.CharField(max_length=150, label="Last name")
    email = forms.EmailField(label="E-mail address", help_text="We e-mail you a link to choose your password: "
                                                                "you sign in only after opening it.")
    username = forms.CharField(max_length=150, label="Username", help_text="Letters, digits and . @ + - _")
    firm = forms.CharField(max_length=200, required=False, label="Firm or company")
    phone = forms.CharField(max_length=40, required=False, label="Telephone")
    mailing_address = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False, max_length=1000,
                                      label="Mailing address")
    pe_state = forms.CharField(max_length=2, required=False, label="PE registration: state",
                               help_text="Design engineers: the state of your Professional Engineer registration (MA)")
    pe_number = forms.CharField(max_length=40, required=False, label="PE registration: number")


@public
def professional_signup_view(request):
    """GET the form; POST → the account without a password and the e-mailed link, then "check your e-mail"."""
    form = ProfessionalSignupForm(request.POST or None)
    status = 200
    if request.method == "POST":
        ip = throttle.client_ip(request)
        if throttle.throttled("password-reset", "signup", ip):
            form.is_valid()
            form.add_error(None, MSG_THROTTLED.format(minutes=throttle.window_minutes()))
            status = 429
        elif form.is_valid():
            throttle.failure_note("password-reset", "signup", ip)  # every sign-up counts: no mail bombing
            d = form.cleaned_data
            try:
                professional_signup(base_url=request.build_absolute_uri("/")[:-1], **d)
            except AccountError as e:
                form.add_error(e.field if e.field in form.fields else None, str(e))
            else:
                return redirect("professional_signup_sent")
        if form.errors and status == 200:
            status = 400
    return render(request, "accounts/signup.html", {"form": form}, status=status)


@public
def professional_signup_sent(request):
    return render(request, "accounts/signup_sent.html")
