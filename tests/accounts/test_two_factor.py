"""Two-factor sign-in (issue 14): an authenticator app (TOTP) and recovery codes; required for the roles the
town configuration names (default: director, collector), optional for other staff."""
from __future__ import annotations

import re
from datetime import date

import pytest
from django.test import Client
from django_otp.plugins.otp_static.models import StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice

from stormwater.audit.models import AuditEvent

from .conftest import app_code, app_code_from_key_text, sign_in

pytestmark = pytest.mark.django_db
DAY = date(2026, 9, 14)


def _key_on_page(html: str) -> str:
    return re.search(r'<code id="totp-key">([A-Z2-7 ]+)</code>', html).group(1)


def test_a_director_without_an_app_sets_one_up_before_being_signed_in(personas, at):
    at(DAY, 9, 0)
    c = Client()
    r = sign_in(c, "director", "pw-director")
    assert r.status_code == 302 and r.url == "/login/two-factor/set-up/"
    assert "_auth_user_id" not in c.session                    # nobody is signed in yet
    assert c.get("/parcels/").status_code == 302
    page = c.get("/login/two-factor/set-up/").content.decode()
    assert 'src="data:image/svg+xml' in page and "director, collector" in page
    key = _key_on_page(page)
    assert c.get("/login/two-factor/set-up/").content.decode().count(key) == 1   # the same key until confirmed
    r = c.post("/login/two-factor/set-up/", {"code": "000000" if app_code_from_key_text(key) != "000000" else "111111"})
    assert r.status_code == 200 and "That code is not right" in r.content.decode()
    r = c.post("/login/two-factor/set-up/", {"code": app_code_from_key_text(key)})
    assert r.status_code == 302 and r.url.startswith("/account/two-factor/recovery-codes/")
    codes = re.findall(r"<li><code>([a-z2-7]{8})</code></li>", c.get(r.url).content.decode())
    assert len(codes) == 10 and set(codes) == set(StaticToken.objects.values_list("token", flat=True))
    assert c.get("/account/two-factor/recovery-codes/").status_code == 302   # shown once
    assert c.get("/parcels/").status_code == 200
    assert [e.action for e in AuditEvent.objects.order_by("id")] == [
        "auth.password_accepted", "auth.two_factor_enrol", "auth.login"]
    assert AuditEvent.objects.get(action="auth.login").data["method"] == "password + new authenticator app"
    assert TOTPDevice.objects.get(user=personas["director"]).confirmed


def test_once_set_up_every_sign_in_asks_for_the_code(personas, enrolled, at):
    at(DAY, 9, 0)
    device = enrolled(personas["collector"])
    c = Client()
    r = sign_in(c, "collector", "pw-collector")
    assert r.url == "/login/two-factor/" and "_auth_user_id" not in c.session
    r = c.post("/login/two-factor/", {"code": "12345"})
    assert r.status_code == 200 and "That recovery code is not right" in r.content.decode()
    failed = AuditEvent.objects.get(action="auth.login_failed")
    assert failed.data["stage"] == "two-factor" and failed.actor is None
    at(DAY, 9, 1)  # django-otp doubles a wait after each wrong code (1 s after the first)
    r = c.post("/login/two-factor/", {"code": app_code(device)})
    assert r.status_code == 302 and r.url == "/" and c.get("/parcels/").status_code == 200
    assert AuditEvent.objects.get(action="auth.login").data["method"] == "password + authenticator app"


def test_a_code_works_once(personas, enrolled, at):
    at(DAY, 9, 0)
    device = enrolled(personas["director"])
    code = app_code(device)
    c = Client()
    sign_in(c, "director", "pw-director")
    assert c.post("/login/two-factor/", {"code": code}).status_code == 302
    other = Client()
    sign_in(other, "director", "pw-director")
    r = other.post("/login/two-factor/", {"code": code})  # replayed within the same 30 s
    assert r.status_code == 200 and "_auth_user_id" not in other.session


def test_a_recovery_code_signs_in_once(personas, enrolled, at):
    at(DAY, 9, 0)
    enrolled(personas["director"], codes=("abcd2345", "efgh6723"))
    c = Client()
    sign_in(c, "director", "pw-director")
    r = c.post("/login/two-factor/", {"code": "ABCD 2345"})
    assert r.status_code == 302
    assert "You signed in with a recovery code; 1 left" in c.get("/").content.decode()
    assert AuditEvent.objects.get(action="auth.login").data["method"] == "password + recovery code"
    c2 = Client()
    at(DAY, 9, 5)
    sign_in(c2, "director", "pw-director")
    assert c2.post("/login/two-factor/", {"code": "abcd2345"}).status_code == 200  # used


def test_five_wrong_codes_send_the_person_back_to_the_password(personas, enrolled, at):
    device = enrolled(personas["director"])
    c = Client()
    at(DAY, 9, 0)
    sign_in(c, "director", "pw-director")
    for minute in range(1, 6):
        at(DAY, 9, minute)  # past django-otp's doubling wait each time
        r = c.post("/login/two-factor/", {"code": f"{(int(app_code(device)) + 1) % 1000000:06d}"})
    assert r.status_code == 302 and r.url == "/login/"
    assert "Too many wrong codes" in c.get("/login/").content.decode()
    assert c.get("/login/two-factor/").url == "/login/"
    assert AuditEvent.objects.filter(action="auth.login_failed", data__stage="two-factor").count() == 5


def test_django_otp_makes_the_next_try_wait_after_a_wrong_code(personas, enrolled, at):
    device = enrolled(personas["director"])
    c = Client()
    at(DAY, 9, 0)
    sign_in(c, "director", "pw-director")
    c.post("/login/two-factor/", {"code": f"{(int(app_code(device)) + 1) % 1000000:06d}"})
    r = c.post("/login/two-factor/", {"code": app_code(device)})  # the same frozen second: still waiting
    assert "Too many wrong codes: for your security, wait" in r.content.decode()


def test_the_code_step_expires_after_ten_minutes(personas, enrolled, at):
    device = enrolled(personas["director"])
    c = Client()
    at(DAY, 9, 0)
    sign_in(c, "director", "pw-director")
    at(DAY, 9, 11)
    r = c.post("/login/two-factor/", {"code": app_code(device)})
    assert r.status_code == 302 and r.url == "/login/" and "_auth_user_id" not in c.session


def test_a_password_alone_cannot_replace_an_app_that_is_set_up(personas, enrolled):
    enrolled(personas["director"])
    c = Client()
    sign_in(c, "director", "pw-director")
    assert c.get("/login/two-factor/set-up/").url == "/login/two-factor/"
    assert c.post("/login/two-factor/set-up/", {"code": "123456"}).url == "/login/two-factor/"
    assert TOTPDevice.objects.filter(user=personas["director"]).count() == 1


def test_other_staff_sign_in_with_a_password_until_they_choose_two_factor(personas, at):
    at(DAY, 9, 0)
    c = Client()
    assert sign_in(c, "staff", "pw-staff").url == "/"
    page = c.get("/account/").content.decode()
    assert "Optional for your role" in page
    key = _key_on_page(c.get("/account/two-factor/").content.decode())
    r = c.post("/account/two-factor/", {"code": app_code_from_key_text(key)})
    assert r.url == "/account/two-factor/recovery-codes/"
    at(DAY, 9, 1)
    assert sign_in(Client(), "staff", "pw-staff").url == "/login/two-factor/"


def test_an_owner_is_not_offered_two_factor(client, personas):
    client.force_login(personas["owner"])
    assert client.get("/account/two-factor/").status_code == 403
    assert "Two-factor sign-in" not in client.get("/account/").content.decode()


def test_the_town_may_not_require_it(personas, town_toml):
    town_toml(totp_required_roles=[])
    c = Client()
    assert sign_in(c, "director", "pw-director").url == "/"


def test_the_town_may_require_it_for_another_role(personas, town_toml):
    town_toml(totp_required_roles=["director", "collector", "inspector"])
    assert sign_in(Client(), "inspector", "pw-inspector").url == "/login/two-factor/set-up/"


def test_new_recovery_codes_replace_the_old(client, personas, enrolled):
    enrolled(personas["director"], codes=("abcd2345",))
    client.force_login(personas["director"])
    r = client.post("/account/two-factor/recovery-codes/")
    codes = re.findall(r"<li><code>([a-z2-7]{8})</code></li>", client.get(r.url).content.decode())
    assert len(codes) == 10 and "abcd2345" not in StaticToken.objects.values_list("token", flat=True)
    assert AuditEvent.objects.filter(action="auth.recovery_codes_new").count() == 1


def test_moving_to_a_new_phone_replaces_the_app(client, personas, enrolled, at):
    at(DAY, 9, 0)
    old = enrolled(personas["director"])
    client.force_login(personas["director"])
    page = client.get("/account/two-factor/").content.decode()
    assert "This replaces the authenticator app you use now" in page
    client.post("/account/two-factor/", {"code": app_code_from_key_text(_key_on_page(page))})
    devices = TOTPDevice.objects.filter(user=personas["director"])
    assert devices.count() == 1 and devices.get().pk != old.pk and devices.get().confirmed
