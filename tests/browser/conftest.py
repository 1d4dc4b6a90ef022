"""Headless Debian Chromium driven by Playwright (no browser download: /usr/bin/chromium).

Accessibility (issue 9): axe-core (vendored in tests/browser/vendor/, MPL-2.0, never from a CDN) runs on every
page a test screenshots with ``shot`` (and wherever a test calls ``axe``), against WCAG 2.0/2.1 A and AA; any
violation fails the test at teardown with the rule, the help text and the offending elements.
The browser context bypasses the Content-Security-Policy only so that axe can be injected as a script tag; the
policy itself is checked on every HTML response here and, without the bypass, in tests/browser/test_portal_flow.py.
"""
import os
import shutil
from pathlib import Path

import pytest

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-quic", "--no-first-run"]
SHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screens"
AXE_JS = Path(__file__).resolve().parent / "vendor" / "axe.min.js"
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


@pytest.fixture(scope="session")
def browser():
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API runs an event loop
    exe = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(exe).exists():
        pytest.fail("Debian's chromium is required for browser tests (bin/test installs it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
        yield b
        b.close()


def _html_without_csp(r) -> bool:
    return ("text/html" in (r.headers.get("content-type") or "") and r.status < 300
            and "content-security-policy" not in r.headers)


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    pg = ctx.new_page()
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.on("response", lambda r: errors.append(f"{r.status} {r.url}") if r.status >= 500 else None)
    pg.on("response", lambda r: errors.append(f"no CSP header: {r.url}") if _html_without_csp(r) else None)
    yield pg
    ctx.close()
    assert errors == [], errors


def axe_run(pg) -> list[dict]:
    """axe-core's violations on the page as it is now (WCAG 2.0/2.1 A and AA rules)."""
    pg.wait_for_load_state("load")
    if not pg.evaluate("() => typeof window.axe !== 'undefined'"):
        pg.add_script_tag(path=str(AXE_JS))
    return pg.evaluate("""async (tags) => {
        const r = await axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']});
        return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                                       nodes: v.nodes.slice(0, 5).map(n => n.target.join(' ') + ' :: ' +
                                                                      n.failureSummary.replace(/\\n/g, ' '))}));
    }""", AXE_TAGS)


@pytest.fixture
def axe(page):
    """axe(name) checks the current page; violations are collected and fail the test at teardown."""
    found = []

    def _axe(name):
        for v in axe_run(page):
            found.append(f"[{name}] {page.url}\n  {v['id']} ({v['impact']}): {v['help']}\n    " + "\n    ".join(v["nodes"]))
    yield _axe
    assert not found, "accessibility violations (axe-core):\n" + "\n".join(found)


@pytest.fixture
def shot(page, axe):
    SHOTS.mkdir(parents=True, exist_ok=True)

    def _shot(name):
        axe(name)
        page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
    return _shot


@pytest.fixture
def login(page, live_server):
    """``login(username, password=None)``: a fresh session signed in through the login page, landing
    on the home page. The personas' password is ``pw-<username>``; the demo town's is given."""
    def _login(username, password=None):
        page.context.clear_cookies()
        page.goto(f"{live_server.url}/login/")
        page.get_by_label("Username").fill(username)
        page.get_by_label("Password").fill(password or f"pw-{username}")
        code = totp_code_for(username)  # the Director and the Collector: two-factor sign-in (town configuration)
        page.get_by_role("button", name="Sign in").click()
        if code is not None:
            page.wait_for_url(f"{live_server.url}/login/two-factor/")
            page.get_by_label("Code").fill(code())
            page.get_by_role("button", name="Verify and sign in").click()
        page.wait_for_url(f"{live_server.url}/")
    return _login


def totp_code_for(username):
    """For a person whose sign-in asks for a code: make sure an authenticator app is set up (a key only the test
    knows) and return code() → the app's current 6-digit code (RFC 6238, django-otp's own totp()); else None.
    The clock may be frozen (``at``), so the replay guard (a code's time step is used once) is reset first."""
    from django_otp.oath import totp
    from django_otp.plugins.otp_totp.models import TOTPDevice

    from stormwater.accounts import twofactor
    from stormwater.accounts.models import User

    user = User.objects.filter(username=username).first()
    if user is None or not twofactor.needed_at_sign_in(user):
        return None
    device = TOTPDevice.objects.filter(user=user, confirmed=True).first() or TOTPDevice.objects.create(
        user=user, name="test app", confirmed=True)
    TOTPDevice.objects.filter(pk=device.pk).update(last_t=-1)
    return lambda: f"{totp(device.bin_key, step=device.step, t0=device.t0, digits=device.digits):06d}"

