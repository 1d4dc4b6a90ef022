"""`stormwater user`: the first Director and every later account from the server's command line (issue 14)."""
from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from stormwater.accounts.models import User
from stormwater.accounts.roles import Role
from stormwater.accounts.selectors import FIRST_RUN
from stormwater.audit.models import AuditEvent

pytestmark = pytest.mark.django_db
GOOD = "correct horse battery staple"


def run(*args, stdin: str | None = None, monkeypatch=None) -> str:
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    out = io.StringIO()
    call_command("user", *args, stdout=out)
    return out.getvalue()


def add(monkeypatch, username="dana", role="director", email="dana@longmeadow.example", password=GOOD, *extra):
    return run("add", "--username", username, "--role", role, "--email", email, "--password-stdin", *extra,
               stdin=password + "\n", monkeypatch=monkeypatch)


def test_add_creates_the_account_audited_with_the_operating_system_user(monkeypatch):
    out = add(monkeypatch, "dana", "director", "dana@longmeadow.example", GOOD, "--first-name", "Dana",
              "--last-name", "Whitfield")
    dana = User.objects.get(username="dana")
    assert (dana.role, dana.email, dana.get_full_name(), dana.is_active) == (
        Role.DIRECTOR, "dana@longmeadow.example", "Dana Whitfield", True)
    assert "Created dana (DPW Director" in out and "Two-factor sign-in is required for this role" in out
    row = AuditEvent.objects.get(action="user.create")
    assert row.actor is None and row.object_id == str(dana.pk) and "command line, operating-system user" in row.why
    assert row.data == {"username": "dana", "role": "director", "email": "dana@longmeadow.example", "password": "set"}
    assert GOOD not in json.dumps(row.data) + row.why


@pytest.mark.parametrize("args,password,message", [
    (("--role", "directr"), GOOD, "Unknown role 'directr'. The roles are: director, staff, collector, assessor, "
                                  "clerk, inspector, consultant, owner."),
    (("--role", "staff", "--email", "not-an-address"), GOOD, "'not-an-address' is not an e-mail address."),
    (("--role", "staff", "--email", ""), GOOD, "An e-mail address is required"),
    (("--role", "staff"), "dana", "too similar to the username"),
    (("--role", "staff"), "Longmeadow1", "at least 12 characters"),
    (("--role", "staff"), "123456789012", "entirely numeric"),
    (("--role", "staff"), "dana@longmeadow", "too similar to the email address"),
    (("--role", "staff"), "password1234", "too common"),
], ids=["role", "email", "no-email", "like-username", "short", "numeric", "like-email", "common"])
def test_add_refuses_bad_input_with_a_clear_message_and_creates_nothing(monkeypatch, args, password, message):
    argv = ["add", "--username", "dana", "--email", "dana@longmeadow.example", *args, "--password-stdin"]
    with pytest.raises(CommandError, match=message.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        run(*argv, stdin=password + "\n", monkeypatch=monkeypatch)
    assert not User.objects.exists() and not AuditEvent.objects.exists()


def test_a_username_is_taken_whatever_its_case(monkeypatch):
    add(monkeypatch, "dana")
    with pytest.raises(CommandError, match="The username 'DANA' is taken"):
        add(monkeypatch, "DANA", "staff", "other@longmeadow.example")


def test_without_a_terminal_the_password_must_come_on_stdin(monkeypatch):
    with pytest.raises(CommandError, match="No terminal to ask for the password.*--password-stdin"):
        run("add", "--username", "dana", "--role", "director", "--email", "d@longmeadow.example",
            stdin="", monkeypatch=monkeypatch)


def test_the_prompt_asks_twice_and_refuses_two_different_passwords(monkeypatch):
    monkeypatch.setattr("sys.stdin.isatty", lambda: True, raising=False)
    answers = iter([GOOD, GOOD + "x"])
    monkeypatch.setattr("getpass.getpass", lambda prompt="": next(answers))
    with pytest.raises(CommandError, match="The two passwords differ"):
        run("add", "--username", "dana", "--role", "director", "--email", "d@longmeadow.example")
    answers = iter([GOOD, GOOD])
    run("add", "--username", "dana", "--role", "director", "--email", "d@longmeadow.example")
    assert User.objects.get(username="dana").check_password(GOOD)


def test_set_role_deactivate_reactivate_are_audited_and_the_last_director_stays(monkeypatch):
    add(monkeypatch, "dana", "director")
    add(monkeypatch, "sam", "staff", "sam@longmeadow.example", "Chicopee river walk")
    assert "sam is now Collector / Finance" in run("set-role", "--username", "sam", "--role", "collector",
                                                  "--why", "new job")
    row = AuditEvent.objects.get(action="user.set_role")
    assert row.data["from"] == "staff" and row.data["to"] == "collector" and row.why.startswith("new job — ")
    with pytest.raises(CommandError, match="sam already has the role collector"):
        run("set-role", "--username", "sam", "--role", "collector")
    with pytest.raises(CommandError, match="dana is the only active Director"):
        run("set-role", "--username", "dana", "--role", "staff")
    with pytest.raises(CommandError, match="dana is the only active Director"):
        run("deactivate", "--username", "dana")
    with pytest.raises(CommandError, match="No account has the username 'nobody'"):
        run("deactivate", "--username", "nobody")
    run("deactivate", "--username", "sam", "--why", "left the town")
    sam = User.objects.get(username="sam")
    assert not sam.is_active and not sam.can("billing.view_all")
    with pytest.raises(CommandError, match="sam is already deactivated"):
        run("deactivate", "--username", "sam")
    run("reactivate", "--username", "sam")
    assert User.objects.get(username="sam").is_active
    assert list(AuditEvent.objects.filter(object_id=str(sam.pk)).order_by("id").values_list("action", flat=True)) == [
        "user.create", "user.set_role", "user.deactivate", "user.reactivate"]
    # With a second Director the first may step down.
    run("set-role", "--username", "sam", "--role", "director")
    run("set-role", "--username", "dana", "--role", "staff")
    assert User.objects.get(username="dana").role == Role.STAFF


def test_set_password_checks_the_validators_and_is_audited(monkeypatch):
    add(monkeypatch, "dana")
    with pytest.raises(CommandError, match="at least 12 characters"):
        run("set-password", "--username", "dana", "--password-stdin", stdin="short\n", monkeypatch=monkeypatch)
    run("set-password", "--username", "dana", "--password-stdin", stdin="Mill pond by the green\n",
        monkeypatch=monkeypatch)
    assert User.objects.get(username="dana").check_password("Mill pond by the green")
    assert AuditEvent.objects.filter(action="user.set_password").count() == 1


def test_reset_two_factor_removes_the_app_and_codes(monkeypatch, enrolled):
    from django_otp.plugins.otp_static.models import StaticDevice
    from django_otp.plugins.otp_totp.models import TOTPDevice

    add(monkeypatch, "dana")
    with pytest.raises(CommandError, match="dana has no two-factor sign-in set up"):
        run("reset-two-factor", "--username", "dana")
    enrolled(User.objects.get(username="dana"))
    assert "removed" in run("reset-two-factor", "--username", "dana", "--why", "phone lost")
    assert not TOTPDevice.objects.exists() and not StaticDevice.objects.exists()
    assert AuditEvent.objects.get(action="user.two_factor_reset").why.startswith("phone lost")


def test_list_says_how_to_create_the_first_director_then_lists(monkeypatch):
    assert FIRST_RUN in run("list")
    add(monkeypatch, "dana")
    add(monkeypatch, "olivia", "owner", "olivia@example.org", "Bliss Road garden gate")
    out = run("list")
    assert "dana" in out and "director" in out and "olivia" not in out and FIRST_RUN not in out
    data = json.loads(run("list", "--role", "all", "--json"))
    assert [u["username"] for u in data["users"]] == ["dana", "olivia"] and data["director_exists"] is True
    assert data["users"][0] == {"username": "dana", "name": "", "role": "director", "email": "dana@longmeadow.example",
                                "active": True, "two_factor": False, "last_login": None}


def test_migrate_output_says_how_to_create_the_first_director(db):
    from stormwater.accounts.apps import _first_run_note

    out = io.StringIO()
    _first_run_note(sender=None, stdout=out)
    assert "No Director account yet: run `stormwater user add --username NAME --role director --email ADDRESS`" \
        in out.getvalue()
    User.objects.create_user(username="dana", role=Role.DIRECTOR)
    out = io.StringIO()
    _first_run_note(sender=None, stdout=out)
    assert out.getvalue() == ""


def test_the_login_page_says_how_to_create_the_first_director(client, db):
    assert "No Director account yet: run <code>stormwater user add --username NAME --role director --email ADDRESS" \
        "</code> on the server" in client.get("/login/").content.decode()
    User.objects.create_user(username="dana", role=Role.DIRECTOR)
    assert "No Director account yet" not in client.get("/login/").content.decode()
