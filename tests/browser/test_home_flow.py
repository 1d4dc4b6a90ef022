"""Issue 16 "A home for each role", done when: signed in as each role (director, staff, collector, assessor,
clerk, inspector, consultant, owner), the home shows that role's due items from every app in due order; at
1366 and 390 px axe-core finds nothing and nothing scrolls sideways at 390 px. Each home is kept as a
screenshot in docs/screens/ (home-<role>-desktop.png, home-<role>-phone.png; 256-colour PNGs)."""
from __future__ import annotations

import sys
from datetime import date
from pathlib import Path

import pytest

# The work queue's builders (tests/workqueue/conftest.py): the same records as its own tests use.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from workqueue.conftest import (make_bills, make_construction, make_permits, make_relief,  # noqa: E402,F401
                                make_stewardship, today)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SCREENS = Path(__file__).resolve().parents[2] / "docs" / "screens"
ROLES = ("director", "staff", "collector", "assessor", "clerk", "inspector", "consultant", "owner")


@pytest.fixture
def town_at_work(today, personas, make_relief, make_permits, make_construction, make_stewardship, make_bills):
    """Something due in every app: a credit decision, a permit file (42-day clock, 53G fee, information request,
    consultant appeal), a construction project (storm inspection overdue, final inspection noticed, an area to
    stabilize, a violation), a site (certification overdue, failure to maintain), the owner's bills with a
    demand ripe for commitment."""
    from stormwater.receivables.services import demand_serve
    from stormwater.utility.models import Account

    make_relief(1), make_permits(1), make_construction(1), make_stewardship(1)
    make_bills(3)
    demand_serve(account=Account.objects.order_by("pk").first(), served_on=date(2026, 10, 20),
                 acting_user=personas["collector"])


def _save(page, name: str):
    """A small copy for the docs: the full page quantized to 256 colours."""
    from io import BytesIO

    from PIL import Image

    SCREENS.mkdir(parents=True, exist_ok=True)
    img = Image.open(BytesIO(page.screenshot(full_page=True))).convert("RGB")
    img.quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(SCREENS / f"{name}.png", optimize=True)


@pytest.mark.parametrize("role", ROLES)
def test_each_roles_home_shows_its_due_items_in_order(page, live_server, login, shot, town_at_work, personas, role):
    from stormwater.workqueue.selectors import work_queue_for_user

    user = personas[role]
    items = work_queue_for_user(user=user).items
    expected = [i.action for i in items if user.is_staff_role or i.party != "town"]
    if role not in ("assessor",):
        assert expected, f"{role} has nothing due in the test town"
    assert len({i.source for i in items}) >= {"director": 5, "owner": 4, "assessor": 0}.get(role, 1)
    login(role)
    for width, w in ((1366, "desktop"), (390, "phone")):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server.url}/")
        shown = page.locator("#queue li p:nth-child(2) a").all_inner_texts()
        assert shown == expected[:25], (role, shown, expected)
        if not user.is_staff_role:
            assert page.locator("#bills").is_visible()
        if role == "inspector":
            assert page.get_by_role("heading", name="Today's inspections", level=1).is_visible()
            assert "Storm inspection of the erosion controls" in page.locator("#today").inner_text()
        if role == "assessor":
            assert "Nothing with a clock is waiting for you." in page.locator("#queue").inner_text()
            assert page.get_by_label("Find a parcel").first.is_visible()
        assert "No parcels are linked" not in page.content()
        scroll = page.evaluate("document.documentElement.scrollWidth")
        assert scroll <= width, f"{role} home is {scroll} px wide at {width} px"
        shot(f"home-{role}-{w}")
        _save(page, f"home-{role}-{w}")
