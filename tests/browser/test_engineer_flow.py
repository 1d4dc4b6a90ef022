"""Issue 18's "done when", the engineer's part, in a real browser: an engineer signs up by e-mail, is linked to the
permit by the applicant, uploads the plan's data file to it and runs the review on their own permit (1366 and
390 px, axe-core on every page)."""
import re
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "commercial-5-acre.yaml"
PASSWORD = "gravel swale outlet 42"


@pytest.fixture
def permit(town, personas, settings, tmp_path):
    from stormwater.parcels.models import Owner
    from stormwater.permits.services import permit_application_start
    from stormwater.rules.applicability import determine

    settings.MEDIA_ROOT = tmp_path / "media"
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    owner = Owner.objects.get(user=personas["owner"])
    return permit_application_start(
        acting_user=personas["owner"], owner=owner, owner_name=owner.name, owner_address=owner.mailing_address,
        site_address="1 Elm St", parcels=[town["house"]], description="Commercial building and parking",
        disturbance_sqft=Decimal(217800), determination=determine(disturbance_sqft=Decimal(217800),
                                                                  on=date(2026, 3, 2)))


def _wide(page, width):
    """The elements that stick out past the viewport (for the assertion's message)."""
    return page.evaluate("""(w) => [...document.querySelectorAll('main *')].filter(e => e.getBoundingClientRect().right > w + 1)
        .slice(0, 8).map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right) + ' '
        + (e.textContent || '').trim().slice(0, 60))""", width)


def test_an_engineer_signs_up_uploads_the_plan_and_reviews_their_permit(page, live_server, permit, personas, shot,
                                                                        login):
    from django.core import mail

    from stormwater.review.models import Review

    number = permit.case.number
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(f"{live_server.url}/sign-up/")
    page.get_by_label("I am the").select_option("design_engineer")
    page.get_by_label("First name").fill("Dana")
    page.get_by_label("Last name").fill("Engineer")
    page.get_by_label("E-mail address").fill("dana@civil.example")
    page.get_by_label("Username").fill("dana")
    page.get_by_label("Firm or company").fill("Civil Co.")
    page.get_by_label("Telephone").fill("413-555-0100")
    page.get_by_label("PE registration: state").fill("MA")
    shot("engineer-01-signup-1366")
    page.get_by_role("button", name="Sign up").click()
    page.get_by_role("heading", name="Please correct 1 problem").wait_for()  # no PE number: refused at the field
    page.get_by_label("PE registration: number").fill("45678")
    page.get_by_role("button", name="Sign up").click()
    page.get_by_role("heading", name="Check your e-mail").wait_for()
    shot("engineer-02-sent-1366")
    (m,) = [m for m in mail.outbox if "dana@civil.example" in m.to]
    link = re.search(r"https?://\S+/password-reset/\S+/", m.body).group(0)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(live_server.url + "/" + link.split("://", 1)[1].split("/", 1)[1])
    page.get_by_label(re.compile(r"^New password:?$")).fill(PASSWORD)
    page.get_by_label("New password again").fill(PASSWORD)
    shot("engineer-03-password-390")
    page.get_by_role("button", name="Save my new password").click()
    page.wait_for_url(re.compile(r".*/password-reset/done/"))

    # the applicant links the engineer on the permit page ("People on this permit"), at 390 px
    login("owner")
    page.goto(f"{live_server.url}/permits/{number}/")
    people = page.get_by_role("region", name="People on this permit")
    people.get_by_label("Username or e-mail").fill("dana@civil.example")
    people.get_by_label("as").select_option("design_engineer")
    people.get_by_role("button", name="Link").click()
    page.get_by_text("Linked to the permit.").wait_for()
    assert permit.case.parties.filter(user__username="dana", role="design_engineer").exists()
    login("dana", PASSWORD)
    page.goto(f"{live_server.url}/permits/{number}/")
    page.get_by_text("Dana Engineer — Design engineer").wait_for()
    form = page.locator("form").filter(has=page.get_by_label("Other document"))
    form.get_by_label("Other document").select_option("plan_data")
    form.get_by_label("File", exact=True).set_input_files(str(EXAMPLE))
    form.get_by_role("button", name="Upload").click()
    page.get_by_text("commercial-5-acre.yaml added to the file.").wait_for()
    shot("engineer-04-permit-390")
    # this slice's parts of the permit page fit the phone (the page's clocks table is wider today: the look slice's
    # "no page wider than 390 px" item)
    people = page.get_by_role("region", name="People on this permit")
    assert people.evaluate("e => e.getBoundingClientRect().right") <= 390
    assert form.evaluate("e => e.getBoundingClientRect().right") <= 390, _wide(page, 390)
    page.goto(f"{live_server.url}/reviews/new/")
    page.get_by_label("Plan file (JSON or YAML)").set_input_files(str(EXAMPLE))
    page.get_by_label("Permit case number (optional)").fill(number)
    shot("engineer-05-review-new-390")
    page.get_by_role("button", name="Run the review").click()
    page.get_by_role("heading", name="Standards, in the order of MassDEP").wait_for()
    review = Review.objects.get()
    assert review.case_id == permit.case_id and review.created_by.username == "dana"
    for width in (390, 1366):
        page.set_viewport_size({"width": width, "height": 900})
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        shot(f"engineer-06-review-{width}")
    assert permit.case.documents.filter(tag="plan_data", content_type="application/yaml").exists()
