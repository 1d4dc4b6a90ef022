"""Issue 8 in a real browser: the Director sees a project under a stop-work order after a storm inspection,
the lift is refused until the correction is approved; the UKY inventory on its map; the MS4 counts."""
from datetime import date, datetime
from decimal import Decimal as D
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from menuhelp import menu
import time_machine

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
E = ZoneInfo("America/New_York")
UKY = Path(__file__).resolve().parents[2] / ".." / "shared" / "reference" / "inventory" / "uky-campus-ms4"
PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


def _on(y, m, d, h=12):
    return time_machine.travel(datetime(y, m, d, h, tzinfo=E), tick=False)


@pytest.fixture
def data(transactional_db, personas, town, settings, tmp_path, town_toml):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from stormwater.construction import services as cs
    from stormwater.parcels.models import Owner
    from stormwater.permits import services as sv
    from stormwater.permits.checklist import ITEMS
    from stormwater.rules.applicability import determine
    from stormwater.stewardship import services as ss

    settings.MEDIA_ROOT = tmp_path / "media"
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
    with _on(2026, 4, 20):
        p = cs.project_open(permit=app, acting_user=personas["director"], design_engineer=personas["consultant"],
                            design_engineer_name="Dana Engineer", design_engineer_pe="MA PE 45678",
                            esc_inspector=personas["inspector"], esc_inspector_name="Ivy Inspector",
                            esc_inspector_credentials="CPESC #1234", frequency="14day_storm")
        cs.surety_post(project=p, form="bond", amount=D("125000"), estimated_cost=D("120000"),
                       prevailing_wage_included=True, counsel_approved_on=date(2026, 4, 14),
                       finance_approved_on=date(2026, 4, 14), posted_on=date(2026, 4, 20),
                       acting_user=personas["collector"])
        cs.preconstruction_meeting_record(project=p, held_on=date(2026, 4, 20), attendees="Owner, engineer, GC",
                                          acting_user=personas["director"])
        cs.plan_on_site_confirm(project=p, on=date(2026, 4, 20), acting_user=personas["inspector"])
    rep = dict(location="1 Elm St", inspector_name="Ivy Inspector", inspector_credentials="CPESC #1234",
               weather="Overcast", evaluation="compliant")
    with _on(2026, 4, 21, 11):
        cs.inspection_report_file(project=p, report=cs.ReportInput(
            kind="erosion_pre_start", inspected_at=datetime(2026, 4, 21, 10, tzinfo=E), last_inspection="none",
            precipitation_24h_in=D("0"), **rep), acting_user=personas["inspector"])
    with _on(2026, 4, 22):
        cs.construction_start(project=p, on=date(2026, 4, 22), acting_user=personas["director"])
        storm = cs.rain_event_record(project=p, ended_at=datetime(2026, 4, 22, 6, tzinfo=E), rain_in=D("0.62"),
                                     source="DPW gauge", acting_user=personas["staff"])
    with _on(2026, 4, 22, 15):
        insp = cs.inspection_report_file(project=p, report=cs.ReportInput(
            kind="erosion_storm", inspected_at=datetime(2026, 4, 22, 14, tzinfo=E), last_inspection=date(2026, 4, 21),
            precipitation_24h_in=D("0.62"), storm_id=storm.pk, findings="Silt fence down at the brook",
            corrective_steps="Restake the fence; clean CB-2", **{**rep, "evaluation": "violations"}),
            acting_user=personas["inspector"])
        v = cs.violation_notice_issue(project=p, inspection=insp, description="Silt fence down at the brook",
                                      corrective_actions="Restake the fence; clean CB-2", correct_by=date(2026, 4, 25),
                                      acting_user=personas["director"])
        cs.stop_work_issue(project=p, violations=[v], reason="Sediment leaving the site", acting_user=personas["director"])
        uky = None
        if UKY.is_dir():  # the sample lives in ../shared (relative to this repository); the map step skips without it
            town_toml(town_extent_west=-84.52, town_extent_south=38.0, town_extent_east=-84.49,  # Lexington, KY
                      town_extent_north=38.05, town_extent_margin_miles=1.0)
            uky = ss.site_open(name="UKY campus MS4 inventory (sample)", acting_user=personas["staff"])
            ss.inventory_import(site=uky, folder=str(UKY), acting_user=personas["staff"])
    return {"project": p, "uky": uky}


def test_director_sees_the_stop_work_and_the_lift_is_refused(page, live_server, data, shot, login):
    login("director")
    menu(page, "Construction")
    n = data["project"].case.number
    page.get_by_role("table").get_by_role("link", name=n).click()
    text = page.locator("main").inner_text()
    assert "STOP-WORK ORDER in force" in text and "storm: 0.62 in of rain" not in text  # the storm was inspected
    assert "Stop-work order in force" in page.locator("#status").inner_text()
    shot("construction-01-project")
    page.get_by_label("Director's approval of the work previously completed").fill("Walked the site")
    page.get_by_role("button", name="Lift the order").click()
    assert "not corrected" in page.locator("#error-summary").inner_text()  # on the form, as it was sent (issue 16)
    assert page.get_by_label("Director's approval of the work previously completed").input_value() == "Walked the site"
    shot("construction-02-lift-refused")
    page.goto(f"{live_server.url}/construction/{n}/report/")
    shot("construction-03-report-form")

    if data["uky"] is not None:
        page.goto(f"{live_server.url}/stewardship/{data['uky'].case.number}/")
        page.locator("#bmpmap .leaflet-interactive").first.wait_for()
        assert "160 BMPs" in page.locator("#inventory").inner_text()
        # the map is drawn by gis/map.js (labels escaped), not by an inline script
        assert page.locator("#bmpmap[data-ready='1']").count() == 1
        assert page.locator("#inventory script:not([src]):not([type='application/json'])").count() == 0
        shot("stewardship-01-uky-inventory")
    page.goto(f"{live_server.url}/stewardship/ms4-report/?year=2026")
    assert "Enforcement: stop-work orders" in page.locator("main").inner_text()
    shot("stewardship-02-ms4-report")

