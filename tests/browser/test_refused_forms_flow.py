"""Issue 16 "Forms", done when: "a refused staff form keeps every typed value and marks the field", with axe at 0 in
the error state. The record pages' hand-written row forms, in Chromium at 1366 and 390 px on the demo town, as the
Director: open the form, type, send a value the rule refuses; the page comes back with the error summary focused
(so a form far down a long page is where the eye lands), every typed value in its input, the refused input marked
and described, the folded form open, no page wider than the phone, and axe (WCAG 2.x A/AA) finds nothing."""
from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screens"


def _construction_rain():
    from stormwater.construction.models import ConstructionProject

    p = ConstructionProject.objects.select_related("case").order_by("pk").first()
    n = p.case.number
    return (f"/construction/{n}/", f"/construction/{n}/rain/",
            {"ended_at": "2026-11-30T07:00", "rain_in": "1.2.5", "snow_in": "0", "source": "DPW rain gauge"}, "rain_in")


CASES = {"construction-rainfall": _construction_rain}


def _session(browser, live_server, user, width):
    from django.conf import settings
    from django.test import Client

    c = Client()
    c.force_login(user)
    ctx = browser.new_context(viewport={"width": width, "height": 900}, bypass_csp=True)
    ctx.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": c.cookies[settings.SESSION_COOKIE_NAME].value,
                      "url": live_server.url}])
    return ctx


@pytest.mark.parametrize("width", [1366, 390])
@pytest.mark.parametrize("case", sorted(CASES))
def test_a_refused_row_form_keeps_what_was_typed_and_marks_the_field(browser, live_server, look_town, case, width):
    from test_look_phone import axe_with_target_size

    page_url, action, typed, refused = CASES[case]()
    ctx = _session(browser, live_server, look_town.users["director"], width)
    pg = ctx.new_page()
    pg.goto(live_server.url + page_url)
    form = pg.locator(f'form[action="{action}"]')
    summary = form.locator("xpath=ancestor::details[1]/summary")
    if summary.count():
        summary.click()
    for name, value in typed.items():
        field = form.locator(f'[name="{name}"]')
        if field.evaluate("e => e.tagName") == "SELECT":
            field.select_option(value)
        else:
            field.fill(value)
    with pg.expect_navigation():
        form.locator("button[type=submit]").first.click()
    form = pg.locator(f'form[action="{action}"]')
    assert pg.evaluate("document.activeElement.id") == "error-summary"
    assert form.locator("#error-summary").is_visible()
    for name, value in typed.items():
        assert form.locator(f'[name="{name}"]').input_value() == value, name
    bad = form.locator(f'[name="{refused}"]')
    assert bad.get_attribute("aria-invalid") == "true"
    described = bad.get_attribute("aria-describedby")
    assert described and form.locator(f"#{described.split()[-1]}").is_visible()
    assert pg.evaluate("document.scrollingElement.scrollWidth") <= width
    problems = axe_with_target_size(pg)
    SHOTS.mkdir(parents=True, exist_ok=True)
    pg.screenshot(path=str(SHOTS / f"refused-{case}-{width}.png"))  # the viewport: where the eye lands
    ctx.close()
    assert not problems, problems
