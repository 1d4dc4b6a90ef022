"""Headless Debian Chromium driven by Playwright (no browser download: /usr/bin/chromium)."""
import os
import shutil
from pathlib import Path

import pytest

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-quic", "--no-first-run"]
SHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screens"


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


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = ctx.new_page()
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.on("response", lambda r: errors.append(f"{r.status} {r.url}") if r.status >= 500 else None)
    yield pg
    ctx.close()
    assert errors == [], errors


@pytest.fixture
def shot(page):
    SHOTS.mkdir(parents=True, exist_ok=True)

    def _shot(name):
        page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
    return _shot
