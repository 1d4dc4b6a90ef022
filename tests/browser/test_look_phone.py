"""No page wider than a phone, no target smaller than 44 px, axe clean (issue 16 "Navigation and look").

A crawl of every staff and public page of the demo town (tests/pagecrawl.py: every link followed, at most two
pages of one URL pattern), as each role and signed out, in Chromium at 390 × 844 px. On every page:
- the page is no wider than the screen: document.scrollingElement.scrollWidth <= 390 (a wide table scrolls inside
  its own box, never the page);
- every control a finger uses — buttons, inputs, selects, summaries, menu, breadcrumb, contents and pager links,
  link-buttons, map controls — is at least 44 × 44 px (a checkbox or radio counts with its label);
and on the first page of each URL pattern: axe-core's WCAG 2.0/2.1 A and AA rules plus WCAG 2.2's target-size
find nothing, and the same page is no wider than a 1366 px desktop either.
The crawl must reach every page of the site (tests/pagecrawl.page_names), or the menu lost one."""
from __future__ import annotations

from pathlib import Path

import pytest
from pagecrawl import crawl, page_names, url_name

AXE_JS = Path(__file__).resolve().parent / "vendor" / "axe.min.js"
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]  # 2.2 AA: target-size

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE, DESKTOP = (390, 844), (1366, 900)
TARGET = 44
SMALL_TARGETS_JS = """(min) => {
  const sel = 'button, input:not([type=hidden]), select, textarea, summary, a.button, a.link-button, .button-quiet,'
            + ' nav a, .pager a, .leaflet-control-zoom a, a.leaflet-control-layers-toggle';
  const out = [];
  for (const el of document.querySelectorAll(sel)) {
    const cs = getComputedStyle(el);
    if (cs.visibility === 'hidden' || cs.display === 'none') continue;
    let r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;            // inside a closed disclosure
    if (el.matches('input[type=checkbox], input[type=radio]')) {
      const lab = el.closest('label') || (el.id && document.querySelector('label[for="' + CSS.escape(el.id) + '"]'));
      if (lab) r = lab.getBoundingClientRect();
    }
    if (r.height < min - 0.5 || r.width < min - 0.5) {
      const name = (el.getAttribute('aria-label') || el.textContent || el.value || el.name || '').trim().slice(0, 40);
      out.push(el.tagName.toLowerCase() + (el.type ? '[' + el.type + ']' : '') + ' "' + name + '" '
               + Math.round(r.width) + '×' + Math.round(r.height));
    }
  }
  return out.slice(0, 8);
}"""
WIDE_JS = """(w) => {
  const out = [];
  for (const el of document.body.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    if (r.right > w + 1 && !el.closest('.table-scroll, .scroll, .card, nav.contents ul, .gis-map, pre')) {
      out.push(el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (el.className && typeof el.className === 'string'
               ? '.' + el.className.split(' ').join('.') : '') + ' right=' + Math.round(r.right));
    }
  }
  return out.slice(0, 5);
}"""


def axe_with_target_size(pg) -> list[str]:
    if not pg.evaluate("() => typeof window.axe !== 'undefined'"):
        pg.add_script_tag(path=str(AXE_JS))
    found = pg.evaluate("""async (tags) => {
        const r = await axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']});
        return r.violations.map(v => v.id + ' (' + v.impact + '): ' + v.help + ' :: ' +
                                v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(' | '));
    }""", AXE_TAGS)
    return found


def _session_cookie(user, url):
    from django.conf import settings
    from django.test import Client

    c = Client()
    c.force_login(user)
    return [{"name": settings.SESSION_COOKIE_NAME, "value": c.cookies[settings.SESSION_COOKIE_NAME].value, "url": url}]


def test_every_page_fits_a_phone_with_44px_targets_and_no_axe_violation(browser, live_server, look_town):
    problems, visited, axed = [], set(), set()
    for who, start in look_town.starts():
        ctx = browser.new_context(viewport={"width": PHONE[0], "height": PHONE[1]}, bypass_csp=True)
        if who:
            ctx.add_cookies(_session_cookie(look_town.users[who], live_server.url))
        pg = ctx.new_page()
        errors = []
        pg.on("pageerror", lambda e: errors.append(str(e)))

        def fetch(path):
            try:
                resp = pg.goto(live_server.url + path, wait_until="load")
            except Exception as e:  # noqa: BLE001 - a download or an aborted navigation: not a page
                if "Download is starting" in str(e):
                    return None
                raise
            if resp is None or "text/html" not in (resp.headers.get("content-type") or ""):
                return None
            final = pg.url[len(live_server.url):] or "/"
            where = f"[{who or 'signed out'}] {path}"
            width = pg.evaluate("document.scrollingElement.scrollWidth")
            if width > PHONE[0]:
                problems.append(f"{where}: {width} px wide at {PHONE[0]} px; too wide: {pg.evaluate(WIDE_JS, PHONE[0])}")
            small = pg.evaluate(SMALL_TARGETS_JS, TARGET)
            if small:
                problems.append(f"{where}: targets under {TARGET} px: {small}")
            name = url_name(final)
            if name not in axed:
                axed.add(name)
                for v in axe_with_target_size(pg):
                    problems.append(f"{where}: axe {v}")
                pg.set_viewport_size({"width": DESKTOP[0], "height": DESKTOP[1]})
                wide = pg.evaluate("document.scrollingElement.scrollWidth")
                if wide > DESKTOP[0]:
                    problems.append(f"{where}: {wide} px wide at {DESKTOP[0]} px")
                pg.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})
            return resp.status, final.split("?")[0], pg.content()

        for path, name, status, _html in crawl(fetch, start, per_name=look_town.browser_pages_per_name(who)):
            assert status < 500, f"{who}: {path} answered {status}"
            visited.add(name)
        assert not errors, f"{who}: script errors {errors}"
        ctx.close()
    assert not problems, f"{len(problems)} problems on a phone:\n" + "\n".join(problems[:60])
    missing = page_names() - visited - look_town.not_crawled()
    assert not missing, f"pages no crawl reached: {sorted(missing)}"


def test_a_permit_with_conditions_parties_and_sheets_fits_a_phone(browser, live_server, look_town):
    """Issue 16: the permit page was 680 px wide at 390 px. The look town's owner permit is approved with conditions
    and approved plan sheets and has its design engineer linked (tests/conftest.py::_look_town_permit)."""
    from stormwater.permits.models import PermitApplication

    app = PermitApplication.objects.filter(owner__user=look_town.users["owner"]).order_by("pk").first()
    assert app.conditions.exists() and app.case.parties.filter(role="design_engineer").exists() and app.approved_sheets
    for who in ("director", "owner", "consultant"):
        ctx = browser.new_context(viewport={"width": PHONE[0], "height": PHONE[1]})
        ctx.add_cookies(_session_cookie(look_town.users[who], live_server.url))
        pg = ctx.new_page()
        pg.goto(f"{live_server.url}/permits/{app.case.number}/", wait_until="load")
        width = pg.evaluate("document.scrollingElement.scrollWidth")
        assert width <= PHONE[0], f"{who}: {width} px wide: {pg.evaluate(WIDE_JS, PHONE[0])}"
        ctx.close()
