"""Sign-up for people who are not owners (issue 18): the applicant (or agent), the design engineer, the contractor.
Owners sign up with the code on their bill (``portal.services.owner_signup``); these people have no bill, so the
e-mail address is what is verified: the account is created without a usable password and the link to choose one is
e-mailed (``accounts.services.user_password_link_send``, Django's one-use token) — nobody signs in without having
read that mailbox. What they then see follows the permits they are linked to (``permits.services.permit_party_link``,
by the applicant or staff; ``permits.selectors.permits_for_user``).

A design engineer gets the consultant role (run engineering reviews, file the engineer's inspections on their own
projects) and must give the professional registration (state and number); applicants and contractors get the
owner/applicant role (apply for a permit, file reports on their own project).
"""
from __future__ import annotations

import re

from django.db import transaction

from stormwater.audit.services import audit_record

from .models import Registration, User
from .roles import Role
from .services import AccountError, user_create, user_password_link_send

KIND_ROLE = {Registration.Kind.APPLICANT: Role.OWNER, Registration.Kind.DESIGN_ENGINEER: Role.CONSULTANT,
             Registration.Kind.CONTRACTOR: Role.OWNER}
ERR_KIND = "Choose who you are: applicant, design engineer or contractor."
ERR_PE = ("A design engineer gives the professional engineer registration: the state (two letters, e.g. MA) and the "
          "number.")
ERR_NAME = "Give your first and last name (printed on what you sign)."
ERR_EMAIL_TAKEN = "An account already uses this e-mail address: sign in, or use “Forgot your password?”."


@transaction.atomic
def professional_signup(*, kind: str, username: str, email: str, first_name: str, last_name: str, base_url: str,
                        firm: str = "", phone: str = "", mailing_address: str = "", pe_state: str = "",
                        pe_number: str = "") -> User:
    """Create the account (no usable password yet) with its registration, and e-mail the link to choose the
    password. Refusals name the field (``AccountError.field``)."""
    if kind not in Registration.Kind.values:
        raise AccountError(ERR_KIND, "kind")
    if not first_name.strip() or not last_name.strip():
        raise AccountError(ERR_NAME, "first_name" if not first_name.strip() else "last_name")
    pe_state, pe_number = pe_state.strip().upper(), pe_number.strip()
    if kind == Registration.Kind.DESIGN_ENGINEER and not (re.fullmatch(r"[A-Z]{2}", pe_state) and pe_number):
        raise AccountError(ERR_PE, "pe_number" if re.fullmatch(r"[A-Z]{2}", pe_state) else "pe_state")
    if not (email or "").strip():
        raise AccountError("An e-mail address is required: the link to choose your password is sent there.", "email")
    if User.objects.filter(email__iexact=email.strip()).exists():
        raise AccountError(ERR_EMAIL_TAKEN, "email")
    user = user_create(username=username, role=KIND_ROLE[kind], email=email, password=None, acting_user=None,
                       first_name=first_name, last_name=last_name, why=f"self sign-up as {kind}")
    reg = Registration.objects.create(user=user, kind=kind, firm=firm.strip()[:200], phone=phone.strip()[:40],
                                      mailing_address=mailing_address.strip()[:1000], pe_state=pe_state[:2],
                                      pe_number=pe_number[:40])
    if reg.pe:
        user.credentials = reg.pe[:200]  # prefilled on the engineer's inspection reports (§ 380-16 C(4)(f)[1][b])
        user.save(update_fields=["credentials"])
    audit_record(actor=user, action="user.signup", obj=user,
                 data={"kind": kind, "email": user.email, "firm": reg.firm, "pe": reg.pe})
    user_password_link_send(user=user, acting_user=None, base_url=base_url, kind="new")
    return user
