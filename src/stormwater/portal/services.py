"""Portal services: an owner signs up with the code printed on their bill (issue 9)."""
from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import transaction

from stormwater.accounts.roles import Role
from stormwater.audit.services import audit_record
from stormwater.parcels.models import Owner
from stormwater.utility.models import Account

from .codes import verification_code_matches

# One message for "no such account" and "wrong code": no probing of account numbers.
ERR_CODE = "The account number and verification code do not match a bill. Both are printed on your bill."
ERR_NO_OWNER = "No record owner is on file for this account. Please call the Stormwater Division."
ERR_LINKED = ("This owner record is already linked to a sign-in. Sign in with it, or call the Stormwater "
              "Division if you need access changed.")
ERR_USERNAME = "That username is taken. Please choose another."


class SignupError(Exception):
    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


def _owner_of(account: Account) -> Owner | None:
    return account.unit.owner if account.unit_id else account.parcel.owner


@transaction.atomic
def owner_signup(*, account_number: str, code: str, username: str, email: str, password: str):
    """Create a sign-in with role owner and link it to the record owner of ``account_number``.

    Preconditions: the code printed on that account's bills (portal.codes) matches; the account has a
    record owner; that owner is not yet linked to a sign-in (a second person must ask the office).
    """
    User = get_user_model()
    account = (Account.objects.select_related("parcel__owner", "unit__owner")
               .filter(number=account_number.strip()).first())
    if account is None or not verification_code_matches(account.number, code):
        raise SignupError(ERR_CODE, "code")
    owner = Owner.objects.select_for_update().filter(pk=getattr(_owner_of(account), "pk", None)).first()
    if owner is None:
        raise SignupError(ERR_NO_OWNER)
    if owner.user_id is not None:
        raise SignupError(ERR_LINKED)
    if User.objects.filter(username__iexact=username).exists():
        raise SignupError(ERR_USERNAME, "username")
    user = User(username=username, email=email, role=Role.OWNER)
    try:
        validate_password(password, user)
    except ValidationError as e:
        raise SignupError(" ".join(e.messages), "password1") from None
    user.set_password(password)
    user.save()
    owner.user = user
    if email and not owner.email:
        owner.email = email
    owner.save(update_fields=["user", "email"])
    audit_record(actor=user, action="portal.owner_signup", obj=owner,
                 why=f"Signed up with the verification code of account {account.number}",
                 data={"account": account.number, "user": user.pk})
    return user
