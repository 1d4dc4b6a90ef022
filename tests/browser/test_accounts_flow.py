"""Issue 14 "People", done when: a Director created from the command line signs in with two-factor (the code
computed from the key the set-up page shows, as an authenticator app would), creates a staff member on the
Director's page, and the staff member resets a forgotten password by the e-mailed link (read from Django's
locmem outbox) — at desktop and phone width, axe-core on every new page."""
import io
import re
from datetime import date

import pytest
from django.core import mail
from django.core.management import call_command

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
DAY = date(2026, 9, 14)
DANA_PW = "Dana's rain barrel 2026"
SAM_PW = "Sam walks Bliss Road"
SAM_NEW = "Laurel Street oak tree"
NEW_PASSWORD = re.compile(r"^New password:?$")


def _code_for_key(key_text: str, steps_ahead: int = 0) -> str:
    from base64 import b32decode

    from django_otp.oath import totp

    return f"{totp(b32decode(key_text.replace(' ', '')), drift=steps_ahead):06d}"


def _link(message) -> str:
    return re.search(r"https?://\S+/password-reset/\S+/", message.body).group(0)


@pytest.mark.parametrize("width", [1366, 390], ids=["desktop", "phone"])
def test_director_from_the_cli_two_factor_creates_staff_who_resets_a_forgotten_password(
        page, live_server, shot, at, monkeypatch, width):
    from django_otp.plugins.otp_totp.models import TOTPDevice

    from stormwater.accounts.models import User
    from stormwater.audit.models import AuditEvent

    page.set_viewport_size({"width": width, "height": 900})
    w = "d" if width > 500 else "p"
    at(DAY, 8, 0)
    base = live_server.url

    # A fresh installation says how to make the first Director.
    page.goto(f"{base}/login/")
    assert "No Director account yet: run stormwater user add --username NAME --role director" in \
        page.locator("#first-run").inner_text()
    shot(f"accounts-{w}-00-first-run")

    monkeypatch.setattr("sys.stdin", io.StringIO(DANA_PW + "\n"))
    call_command("user", "add", "--username", "dana", "--role", "director", "--email", "dana@longmeadow.example",
                 "--first-name", "Dana", "--last-name", "Whitfield", "--password-stdin", stdout=io.StringIO())

    # First sign-in: the password, then setting up the authenticator app (required for the Director).
    page.goto(f"{base}/login/")
    assert page.locator("#first-run").count() == 0
    page.get_by_label("Username").fill("dana")
    page.get_by_label("Password").fill(DANA_PW)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{base}/login/two-factor/set-up/")
    assert page.locator(".qr img").get_attribute("src").startswith("data:image/svg+xml")
    key = page.locator("#totp-key").inner_text()
    shot(f"accounts-{w}-01-two-factor-setup")
    page.get_by_label("Code from the app").fill(f"{(int(_code_for_key(key)) + 1) % 1000000:06d}")
    page.get_by_role("button", name="Confirm and continue").click()
    assert "That code is not right" in page.locator("#error-summary").inner_text()
    shot(f"accounts-{w}-02-two-factor-setup-error")
    at(DAY, 8, 1)  # django-otp makes the next try wait a second after a wrong code
    page.get_by_label("Code from the app").fill(_code_for_key(key))
    page.get_by_role("button", name="Confirm and continue").click()
    page.wait_for_url(re.compile(r".*/account/two-factor/recovery-codes/.*"))
    assert page.locator("#recovery-codes li").count() == 10
    shot(f"accounts-{w}-03-recovery-codes")
    page.get_by_role("link", name="I have saved them: continue").click()
    page.wait_for_url(f"{base}/")

    # The Director's page: add a staff member, who gets a link to choose a password.
    page.goto(f"{base}/users/")
    shot(f"accounts-{w}-04-users")
    page.get_by_role("link", name="Add a person").click()
    page.get_by_label("Username").fill("sam")
    page.get_by_label("First name").fill("Sam")
    page.get_by_label("Last name").fill("Ortiz")
    page.get_by_label("E-mail address").fill("sam@longmeadow.example")
    page.get_by_label("Role").select_option("staff")
    shot(f"accounts-{w}-05-user-new")
    page.get_by_role("button", name="Create the account").click()
    page.get_by_role("heading", name="Sam Ortiz").wait_for()
    assert "A link to choose a password was e-mailed to sam@longmeadow.example" in page.locator("main").inner_text()
    assert page.locator("#role").inner_text() == "Stormwater staff"
    shot(f"accounts-{w}-06-user-detail")
    invite = mail.outbox[-1]
    assert invite.to == ["sam@longmeadow.example"] and "Username: sam" in invite.body

    # Sam chooses a password with the link and signs in (no second factor: optional for staff).
    page.context.clear_cookies()
    page.goto(_link(invite))
    page.get_by_label(NEW_PASSWORD).fill(SAM_PW)
    page.get_by_label("New password again").fill(SAM_PW)
    page.get_by_role("button", name="Save my new password").click()
    page.wait_for_url(f"{base}/password-reset/done/")

    # Later Sam forgets it: "Forgot your password?" → the e-mailed link → a new password → signed in.
    at(DAY, 9, 0)
    page.goto(f"{base}/login/")
    page.get_by_role("link", name="Forgot your password?").click()
    page.get_by_label("Your e-mail address").fill("sam@longmeadow.example")
    shot(f"accounts-{w}-07-password-reset")
    page.get_by_role("button", name="E-mail me a link").click()
    page.get_by_role("heading", name="Check your e-mail").wait_for()
    shot(f"accounts-{w}-08-password-reset-sent")
    reset = mail.outbox[-1]
    assert reset.to == ["sam@longmeadow.example"] and "username sam" in reset.body
    page.goto(_link(reset))
    page.get_by_role("heading", name="Choose a new password").wait_for()
    page.get_by_label(NEW_PASSWORD).fill("sam")
    page.get_by_label("New password again").fill("sam")
    page.get_by_role("button", name="Save my new password").click()
    assert "at least 12 characters" in page.locator("#error-summary").inner_text()
    shot(f"accounts-{w}-09-password-reset-confirm-error")
    page.get_by_label(NEW_PASSWORD).fill(SAM_NEW)
    page.get_by_label("New password again").fill(SAM_NEW)
    page.get_by_role("button", name="Save my new password").click()
    page.get_by_role("heading", name="Your new password is saved").wait_for()
    shot(f"accounts-{w}-10-password-reset-complete")
    page.get_by_role("link", name="Sign in", exact=True).last.click()
    page.get_by_label("Username").fill("sam")
    page.get_by_label("Password").fill(SAM_NEW)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{base}/")
    page.goto(f"{base}/account/")
    shot(f"accounts-{w}-11-account")
    page.get_by_role("link", name="Change your password").click()
    shot(f"accounts-{w}-12-password-change")
    assert page.request.get(f"{base}/users/").status == 403   # staff do not manage users

    # The Director's next sign-in asks for the app's code.
    at(DAY, 9, 5)
    page.context.clear_cookies()
    page.goto(f"{base}/login/")
    page.get_by_label("Username").fill("dana")
    page.get_by_label("Password").fill(DANA_PW)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{base}/login/two-factor/")
    shot(f"accounts-{w}-13-two-factor-code")
    page.get_by_label("Code").fill(_code_for_key(key))
    page.get_by_role("button", name="Verify and sign in").click()
    page.wait_for_url(f"{base}/")
    page.goto(f"{base}/account/")
    assert "Recent sign-ins" in page.locator("main").inner_text()

    dana, sam = User.objects.get(username="dana"), User.objects.get(username="sam")
    assert TOTPDevice.objects.get(user=dana).confirmed and sam.check_password(SAM_NEW)
    actions = list(AuditEvent.objects.order_by("id").values_list("action", flat=True))
    for a in ("user.create", "auth.two_factor_enrol", "auth.login", "user.password_link_sent", "auth.password_reset",
              "auth.password_reset_request"):
        assert a in actions, a
