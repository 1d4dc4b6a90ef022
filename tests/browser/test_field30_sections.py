"""Issue 30: the permit page's sections fold (<details class="fold" open>, the heading in the <summary>): open as
served on a desktop, folded and opened again from the keyboard, a contents link still reaches its section; axe-core
clean (the ``axe`` fixture)."""
from datetime import date
from decimal import Decimal

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def test_the_permit_page_sections_fold_from_the_keyboard(page, live_server, personas, town, login, axe):
    from stormwater.parcels.models import Owner
    from stormwater.permits.services import permit_application_start
    from stormwater.rules.applicability import determine

    owner = Owner.objects.get(user=personas["owner"])
    app = permit_application_start(
        acting_user=personas["owner"], owner=owner, owner_name=owner.name, owner_address=owner.mailing_address,
        site_address="1 Elm St", parcels=[town["house"]], description="Eight-lot subdivision",
        disturbance_sqft=Decimal(87120), determination=determine(disturbance_sqft=Decimal(87120), on=date(2026, 3, 2)))
    login("owner")
    page.goto(f"{live_server.url}/permits/{app.case.number}/")
    folds = page.locator("details.fold")
    n = folds.count()
    assert n >= 8 and page.locator("details.fold[open]").count() == n  # all open on a desktop
    axe("permit page, sections open")
    fees = page.locator("#fees details.fold")
    summary = fees.locator("summary")
    summary.focus()
    page.keyboard.press("Enter")
    assert fees.get_attribute("open") is None and not fees.locator("table, p").first.is_visible()
    assert summary.evaluate("s => document.activeElement === s")
    axe("permit page, a section folded")
    page.keyboard.press("Space")
    assert fees.get_attribute("open") == ""
    page.keyboard.press("Enter")  # folded again: the contents link still shows its section's heading
    page.get_by_role("navigation", name="On this page").get_by_role("link", name="Fees").click()
    assert page.locator("#fees h2").is_visible()
