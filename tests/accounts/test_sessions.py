"""Sessions (issue 14): staff sessions end when idle (town configuration), a role change or deactivation ends
the person's sessions, sign-in and sign-out are audited, and sign-in is throttled per address as well as per
username + address."""
from __future__ import annotations

from datetime import date

import pytest
from django.test import Client

from stormwater.accounts.models import User
from stormwater.accounts.roles import Role
from stormwater.accounts.services import user_deactivate, user_set_role
from stormwater.audit.models import AuditEvent

from .conftest import sign_in

pytestmark = pytest.mark.django_db
DAY = date(2026, 9, 14)


def test_a_staff_session_lives_while_used_and_ends_after_thirty_idle_minutes(client, personas, at):
    at(DAY, 9, 0)
    sign_in(client, "staff", "pw-staff")
    at(DAY, 9, 29)
    assert client.get("/parcels/").status_code == 200
    at(DAY, 9, 58)  # 29 minutes after the last request
    assert client.get("/parcels/").status_code == 200
    at(DAY, 10, 29)  # 31 minutes
    r = client.get("/parcels/")
    assert r.status_code == 302 and r.url == "/login/?next=/parcels/"
    assert "_auth_user_id" not in client.session
    assert "signed out after 30 minutes without activity" in client.get(r.url).content.decode()
    row = AuditEvent.objects.filter(action="auth.logout").get()
    assert row.actor == personas["staff"] and row.data["reason"] == "idle for more than 30 minutes"


def test_the_api_answers_401_after_the_idle_timeout(client, personas, at):
    at(DAY, 9, 0)
    client.force_login(personas["staff"])
    client.get("/")
    at(DAY, 9, 45)
    assert client.get("/api/parcels/").status_code == 401


def test_the_town_sets_the_idle_minutes(client, personas, at, town_toml):
    town_toml(staff_idle_minutes=10)
    at(DAY, 9, 0)
    client.force_login(personas["clerk"])
    assert client.get("/parcels/").status_code == 200
    at(DAY, 9, 11)
    assert client.get("/parcels/").status_code == 302


def test_an_owner_keeps_the_ordinary_session(client, personas, at):
    at(DAY, 9, 0)
    sign_in(client, "owner", "pw-owner")
    at(date(2026, 9, 20), 9, 0)  # six days later
    assert client.get("/parcels/").status_code == 200
    assert not AuditEvent.objects.filter(action="auth.logout").exists()


def test_a_role_change_ends_the_persons_open_sessions(personas):
    c = Client()
    sign_in(c, "inspector", "pw-inspector")
    assert c.get("/parcels/").status_code == 200
    user_set_role(user=personas["inspector"], role=Role.STAFF, acting_user=personas["director"])
    r = c.get("/parcels/")
    assert r.status_code == 302 and r.url.startswith("/login/")


def test_deactivation_ends_the_persons_open_sessions_and_refuses_sign_in(personas):
    c = Client()
    sign_in(c, "assessor", "pw-assessor")
    user_deactivate(user=personas["assessor"], acting_user=personas["director"])
    assert c.get("/parcels/").status_code == 302
    r = sign_in(Client(), "assessor", "pw-assessor")
    assert r.status_code == 200 and "didn't match" in r.content.decode()


def test_sign_out_is_audited(client, personas):
    sign_in(client, "staff", "pw-staff", ip="10.9.9.9")
    client.post("/logout/", REMOTE_ADDR="10.9.9.9")
    row = AuditEvent.objects.get(action="auth.logout")
    assert row.actor == personas["staff"] and row.data["reason"] == "signed out" and row.data["ip"] == "10.9.9.9"


def test_a_sign_in_row_says_who_how_and_from_where(personas):
    c = Client(HTTP_USER_AGENT="Firefox/140")
    sign_in(c, "staff", "pw-staff", ip="10.5.5.5")
    row = AuditEvent.objects.get(action="auth.login")
    assert (row.actor, row.object_id) == (personas["staff"], str(personas["staff"].pk))
    assert row.data == {"username": "staff", "method": "password", "ip": "10.5.5.5", "user_agent": "Firefox/140"}


def test_a_failed_sign_in_for_an_unknown_username_is_recorded_without_an_account(personas):
    sign_in(Client(), "nosuchperson", "Spring2026!!", ip="10.6.6.6")
    row = AuditEvent.objects.get(action="auth.login_failed")
    assert row.actor is None and row.object_id == "" and row.data["username"] == "nosuchperson"
    assert row.data["stage"] == "password" and "Spring2026" not in str(row.data)


def test_spraying_is_paused_per_address_with_a_clear_message(personas, settings):
    settings.LOGIN_THROTTLE_IP_FAILURES = 4
    c = Client()
    for i in range(4):
        assert sign_in(c, f"user{i}", "Spring2026!!", ip="203.0.113.5").status_code == 200
    r = sign_in(c, "user9", "Spring2026!!", ip="203.0.113.5")
    assert r.status_code == 429
    assert "Too many failed sign-ins from your network address" in r.content.decode()
    assert "paused for 15 minutes" in r.content.decode()
    refused = AuditEvent.objects.filter(action="auth.login_failed").order_by("-id").first()
    assert refused.data["reason"] == "refused: sign-in paused (throttle)"


def test_a_valid_sign_in_does_not_reset_the_address_count(personas, settings):
    """Else one account the attacker owns would reset the count between guesses at others."""
    settings.LOGIN_THROTTLE_IP_FAILURES = 3
    c = Client()
    for name in ("a1", "a2"):
        sign_in(c, name, "Spring2026!!", ip="203.0.113.6")
    assert sign_in(Client(), "owner", "pw-owner", ip="203.0.113.6").status_code == 302
    sign_in(c, "a3", "Spring2026!!", ip="203.0.113.6")
    assert sign_in(c, "a4", "Spring2026!!", ip="203.0.113.6").status_code == 429


def test_the_address_pause_ends_with_the_window(personas, settings, at):
    settings.LOGIN_THROTTLE_IP_FAILURES = 2
    at(DAY, 9, 0)
    c = Client()
    for name in ("a1", "a2"):
        sign_in(c, name, "Spring2026!!", ip="203.0.113.7")
    assert sign_in(c, "staff", "pw-staff", ip="203.0.113.7").status_code == 429
    at(DAY, 9, 16)
    assert sign_in(c, "staff", "pw-staff", ip="203.0.113.7").status_code == 302
