"""Helpers for the sign-in tests: an authenticator app's current code, computed from a device's key the way
any RFC 6238 app does (django-otp's own totp())."""
import pytest


def app_code(device, *, steps_ahead: int = 0) -> str:
    from django_otp.oath import totp

    return f"{totp(device.bin_key, step=device.step, t0=device.t0, digits=device.digits, drift=steps_ahead):06d}"


def app_code_from_key_text(key_text: str) -> str:
    """The code for a key as the set-up page shows it (base32 in groups), as a person types it into an app."""
    from base64 import b32decode

    from django_otp.oath import totp

    return f"{totp(b32decode(key_text.replace(' ', ''))):06d}"


def sign_in(client, username, password, ip="10.0.0.1"):
    return client.post("/login/", {"username": username, "password": password}, REMOTE_ADDR=ip)


@pytest.fixture
def enrolled(db):
    """enrolled(user) → the user's confirmed authenticator device (a key only the test knows), and recovery codes."""
    from django_otp.plugins.otp_static.models import StaticDevice, StaticToken
    from django_otp.plugins.otp_totp.models import TOTPDevice

    def _enrol(user, codes=("abcd2345", "efgh6723")):
        device = TOTPDevice.objects.create(user=user, name="Authenticator app", confirmed=True)
        static = StaticDevice.objects.create(user=user, name="Recovery codes", confirmed=True)
        for c in codes:
            StaticToken.objects.create(device=static, token=c)
        return device
    return _enrol
