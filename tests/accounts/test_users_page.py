"""The Director's users page (issue 14): list, add (the person chooses a password by e-mailed link), change
the role, deactivate/reactivate, reset two-factor, send a new link; every change audited; refusals as
messages, never a 500."""
from __future__ import annotations

import re

import pytest
from django.test import Client

from stormwater.accounts.models import User
from stormwater.accounts.roles import Role
from stormwater.audit.models import AuditEvent
from stormwater.notices.models import NoticeSent

from .conftest import sign_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def director(client, personas):
    client.force_login(personas["director"])
    return client


@pytest.mark.parametrize("role", [r for r in Role if r != Role.DIRECTOR])
def test_only_the_director_manages_users(client, personas, role):
    client.force_login(personas[role.value])
    assert client.get("/users/").status_code == 403
    assert client.post("/users/new/", {"username": "x"}).status_code == 403
    assert client.post(f"/users/{personas['staff'].pk}/role/", {"role": "director"}).status_code == 403
    assert 'href="/users/"' not in client.get("/").content.decode()


def test_the_list_shows_staff_with_their_two_factor_state(director, personas, enrolled):
    enrolled(personas["collector"])
    html = director.get("/users/").content.decode()
    assert 'href="/users/"' in html
    for name in ("director", "staff", "collector", "clerk"):
        assert f">{name}</a>" in html
    assert ">owner</a>" not in html and ">outsider</a>" not in html   # owners: role=all
    assert ">owner</a>" in director.get("/users/?role=all").content.decode()
    assert "Not set up" in html   # the director, whose role requires it
    assert director.get("/users/?role=collector").content.decode().count(">On</span></td>") == 1
    assert ">staff</a>" in director.get("/users/?q=staff").content.decode()


def test_a_director_adds_a_person_who_chooses_a_password_by_the_emailed_link(director, personas, mailoutbox,
                                                                             django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        r = director.post("/users/new/", {"username": "ivan", "first_name": "Ivan", "last_name": "Petrov",
                                          "email": "ivan@longmeadow.example", "role": "inspector"})
    ivan = User.objects.get(username="ivan")
    assert r.status_code == 302 and r.url == f"/users/{ivan.pk}/"
    assert ivan.role == Role.INSPECTOR and not ivan.has_usable_password()
    (mail,) = mailoutbox
    assert mail.to == ["ivan@longmeadow.example"] and "Username: ivan" in mail.body
    assert NoticeSent.objects.get(kind="password_link").status == "sent"
    assert [e.action for e in AuditEvent.objects.filter(object_id=str(ivan.pk)).order_by("id")] == [
        "user.create", "user.password_link_sent"]
    assert AuditEvent.objects.get(action="user.create").actor == personas["director"]
    # Ivan follows the link, chooses a password, and signs in.
    link = re.search(r"https?://[^/\s]+(/password-reset/[^\s]+/)", mail.body).group(1)
    c = Client()
    r = c.get(link)
    c.post(r.url, {"new_password1": "Inspector of the brook", "new_password2": "Inspector of the brook"})
    assert sign_in(c, "ivan", "Inspector of the brook").url == "/"


def test_a_forgotten_link_can_be_asked_for_again_on_the_reset_page(client, personas, mailoutbox):
    User.objects.create(username="new", email="new@longmeadow.example", role=Role.STAFF, password="!")
    client.post("/password-reset/", {"email": "new@longmeadow.example"})
    assert len(mailoutbox) == 1   # Django's own form skips accounts whose password was never chosen


@pytest.mark.parametrize("data,message", [
    ({"username": "staff", "email": "s@longmeadow.example", "role": "staff"},
     "The username &#x27;staff&#x27; is taken"),
    ({"username": "two words", "email": "s@longmeadow.example", "role": "staff"}, "Use letters, digits"),
    ({"username": "sam", "email": "nope", "role": "staff"}, "Enter a valid email address"),
    ({"username": "sam", "email": "s@longmeadow.example", "role": "king"}, "Select a valid choice"),
])
def test_bad_input_is_refused_at_the_field_and_nothing_is_made(director, personas, data, message):
    r = director.post("/users/new/", data)
    assert r.status_code == 200 and message in r.content.decode() and 'class="error-summary"' in r.content.decode()
    assert not AuditEvent.objects.filter(action="user.create").exists()


def test_change_role_deactivate_reactivate_from_the_page(director, personas):
    staff = personas["staff"]
    r = director.post(f"/users/{staff.pk}/role/", {"role": "collector", "why": "moved to Finance"})
    assert r.status_code == 302
    staff.refresh_from_db()
    assert staff.role == Role.COLLECTOR
    row = AuditEvent.objects.get(action="user.set_role")
    assert (row.actor, row.why, row.data["from"], row.data["to"]) == (personas["director"], "moved to Finance",
                                                                       "staff", "collector")
    director.post(f"/users/{staff.pk}/deactivate/", {"why": "retired"})
    staff.refresh_from_db()
    assert not staff.is_active
    page = director.get(f"/users/{staff.pk}/").content.decode()
    assert "is deactivated and can no longer sign in" in page and "Deactivated" in page and "retired" in page
    director.post(f"/users/{staff.pk}/reactivate/")
    staff.refresh_from_db()
    assert staff.is_active


def test_the_director_cannot_lock_the_town_out(director, personas):
    me = personas["director"]
    r = director.post(f"/users/{me.pk}/deactivate/")  # the page again with the refusal on the form (issue 16)
    assert r.status_code == 400 and "You cannot deactivate your own account" in r.content.decode()
    r = director.post(f"/users/{me.pk}/role/", {"role": "staff"})
    assert r.status_code == 400 and "the only active Director" in r.content.decode()
    me.refresh_from_db()
    assert me.is_active and me.role == Role.DIRECTOR


def test_a_director_resets_a_lost_phone(director, personas, enrolled):
    from django_otp.plugins.otp_totp.models import TOTPDevice

    enrolled(personas["collector"])
    page = director.get(f"/users/{personas['collector'].pk}/").content.decode()
    assert "Reset two-factor sign-in" in page
    director.post(f"/users/{personas['collector'].pk}/two-factor-reset/", {"why": "phone lost"})
    assert not TOTPDevice.objects.filter(user=personas["collector"]).exists()
    assert AuditEvent.objects.get(action="user.two_factor_reset").why == "phone lost"
    assert sign_in(Client(), "collector", "pw-collector").url == "/login/two-factor/set-up/"


def test_a_new_link_is_sent_from_the_persons_page(director, personas, mailoutbox, django_capture_on_commit_callbacks):
    User.objects.filter(pk=personas["clerk"].pk).update(email="kim@longmeadow.example")
    with django_capture_on_commit_callbacks(execute=True):
        director.post(f"/users/{personas['clerk'].pk}/password-link/")
    assert mailoutbox[0].to == ["kim@longmeadow.example"] and "/password-reset/" in mailoutbox[0].body
    director.post(f"/users/{personas['assessor'].pk}/password-link/")   # no address
    page = director.get(f"/users/{personas['assessor'].pk}/").content.decode()
    assert "has no e-mail address: no link was sent" in page


@pytest.mark.django_db(transaction=True)  # the mail leaves on commit, before the page answers
def test_a_mail_failure_is_shown_not_hidden(director, personas, settings):
    settings.EMAIL_BACKEND = "tests.accounts.test_users_page.BrokenMail"
    director.post("/users/new/", {"username": "ivan", "email": "ivan@longmeadow.example", "role": "inspector"})
    page = director.get(f"/users/{User.objects.get(username='ivan').pk}/").content.decode()
    # OSError: the outbox cannot tell whether the server took it ("unknown"); the page says so, never "sent".
    assert "may not have been sent (OSError: mail server down)" in page


class BrokenMail:
    def __init__(self, *a, **kw):
        pass

    def send_messages(self, messages):
        raise OSError("mail server down")


def test_the_persons_page_shows_their_history(director, personas):
    sign_in(Client(), "staff", "Spring2026!!", ip="10.7.7.7")
    page = director.get(f"/users/{personas['staff'].pk}/").content.decode()
    assert "auth.login_failed" in page and "from 10.7.7.7" in page
