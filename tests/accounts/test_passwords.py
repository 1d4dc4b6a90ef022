"""Passwords (issue 14): the validators, a change by the person, a reset by e-mailed link (Django's views)."""
from __future__ import annotations

import re

import pytest
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.test import Client

from stormwater.accounts.models import User
from stormwater.accounts.roles import Role
from stormwater.audit.models import AuditEvent

from .conftest import app_code, sign_in

pytestmark = pytest.mark.django_db
NEW = "Quabbin reservoir 1939"


@pytest.mark.parametrize("password,user_kw,why", [
    ("longmeadow1", {}, "at least 12 characters"),
    ("sam.ortiz.2026", {"username": "sam.ortiz"}, "too similar to the username"),
    ("samortiz@townhall", {"email": "samortiz@townhall.example"}, "too similar to the email"),
    ("Ortiz-Ortiz-Ortiz", {"last_name": "Ortiz-Ortiz"}, "too similar to the last name"),
    ("qwertyuiop123", {}, "too common"),
    ("201309876543", {}, "entirely numeric"),
])
def test_the_validators_refuse(password, user_kw, why):
    user = User(**({"username": "someone", "email": "someone@example.org"} | user_kw))
    with pytest.raises(ValidationError, match=why):
        validate_password(password, user)


def test_the_demo_password_and_a_passphrase_pass():
    validate_password("stormwater-demo", User(username="director", email="director@longmeadow.example"))
    validate_password(NEW, User(username="sam", email="sam@longmeadow.example", first_name="Sam"))


def test_the_sign_up_page_states_the_same_rules(client, db):
    assert "At least 12 characters" in client.get("/portal/sign-up/").content.decode()


def test_a_change_needs_the_current_password_and_the_rules(client, personas):
    staff = personas["staff"]
    client.force_login(staff)
    assert client.get("/account/password/").status_code == 200
    r = client.post("/account/password/", {"old_password": "nope", "new_password1": NEW, "new_password2": NEW})
    assert r.status_code == 200 and "Your old password was entered incorrectly" in r.content.decode()
    r = client.post("/account/password/",
                    {"old_password": "pw-staff", "new_password1": "short", "new_password2": "short"})
    assert r.status_code == 200 and "at least 12 characters" in r.content.decode()
    assert 'aria-invalid="true"' in r.content.decode()
    staff.refresh_from_db()
    assert staff.check_password("pw-staff") and not AuditEvent.objects.filter(action="auth.password_change").exists()


def test_a_change_keeps_this_session_ends_the_others_and_is_audited(personas):
    here, elsewhere = Client(), Client()
    for c in (here, elsewhere):
        assert sign_in(c, "staff", "pw-staff").status_code == 302
    r = here.post("/account/password/", {"old_password": "pw-staff", "new_password1": NEW, "new_password2": NEW})
    assert r.status_code == 302 and r.url == "/account/"
    assert "Your password is changed" in here.get("/account/").content.decode()
    assert here.get("/parcels/").status_code == 200
    assert elsewhere.get("/parcels/").status_code == 302  # signed out there
    row = AuditEvent.objects.get(action="auth.password_change")
    assert row.actor == personas["staff"] and NEW not in str(row.data)


def _reset_link(mail) -> str:
    return re.search(r"https?://[^/\s]+(/password-reset/[^\s]+/)", mail.body).group(1)


def test_a_forgotten_password_is_reset_by_the_emailed_link(personas, mailoutbox):
    staff = personas["staff"]
    staff.email = "sam@longmeadow.example"
    staff.save()
    c = Client()
    assert "Forgot your password?" in c.get("/login/").content.decode()
    r = c.post("/password-reset/", {"email": "SAM@longmeadow.example"}, REMOTE_ADDR="10.2.2.2")
    assert r.status_code == 302 and r.url == "/password-reset/sent/"
    (mail,) = mailoutbox
    assert mail.to == ["sam@longmeadow.example"] and "username staff" in mail.body
    link = _reset_link(mail)
    r = c.get(link)
    assert r.status_code == 302 and r.url.endswith("/set-password/")  # the token leaves the address bar
    r = c.post(r.url, {"new_password1": "staff2026", "new_password2": "staff2026"})
    assert r.status_code == 200 and "too similar to the username" in r.content.decode()
    r = c.post(r.wsgi_request.path, {"new_password1": NEW, "new_password2": NEW})
    assert r.status_code == 302 and r.url == "/password-reset/done/"
    staff.refresh_from_db()
    assert staff.check_password(NEW)
    assert c.get("/parcels/").status_code == 302  # a reset does not sign in
    assert Client().get(link).content.decode().count("This link does not work") == 1  # one use
    req = AuditEvent.objects.get(action="auth.password_reset_request")
    assert req.data["email"] == "SAM@longmeadow.example" and req.data["sent_to_accounts"] == ["staff"]
    assert req.data["ip"] == "10.2.2.2" and req.object_id == str(staff.pk)
    done = AuditEvent.objects.get(action="auth.password_reset")
    assert done.actor == staff and done.object_id == str(staff.pk)
    assert sign_in(Client(), "staff", NEW).status_code == 302


def test_an_unknown_address_looks_the_same_and_sends_nothing(client, personas, mailoutbox):
    r = client.post("/password-reset/", {"email": "nobody@example.org"})
    assert r.status_code == 302 and r.url == "/password-reset/sent/"
    assert mailoutbox == []
    assert AuditEvent.objects.get(action="auth.password_reset_request").data["sent_to_accounts"] == []


def test_a_deactivated_account_gets_no_link(client, personas, mailoutbox):
    User.objects.filter(username="staff").update(email="sam@longmeadow.example", is_active=False)
    client.post("/password-reset/", {"email": "sam@longmeadow.example"})
    assert mailoutbox == []


def test_reset_requests_are_throttled_per_address(personas, mailoutbox, settings):
    settings.PASSWORD_RESET_THROTTLE_REQUESTS = 3
    User.objects.filter(username="staff").update(email="sam@longmeadow.example")
    c = Client()
    codes = [c.post("/password-reset/", {"email": "sam@longmeadow.example"}, REMOTE_ADDR="10.3.3.3").status_code
             for _ in range(4)]
    assert codes == [302, 302, 302, 429] and len(mailoutbox) == 3
    r = c.post("/password-reset/", {"email": "sam@longmeadow.example"}, REMOTE_ADDR="10.3.3.3")
    assert "Too many password-reset requests from your network address" in r.content.decode()
    assert Client().post("/password-reset/", {"email": "sam@longmeadow.example"},
                         REMOTE_ADDR="10.4.4.4").status_code == 302


def test_a_reset_does_not_skip_two_factor_sign_in(personas, mailoutbox, enrolled):
    director = personas["director"]
    director.email = "dana@longmeadow.example"
    director.save()
    enrolled(director)
    c = Client()
    c.post("/password-reset/", {"email": "dana@longmeadow.example"})
    r = c.get(_reset_link(mailoutbox[0]))
    c.post(r.url, {"new_password1": NEW, "new_password2": NEW})
    r = sign_in(c, "director", NEW)
    assert r.status_code == 302 and r.url == "/login/two-factor/" and "_auth_user_id" not in c.session
