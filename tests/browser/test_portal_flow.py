"""Issue 9 "Done when", in a real browser with axe-core on every page: a new user, as owner, finds their
parcel, understands the fee, signs up with the code on the bill and files an abatement with evidence; as
applicant, files a permit application and answers an information request; staff pages pass axe too.
One walk is keyboard-only; one page load runs without the CSP bypass and must log no CSP violation."""
import re
from datetime import date

import pytest
from menuhelp import menu

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]




@pytest.fixture(autouse=True)
def _env(settings, tmp_path):
    settings.SESSION_EXPIRE_AT_BROWSER_CLOSE = True  # time is frozen in 2026 for the clocks
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    # the throttles' cache is cleared around every database test (tests/conftest.py::_fresh_cache)


@pytest.fixture
def billed(town, resolution, at):
    from stormwater.utility.services import bill_run_issue, fiscal_year

    at(date(2026, 9, 10))
    label, start, end = fiscal_year(2027)
    bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2026, 9, 10),
                   acting_user=None)
    return town


def act(page, button, **kw):
    with page.expect_navigation():
        page.get_by_role("button", name=button, **kw).click()


def test_a_new_owner_finds_the_parcel_understands_the_fee_signs_up_and_files_an_abatement(
        page, live_server, billed, at, shot, tmp_path):
    from stormwater.portal.codes import verification_code
    from stormwater.receivables.services import payment_post
    from stormwater.relief.models import Abatement
    from stormwater.relief.selectors import bill_owed
    from stormwater.utility.models import Bill

    bill = Bill.objects.get(parcel=billed["shops"])  # Shops LLC: no sign-in yet
    at(date(2026, 9, 20))
    payment_post(account=bill.account, amount=bill_owed(bill, as_of=date(2026, 9, 20)), received_on=date(2026, 9, 20),
                 acting_user=None)
    at(date(2026, 10, 1))

    page.goto(f"{live_server.url}/portal/")
    shot("portal-01-home")
    page.get_by_label("Address or parcel id").fill("02-01-1")
    act(page, "Find")
    shot("portal-02-results")
    page.get_by_role("link", name="02-01-1 Test St").click()
    page.get_by_role("heading", name="The fee and why").wait_for()
    main = page.locator("main").inner_text()
    assert "59" in main and "Nonresidential" in main and "Declining blocks" in main
    assert "Shops LLC" not in main  # the owner's name is not public
    shot("portal-03-parcel-fee")

    menu(page, "Online services")
    page.get_by_role("link", name="create a sign-in with the code printed on your bill").click()
    act(page, "Create my sign-in")  # empty: the errors are announced and tied to their fields
    assert page.get_by_role("alert").count() >= 1
    assert page.get_by_label("Account number").get_attribute("aria-invalid") == "true"
    shot("portal-04-signup-errors")
    page.get_by_label("Account number").fill(bill.account.number)
    page.get_by_label("Verification code").fill(verification_code(bill.account.number).lower())
    page.get_by_label("Choose a username").fill("shops")
    page.get_by_label("Email (for notices)").fill("shops@example.org")
    page.get_by_label(re.compile(r"^Password:?$")).fill("rain-garden-2026")
    page.get_by_label("Password again").fill("rain-garden-2026")
    act(page, "Create my sign-in")
    assert bill.number in page.locator("main").inner_text()
    shot("portal-05-owner-home")

    page.get_by_role("link", name=bill.account.number).click()
    shot("portal-06-account-statement")
    page.go_back()
    page.get_by_role("link", name="Apply for an abatement of a bill").click()
    page.get_by_label(re.compile(r"^Bill:?$")).select_option(bill.number)
    page.get_by_label("Impervious area measured wrong").check()
    page.get_by_label("Why the billing is more likely than not in error").fill("A parking area was removed.")
    page.get_by_label("Amount to abate ($)").fill("10.00")
    ev = tmp_path / "photos.pdf"
    ev.write_bytes(b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n")
    page.get_by_label("Evidence (PDF, PNG or JPEG)").set_input_files(str(ev))
    shot("portal-07-abatement-form")
    act(page, "File the application")
    case = Abatement.objects.get(bill=bill).case
    assert case.number in page.locator("h1").inner_text()
    assert case.documents.filter(original_name="photos.pdf").exists()
    shot("portal-08-abatement-filed")
    menu(page, "Online services")
    assert case.number in page.locator("main").inner_text()
    shot("portal-09-owner-follows-case")


def test_an_applicant_files_a_permit_application_and_answers_an_information_request(
        page, live_server, town, personas, at, shot, tmp_path, login):
    from stormwater.permits.checklist import ITEMS
    from stormwater.permits.models import PermitApplication
    from stormwater.permits.services import (checklist_confirm, permit_determine_complete, permit_document_upload,
                                             permit_fees_paid)
    from django.core.files.uploadedfile import SimpleUploadedFile

    at(date(2026, 3, 2))
    page.goto(f"{live_server.url}/permits/applicability/")
    page.get_by_label("Land disturbance").fill("87120")
    page.get_by_label("When the work is to start").fill("2026-05-01")
    page.get_by_role("button", name="Check").click()
    page.locator("#result").wait_for()
    shot("applicant-01-applicability")

    login("owner")
    page.goto(f"{live_server.url}/portal/")
    shot("applicant-02-portal")
    page.get_by_role("link", name="Start a permit application").click()
    page.get_by_label("Permittee: the owner of the site").fill("Olivia Owner")
    page.get_by_label("Owner's mailing address").fill("1 Elm St\nLongmeadow, MA 01106")
    page.get_by_label("Site address").fill("1 Elm St")
    page.get_by_label("Assessors' parcel ids").fill("01-01-1")
    page.get_by_label("Project description").fill("Eight-lot subdivision with a new road")
    page.get_by_label("Land disturbance (ft²)").fill("87120")
    shot("applicant-03-new")
    act(page, "Open draft")
    app = PermitApplication.objects.get()
    pdf = tmp_path / "form.pdf"
    pdf.write_bytes(b"%PDF-1.4\n%%EOF\n")
    page.get_by_label("Upload: Completed application form with the original signatures of all owners").set_input_files(str(pdf))
    page.locator("#checklist form").first.get_by_role("button", name="Upload", exact=True).click()
    page.locator(".messages").get_by_text("form.pdf added to the file").wait_for()
    shot("applicant-04-checklist")
    for item in ITEMS:  # the rest of the package, as the earlier permit tests do
        if not app.checklist.get(key=item.key).done:
            if item.by_upload:
                permit_document_upload(application=app, tag=item.key, acting_user=personas["owner"],
                                       upload=SimpleUploadedFile(f"{item.key}.pdf", b"%PDF-1.4\n%%EOF\n"))
            elif item.key == "fees":  # paid at the counter before filing (issue 30)
                permit_fees_paid(application=app, paid_on=date.today(), receipt="R-1", acting_user=personas["staff"])
            else:
                checklist_confirm(application=app, key=item.key, acting_user=personas["staff"], note="test")
    page.reload()
    act(page, "File the application")
    assert "Filed" in page.locator("#status").inner_text()
    shot("applicant-05-filed")

    at(date(2026, 3, 9))
    permit_determine_complete(application=app, acting_user=personas["staff"])
    login("staff")
    page.goto(f"{live_server.url}/permits/{app.case.number}/")
    page.get_by_label("Request information (one item a line)").fill("Test pit logs for basin 2")
    act(page, "Request information")
    shot("staff-01-info-requested")

    at(date(2026, 3, 16))
    login("owner")
    page.goto(f"{live_server.url}/portal/")
    page.get_by_role("link", name=app.case.number).click()
    page.get_by_label(re.compile("^Response")).fill("Logs attached: TP-1 to TP-4.")
    act(page, "Submit the response")
    app.case.refresh_from_db()
    assert app.case.status != "info_requested"
    assert app.info_requests.get().responded_on == date(2026, 3, 16)
    shot("applicant-06-info-answered")


def test_staff_pages_pass_axe(page, live_server, billed, personas, shot, login):
    login("staff")
    for i, path in enumerate(["/", "/parcels/", "/parcels/02-01-1/", "/bills/", "/bill-runs/", "/relief/",
                              "/permits/", "/construction/", "/portal/parcels/02-01-1/"]):
        page.goto(f"{live_server.url}{path}")
        shot(f"staff-pages-{i:02d}")


def test_keyboard_only_lookup_and_sign_in(page, live_server, billed, axe):
    """Tab from the top: the skip link comes first and moves focus to main; the lookup and the sign-in
    work with the keyboard alone; focus is always visible (an outline on the focused element)."""
    page.goto(f"{live_server.url}/portal/")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Skip to main content"
    page.keyboard.press("Enter")
    assert page.evaluate("location.hash") == "#main"
    # Tab until the lookup field has focus, type, press Enter.
    for _ in range(15):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "id_q":
            break
    assert page.evaluate("document.activeElement.id") == "id_q"
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline not in ("none", "")
    page.keyboard.type("02-01-1")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    for _ in range(30):
        page.keyboard.press("Tab")
        if "02-01-1 Test St" in (page.evaluate("document.activeElement.textContent") or ""):
            break
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert "/portal/parcels/02-01-1/" in page.url
    axe("keyboard-parcel")
    page.goto(f"{live_server.url}/login/")
    page.wait_for_load_state("load")
    seen = []  # the username field has autofocus (Django's login form); otherwise Tab to it
    for _ in range(10):
        if page.evaluate("document.activeElement.id") == "id_username":
            break
        page.keyboard.press("Tab")
        seen.append(page.evaluate("document.activeElement.outerHTML.slice(0, 60)"))
        if page.evaluate("document.activeElement.id") == "id_username":
            break
    assert page.evaluate("document.activeElement.id") == "id_username", seen
    page.keyboard.type("owner")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "id_password"
    page.keyboard.type("pw-owner")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.url.split("#")[0] == f"{live_server.url}/"  # the fragment of the skip link survives the redirect


def test_pages_log_no_csp_violation_without_the_bypass(browser, live_server, billed, personas):
    """The policy is enforced here (no bypass): the map, its script and its styles load, nothing is refused."""
    ctx = browser.new_context()
    pg = ctx.new_page()
    refused = []
    pg.on("console", lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None)
    for path in ["/portal/", "/portal/parcels/02-01-1/", "/login/", "/permits/applicability/"]:
        r = pg.goto(f"{live_server.url}{path}")
        assert "default-src 'self'" in r.headers["content-security-policy"]
        pg.wait_for_load_state("networkidle")
    ctx.close()
    assert refused == []


@pytest.fixture
def mapped(town, tmp_path):
    """A parcel with a surveyed polygon and a building (EPSG:2249), so the public page draws its map."""
    import geopandas as gpd
    import shapely

    from stormwater.gis.services import LayerSpec, SurveySpec, survey_import
    from stormwater.parcels.models import Parcel

    x0, y0 = 740000.0, 2930000.0
    path = tmp_path / "town.gpkg"
    gpd.GeoDataFrame({"PID": ["P-1"]}, geometry=[shapely.box(x0, y0, x0 + 100, y0 + 100)],
                     crs="EPSG:2249").to_file(path, layer="parcels", driver="GPKG")
    gpd.GeoDataFrame({"k": [1]}, geometry=[shapely.box(x0 + 10, y0 + 10, x0 + 30, y0 + 30)],
                     crs="EPSG:2249").to_file(path, layer="buildings", driver="GPKG")
    Parcel.objects.create(parcel_id="P-1", address="1 Test St", land_use_code="101", dwelling_units=1)
    spec = SurveySpec(parcels=LayerSpec(str(path), "parcels"), id_field="PID",
                      impervious=[LayerSpec(str(path), "buildings")], right_of_way=[])
    survey_import(spec=spec, name="2026 flyover", surveyed_on=date(2026, 4, 1), acting_user=None)
    return town


def test_the_public_map_draws_under_the_policy_and_passes_axe(browser, page, live_server, mapped, shot):
    ctx = browser.new_context()  # no CSP bypass: the map's scripts, styles and data must all be allowed
    pg = ctx.new_page()
    refused, errors = [], []
    pg.on("console", lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None)
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto(f"{live_server.url}/portal/parcels/P-1/")
    pg.locator("#parcel-map[data-ready='1']").wait_for()
    assert pg.locator("#parcel-map path").count() >= 2  # the parcel and the building
    ctx.close()
    assert refused == [] and errors == []
    page.goto(f"{live_server.url}/portal/parcels/P-1/")
    page.locator("#parcel-map[data-ready='1']").wait_for()
    shot("portal-10-parcel-map")
