"""Issue 30 "the inspector's phone", done when: in a real browser at 390 px as the inspector, a failed silt-fence row
in a storm inspection becomes a notice of violation with its photo (on the report page and in the notice's PDF) and
a re-inspection on the week list. axe-core on every page (the ``shot`` fixture); no horizontal scroll."""
import re
import shutil
import subprocess
from datetime import date

import pytest

from test_field_flow import field_data, jpeg  # noqa: F401  (the inspector's sites: 1 Elm St with a storm pending)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
FINDING = "Fence down over 30 ft at the outlet; sediment in the brook"


def _no_side_scroll(page):
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390


def test_a_failed_silt_fence_row_becomes_a_notice_with_its_photo_and_a_reinspection(
        page, live_server, field_data, shot, login, at, tmp_path):  # noqa: F811
    from stormwater.construction.models import Inspection, Violation

    at(date(2026, 7, 6), 8)
    elm = field_data["elm"]
    page.set_viewport_size({"width": 390, "height": 844})
    login("inspector")

    # --- the storm inspection, the silt fence failed, a photo of it -------------------------------------------------
    page.goto(f"{live_server.url}/field/today/")
    page.get_by_role("link", name=re.compile(r"Write the storm inspection report for 1 Elm St")).click()
    page.get_by_label("[e] Weather at the time").fill("Clearing, 68 °F")
    page.get_by_label("[g] Evaluation").select_option("violations")
    page.locator("#row-0").get_by_label("Failed").check()
    page.locator("#row-0").get_by_label("Note").fill(FINDING)
    page.locator("#row-0-photos").set_input_files([
        {"name": "fence.jpg", "mimeType": "image/jpeg",
         "buffer": jpeg((60, 110, 60), "2026:07:06 07:52:10", 42.05105, -72.57893)}])
    page.locator("#row-1").get_by_label("In place").check()
    page.get_by_label("[h] Steps to correct violations").fill("Re-set and re-trench the fence; clean the brook bank")
    page.locator("#sig-canvas").scroll_into_view_if_needed()  # with script, the signature is drawn on the screen
    box = page.locator("#sig-canvas").bounding_box()
    page.mouse.move(box["x"] + 20, box["y"] + box["height"] * 0.6)
    page.mouse.down()
    for i in range(1, 10):
        page.mouse.move(box["x"] + 20 + i * 25, box["y"] + box["height"] * (0.3 if i % 2 else 0.7))
    page.mouse.up()
    page.get_by_role("button", name=re.compile("Save and send the report|File the report")).click()
    page.wait_for_url(re.compile(r"/inspections/\d+/$"))
    filed = Inspection.objects.get(project=elm, kind="erosion_storm")
    assert filed.rows.get(control=field_data["fence"]).condition == "failed"

    # --- the report page: open the notice from the failed row -------------------------------------------------------
    fence_row = page.locator("ul.rows-done > li", has_text="Silt fence along the brook")
    assert fence_row.locator("figure.thumb img").count() == 1
    fence_row.get_by_text("Open a notice of violation").click()
    form = fence_row.locator("form")
    assert form.get_by_label("Required corrective actions").input_value().startswith("Re-set and re-trench")
    form.get_by_label("Correct by").fill("2026-07-08")
    form.get_by_label("Re-inspection (on the week list)").fill("2026-07-08T09:00")
    _no_side_scroll(page)
    shot("row-notice-01-form-390")
    form.get_by_role("button", name="Issue the notice of violation").click()
    page.get_by_text("Notice of violation issued and the re-inspection scheduled.").wait_for()
    v = Violation.objects.get(project=elm)
    assert v.row.inspection == filed and FINDING in v.description and v.row.photos.count() == 1
    fence_row = page.locator("ul.rows-done > li", has_text="Silt fence along the brook")
    assert f"Notice of violation V{v.pk}" in fence_row.inner_text() and "Wed, Jul 8, 2026" in fence_row.inner_text()
    assert page.get_by_text("Open a notice of violation").count() == 0
    _no_side_scroll(page)
    shot("row-notice-02-issued-390")

    # the notice's PDF carries the finding and its photo
    pdf = page.request.get(live_server.url + fence_row.get_by_role("link", name=re.compile("the notice")).get_attribute("href"))
    assert pdf.ok and pdf.body().startswith(b"%PDF-")
    path = tmp_path / "nov.pdf"
    path.write_bytes(pdf.body())
    text = " ".join(subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True).stdout.split())
    assert FINDING in text and "Photos of the finding" in text
    if shutil.which("pdfimages"):
        listing = subprocess.run(["pdfimages", "-list", str(path)], capture_output=True, text=True, check=True).stdout
        assert [r.split()[3:5] for r in listing.splitlines()[2:] if r.split()[2] == "image"] == [["800", "600"]]

    # --- the week list: the re-inspection on Wednesday ----------------------------------------------------------------
    page.goto(f"{live_server.url}/field/week/")
    day = page.locator("section.day", has_text="Wed, Jul 8, 2026")
    assert f"Re-inspection of V{v.pk}: Silt fence along the brook" in day.inner_text()
    assert "1 Elm St" in day.inner_text() and "§ 380-16 C(4)(e)[5]" in day.inner_text()
    _no_side_scroll(page)
    shot("row-notice-03-week-390")
