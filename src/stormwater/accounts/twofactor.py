"""Two-factor sign-in (issue 14): an authenticator app (TOTP, RFC 6238, django-otp's TOTPDevice) plus ten
single-use recovery codes (django-otp's StaticDevice) for a lost phone.

Who: a staff role listed in the town configuration's ``totp_required_roles`` (default the Director and the
Collector: rules/town.py) must set it up at their first sign-in; any other staff member may set it up from
"Your account"; once set up it is asked at every sign-in. Owners and consultants sign in with a password.
A lost phone without recovery codes: the Director resets it on the users page, or ``stormwater user
reset-two-factor`` on the server.
"""
from __future__ import annotations

from base64 import b32encode

import segno
from django.db import transaction
from django_otp.plugins.otp_static.models import StaticDevice, StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice

from stormwater.audit.services import audit_record
from stormwater.townconfig import town_config

from .services import AccountError

RECOVERY_CODES = 10
DEVICE_NAME = "Authenticator app"

ERR_CODE = "That code is not right. Enter the 6-digit code your authenticator app shows now."
ERR_RECOVERY = "That recovery code is not right, or was used already (each works once)."
ERR_WAIT = "Too many wrong codes: for your security, wait {seconds} seconds before the next try."
ERR_NOT_STAFF = "Two-factor sign-in is for staff accounts."


def required_for(user) -> bool:
    """The town configuration requires two-factor sign-in for this person's role (town.toml)."""
    return user.role in town_config().totp_required_roles


def enrolled(user) -> bool:
    return TOTPDevice.objects.filter(user=user, confirmed=True).exists()


def needed_at_sign_in(user) -> bool:
    """A second step after the password: the role requires it, or the person set it up themselves."""
    return user.is_staff_role and (required_for(user) or enrolled(user))


def recovery_codes_left(user) -> int:
    return StaticToken.objects.filter(device__user=user, device__confirmed=True).count()


def totp_device_pending(*, user) -> TOTPDevice:
    """The not-yet-confirmed authenticator device whose key the set-up page shows (one per person; it takes
    effect only once a code from it is entered, so it is not audited until then)."""
    if not user.is_staff_role:
        raise AccountError(ERR_NOT_STAFF)
    device = TOTPDevice.objects.filter(user=user, confirmed=False).order_by("pk").first()
    return device or TOTPDevice.objects.create(user=user, name=DEVICE_NAME, confirmed=False)


def totp_key_text(device: TOTPDevice) -> str:
    """The key in base32 groups of four, for typing into an app that cannot scan."""
    key = b32encode(device.bin_key).decode()
    return " ".join(key[i:i + 4] for i in range(0, len(key), 4))


def totp_qr_data_uri(device: TOTPDevice) -> str:
    """The otpauth:// URL as a QR code, an SVG data: URI for an <img> (the CSP allows data: images only)."""
    return segno.make(device.config_url, error="m").svg_data_uri(scale=5, border=4, dark="#000", light="#fff")


def _recovery_codes_replace(user) -> list[str]:
    StaticDevice.objects.filter(user=user).delete()
    device = StaticDevice.objects.create(user=user, name="Recovery codes", confirmed=True)
    codes = [StaticToken.random_token() for _ in range(RECOVERY_CODES)]
    StaticToken.objects.bulk_create([StaticToken(device=device, token=c) for c in codes])
    return codes


@transaction.atomic
def totp_device_confirm(*, user, token: str, acting_user) -> list[str]:
    """Confirm the pending device with a code from the app; it replaces any earlier app. → the new recovery
    codes (shown once; only django-otp's copies remain)."""
    device = TOTPDevice.objects.select_for_update().filter(user=user, confirmed=False).order_by("pk").first()
    if device is None:
        raise AccountError("Open the set-up page again: there is no authenticator app waiting to be confirmed.")
    if not device.verify_token(_digits(token)):
        raise AccountError(ERR_CODE, "code")
    TOTPDevice.objects.filter(user=user).exclude(pk=device.pk).delete()
    device.confirmed = True
    device.save(update_fields=["confirmed"])
    codes = _recovery_codes_replace(user)
    audit_record(actor=acting_user, action="auth.two_factor_enrol", obj=user,
                 data={"username": user.username, "recovery_codes": len(codes)})
    return codes


@transaction.atomic
def recovery_codes_new(*, user, acting_user) -> list[str]:
    """Ten new recovery codes; the old ones stop working."""
    if not enrolled(user):
        raise AccountError("Set up an authenticator app first.")
    codes = _recovery_codes_replace(user)
    audit_record(actor=acting_user, action="auth.recovery_codes_new", obj=user,
                 data={"username": user.username, "recovery_codes": len(codes)})
    return codes


def _digits(token: str) -> str:
    return "".join(ch for ch in (token or "") if not ch.isspace())


def _recovery_form(token: str) -> str:
    return "".join(ch for ch in (token or "").lower() if ch.isalnum())


def is_app_code(token: str) -> bool:
    t = _digits(token)
    return len(t) == 6 and t.isdigit()


def verify(*, user, token: str) -> tuple[object, str]:
    """Check a sign-in code: 6 digits against the authenticator app, anything else against the recovery codes.
    → (device, "authenticator app" | "recovery code"); AccountError when wrong or while django-otp's own
    throttle (doubling waits after each failure, per device) holds the device."""
    app = is_app_code(token)
    model, value, how = ((TOTPDevice, _digits(token), "authenticator app") if app
                         else (StaticDevice, _recovery_form(token), "recovery code"))
    with transaction.atomic():
        for device in model.objects.select_for_update().filter(user=user, confirmed=True):
            allowed, info = device.verify_is_allowed()
            if not allowed:
                raise AccountError(ERR_WAIT.format(seconds=_seconds_until(info)), "code")
            if device.verify_token(value):
                return device, how
    raise AccountError(ERR_CODE if app else ERR_RECOVERY, "code")


def _seconds_until(info) -> int:
    from django.utils import timezone

    until = (info or {}).get("locked_until")
    return max(1, int((until - timezone.now()).total_seconds()) + 1) if until else 1
