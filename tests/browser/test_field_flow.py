"""Issue 18 "done when", in a real browser at 390 px as the inspector: today's list in route order with its map, a
storm inspection written with no connection (two photos with EXIF made by Pillow, a signature drawn on the screen),
kept on the phone, posted once when the connection returns; its report page and its PDF show the photos. axe-core
on every page (the ``shot`` fixture).

Offline is Playwright's ``context.set_offline(True)``; the service worker's own fetches are aborted too while offline
(a route on the context, which sees service-worker requests), so the pages can only come from its cache."""
import io
import re
import shutil
import subprocess
from datetime import date, datetime
from decimal import Decimal as D
from zoneinfo import ZoneInfo

import pytest
import time_machine
from PIL import ExifTags, Image

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
E = ZoneInfo("America/New_York")
PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


def _on(y, m, d, h=12, mi=0):
    return time_machine.travel(datetime(y, m, d, h, mi, tzinfo=E), tick=False)


def jpeg(color, taken, lat, lon) -> bytes:
    """A phone photo: EXIF DateTimeOriginal + OffsetTimeOriginal and a GPS position (degrees, minutes, seconds)."""
    img = Image.new("RGB", (800, 600), color)
    for x in range(0, 800, 50):
        img.paste((245, 245, 245), (x, 0, x + 6, 600))
    exif = Image.Exif()
    exif[0x0110] = "Test phone"
    sub = exif.get_ifd(ExifTags.IFD.Exif)
    sub[0x9003], sub[0x9011] = taken, "-04:00"
    gps = exif.get_ifd(ExifTags.IFD.GPSInfo)

    def dms(v):
        v = abs(v)
        d, m = int(v), int((abs(v) - int(v)) * 60)
        return (float(d), float(m), round((v - d - m / 60) * 3600, 2))
    gps[1], gps[2], gps[3], gps[4] = "N", dms(lat), "W", dms(lon)
    buf = io.BytesIO()
    img.save(buf, "JPEG", exif=exif, quality=85)
    return buf.getvalue()


@pytest.fixture
def field_data(transactional_db, personas, town, settings, tmp_path, town_toml):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from stormwater.cases.models import Case
    from stormwater.construction import services as cs
    from stormwater.parcels.models import Owner
    from stormwater.permits import services as sv
    from stormwater.permits import workflow as pwf
    from stormwater.permits.checklist import ITEMS
    from stormwater.permits.models import PermitApplication
    from stormwater.rules.applicability import determine

    settings.MEDIA_ROOT = tmp_path / "media"
    town_toml(totp_required_roles=[], field_start_name="DPW yard (test position)", field_start_latitude=42.067,
              field_start_longitude=-72.542)
    inspector = personas["inspector"]
    inspector.first_name, inspector.last_name, inspector.credentials = "Ivy", "Inspector", "CPESC #1234"
    inspector.save()
    up = lambda n: SimpleUploadedFile(n, PDF, content_type="application/pdf")  # noqa: E731
    with _on(2026, 3, 2):
        owner = Owner.objects.get(user=personas["owner"])
        app = sv.permit_application_start(
            acting_user=personas["owner"], owner=owner, owner_name=owner.name, owner_address=owner.mailing_address,
            site_address="1 Elm St", parcels=[town["house"]], description="Eight-lot subdivision",
            disturbance_sqft=D(87120), determination=determine(disturbance_sqft=D(87120), on=date(2026, 3, 2)))
        for item in ITEMS:
            if not app.checklist.get(key=item.key).done:
                if item.by_upload:
                    sv.permit_document_upload(application=app, upload=up(f"{item.key}.pdf"), tag=item.key,
                                              acting_user=personas["staff"])
                elif item.key == "fees":  # paid at the counter before filing (issue 30)
                    sv.permit_fees_paid(application=app, paid_on=date(2026, 3, 2), receipt="R-1",
                                        acting_user=personas["staff"])
                else:
                    sv.checklist_confirm(application=app, key=item.key, acting_user=personas["staff"])
        sv.permit_file(application=app, acting_user=personas["owner"])
    with _on(2026, 3, 6):
        sv.permit_determine_complete(application=app, acting_user=personas["staff"])
    with _on(2026, 4, 10):
        from permits.conftest import review_every_item  # the one approval gate (issue 30)

        review_every_item(app, personas["staff"])
        sv.permit_decide(application=app, kind="approve", findings="Meets the standards.", standards=["380-11D"],
                         acting_user=personas["director"])
    app.refresh_from_db()

    def copy(address, n):
        a = PermitApplication.objects.get(pk=app.pk)
        a.pk, a.site_address = None, address
        a.case = Case.objects.create(kind="permit", number=f"SWP-2026-09{n}", title=address,
                                     status=pwf.Status.APPROVED)
        a.save()
        return a

    rep = dict(location="whole site", inspector_name="Ivy Inspector", inspector_credentials="CPESC #1234",
               weather="Overcast", evaluation="compliant", precipitation_24h_in=D("0"))

    def started(permit, *, inspected, lat=None, lon=None):
        with _on(inspected.year, inspected.month, inspected.day, 8):
            p = cs.project_open(permit=permit, acting_user=personas["director"], esc_inspector=inspector,
                                esc_inspector_name="Ivy Inspector", esc_inspector_credentials="CPESC #1234",
                                frequency="14day_storm", preconstruction_required=False, surety_required=False,
                                surety_not_required_reason="surety held on the subdivision permit")
            cs.plan_on_site_confirm(project=p, on=inspected, acting_user=inspector)
        with _on(inspected.year, inspected.month, inspected.day, 11):
            cs.inspection_report_file(project=p, report=cs.ReportInput(
                kind="erosion_pre_start", inspected_at=datetime.combine(inspected, datetime.min.time(), E).replace(hour=10),
                last_inspection="none", **rep), acting_user=inspector)
            cs.construction_start(project=p, on=inspected, acting_user=personas["director"])
            if lat is not None:
                cs.project_position_set(project=p, latitude=lat, longitude=lon, acting_user=inspector)
        return p

    elm = started(app, inspected=date(2026, 7, 1), lat=42.0510, lon=-72.5790)      # storm pending: today
    maple = started(copy("14 Maple Rd", 1), inspected=date(2026, 6, 22), lat=42.0600, lon=-72.5500)  # due today
    oak = started(copy("7 Oak Ln", 2), inspected=date(2026, 6, 20), lat=42.0450, lon=-72.5650)       # overdue
    birch = started(copy("3 Birch Ct", 3), inspected=date(2026, 7, 2))                                # no position
    with _on(2026, 7, 2, 12):
        fence = cs.site_control_add(project=elm, kind="perimeter", name="Silt fence along the brook",
                                    location="east edge", acting_user=inspector)
        cs.site_control_add(project=elm, kind="exit", name="Stone construction exit", acting_user=inspector)
        area = cs.area_add(project=birch, name="Lot 2 cut slope", acting_user=inspector)
        cs.area_ceased(area=area, on=date(2026, 6, 29), acting_user=inspector)  # stabilize by 07-06
    with _on(2026, 7, 5, 19):
        storm = cs.rain_event_record(project=elm, ended_at=datetime(2026, 7, 5, 18, tzinfo=E), rain_in=D("0.30"),
                                     source="DPW rain gauge", acting_user=personas["staff"])
    return {"elm": elm, "maple": maple, "oak": oak, "birch": birch, "storm": storm, "fence": fence}


def test_storm_inspection_written_offline_is_posted_once_at_390px(page, live_server, field_data, shot, login, at,
                                                                   tmp_path):
    from stormwater.construction.models import Inspection

    at(date(2026, 7, 6), 8)
    elm = field_data["elm"]
    page.set_viewport_size({"width": 390, "height": 844})
    login("inspector")

    # --- today's list, in the order to drive it, and its map ----------------------------------------------------
    page.goto(f"{live_server.url}/field/today/")
    page.locator("#offline-status[data-ready='1']").wait_for()
    page.locator("#daymap[data-ready='1']").wait_for()
    stops = page.locator("ol.stops > li h2").all_inner_texts()
    assert [re.sub(r"\s+", " ", s).strip() for s in stops] == ["1 14 Maple Rd", "2 7 Oak Ln", "3 1 Elm St",
                                                               "– 3 Birch Ct"]
    main = page.locator("main").inner_text()
    assert "Route from DPW yard (test position)" in main and "overdue" in main
    assert "Stabilization check: Lot 2 cut slope" in main and "Storm inspection" in main
    assert "ending Jul 5, 2026, 6:00 PM" in main and "Mon, Jul 6, 2026, 6:00 PM" in main  # the one date form (issue 16)
    assert page.locator("#daymap .route-pin").count() == 4  # the yard and three sites
    assert "Ready to work offline: 4 report forms kept on this phone." in page.locator("#offline-status").inner_text()
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    shot("field-01-today-390")
    page.get_by_role("link", name="This week").click()
    assert "Routine inspection" in page.locator("main").inner_text()
    shot("field-02-week-390")
    page.get_by_role("link", name="Today").click()
    page.locator("#offline-status[data-ready='1']").wait_for()

    # --- no connection: the form comes from the phone ----------------------------------------------------------------
    ctx = page.context
    went_out = []

    def no_network(route):
        went_out.append(route.request.url)
        route.abort("internetdisconnected")
    ctx.set_offline(True)
    ctx.route("**/*", no_network)
    with page.expect_navigation() as nav:
        page.get_by_role("link", name=re.compile(r"Write the storm inspection report for 1 Elm St")).click()
    assert nav.value.from_service_worker
    assert page.locator("#kind").input_value() == "erosion_storm"
    assert page.locator("#storm_id").input_value() == str(field_data["storm"].pk)
    assert page.locator("#inspector_name").input_value() == "Ivy Inspector"
    assert page.locator("#inspector_credentials").input_value() == "CPESC #1234"
    assert page.locator("#inspected_at").input_value() == "2026-07-06T08:00"
    # only the storm inspection's sections: the storm and the erosion controls; not the BMPs, pre-bury, final
    assert page.locator("fieldset[data-kinds]:not([hidden]) > legend").all_inner_texts() == [
        "The storm (CGP 2022 Part 4.2(b), 4.3.1)", "Erosion and sediment controls"]
    assert not page.locator("#structures").is_visible() and not page.locator("#video_reference").is_visible()
    page.get_by_label("[e] Weather at the time").fill("Clearing, 68 °F")
    page.get_by_label("[g] Evaluation").select_option("compliant")
    page.locator("#row-0").get_by_label("Needs maintenance").check()
    page.locator("#row-0").get_by_label("Note").fill("Fence sagging at the outlet; restake this week")
    page.locator("#row-0-photos").set_input_files([
        {"name": "fence.jpg", "mimeType": "image/jpeg",
         "buffer": jpeg((60, 110, 60), "2026:07:06 07:52:10", 42.05105, -72.57893)}])
    page.locator("#row-1").get_by_label("In place").check()
    page.locator("#photos").set_input_files([
        {"name": "overview.jpg", "mimeType": "image/jpeg",
         "buffer": jpeg((150, 90, 40), "2026:07:06 07:55:41", 42.05098, -72.57911)}])
    page.locator("#sig-canvas").scroll_into_view_if_needed()
    box = page.locator("#sig-canvas").bounding_box()
    page.mouse.move(box["x"] + 20, box["y"] + box["height"] * 0.6)
    page.mouse.down()
    for i in range(1, 12):
        page.mouse.move(box["x"] + 20 + i * 25, box["y"] + box["height"] * (0.3 if i % 2 else 0.7))
    page.mouse.up()
    shot("field-03-storm-form-offline-390")
    page.get_by_role("button", name="Save and send the report").click()
    page.get_by_text("Saved on this phone: it will be sent when the connection returns.").wait_for()
    page.get_by_text("1 report waiting to be sent").wait_for()
    assert Inspection.objects.filter(project=elm, kind="erosion_storm").count() == 0
    shot("field-04-kept-offline-390")
    assert all("/field/reports/" not in u for u in went_out)  # nothing was posted while offline

    # --- the connection returns: sent once ---------------------------------------------------------------------------
    posts = []
    ctx.on("request", lambda r: posts.append(r.url) if r.method == "POST" and "/field/reports/" in r.url else None)
    ctx.unroute("**/*", no_network)
    ctx.set_offline(False)
    page.get_by_text(re.compile(r"Filed: Erosion control inspection after a storm")).wait_for()
    filed = Inspection.objects.get(project=elm, kind="erosion_storm")
    assert filed.client_key and filed.signature_method == "drawn" and filed.storm_id == field_data["storm"].pk
    assert filed.photos.count() == 2 and filed.rows.get(control=field_data["fence"]).condition == "needs_maintenance"
    page.reload()
    page.locator("#offline-status[data-ready='1']").wait_for()
    page.goto(f"{live_server.url}/field/outbox/")
    page.get_by_text("Nothing is waiting to be sent.").wait_for()
    page.get_by_text("Sent from this phone").wait_for()
    assert posts == [f"{live_server.url}/field/reports/"]  # once
    assert Inspection.objects.filter(project=elm, kind="erosion_storm").count() == 1
    shot("field-05-outbox-390")

    # --- the report page and its PDF show the photos --------------------------------------------------------------
    page.goto(f"{live_server.url}/construction/{elm.case.number}/inspections/{filed.pk}/")
    assert page.locator("figure.thumb img").count() == 2
    page.locator("figure.thumb img").first.wait_for()
    assert page.evaluate("() => [...document.querySelectorAll('figure.thumb img')].every(i => i.naturalWidth > 0)")
    text = page.locator("main").inner_text()
    assert "Jul 6, 2026, 7:52 AM" in text and "42.05105, -72.57893" in text and "signed on the screen" in text
    shot("field-06-report-390")
    pdf = page.request.get(f"{live_server.url}/construction/{elm.case.number}/documents/{filed.document_id}/")
    assert pdf.ok and pdf.body().startswith(b"%PDF-")
    path = tmp_path / "report.pdf"
    path.write_bytes(pdf.body())
    assert shutil.which("pdfimages"), "poppler-utils (pdfimages) is needed to check the PDF's images"
    listing = subprocess.run(["pdfimages", "-list", str(path)], capture_output=True, text=True, check=True).stdout
    images = [line.split() for line in listing.splitlines()[2:] if line.strip()]
    sizes = sorted((int(r[3]), int(r[4])) for r in images if r[2] == "image")
    assert sizes.count((800, 600)) == 2, listing       # the two photos (under the 1000 px PDF limit: as taken)
    assert (600, 180) in sizes, listing                # the signature drawn on the 600×180 pad

    # --- and the desk: the same report on the file page ------------------------------------------------------------
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(f"{live_server.url}/construction/{elm.case.number}/")
    assert "Report " + str(filed.pk) in page.locator("#inspections").inner_text()
    assert "Silt fence along the brook" in page.locator("#controls").inner_text()
    shot("field-07-file-desktop")
