"""Issue 8 "Done when", end to end through the services: a permitted project goes through scheduled and
storm-triggered inspections, a violation and a lifted stop-work order, partial bond release, as-built and a
certificate of completion (refused until each piece is in), then three years of O&M certifications with one
failure to maintain — with PDFs."""
import shutil
import subprocess
from datetime import date
from decimal import Decimal as D

import pytest
from django.core import mail
from django.core.management import call_command

from stormwater.cases.services import TransitionError
from stormwater.construction import selectors as csel
from stormwater.construction import services as cs
from stormwater.construction.models import SuretyEntry
from stormwater.permits import workflow as pwf
from stormwater.stewardship import selectors as ssel
from stormwater.stewardship import services as ss
from stormwater.stewardship.reports import ms4_counts, ms4_csv

from .conftest import dt, pdf_upload, report


def pdftext(content: bytes, *, layout: bool = True) -> str:
    assert content.startswith(b"%PDF-")
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext (poppler-utils) is not installed")
    return subprocess.run(["pdftotext", "-layout" if layout else "-raw", "-", "-"], input=content, capture_output=True,
                          check=True).stdout.decode()


def status(obj):
    obj.case.refresh_from_db()
    return obj.case.status


def test_done_when(project, approved, personas, at, settings, django_capture_on_commit_callbacks, client_for):
    director, staff, inspector, engineer, owner = (personas[k] for k in ("director", "staff", "inspector",
                                                                         "consultant", "owner"))
    collector = personas["collector"]
    director.email = "director@longmeadow.example"
    director.save()
    owner.email = "olivia@example.org"
    owner.save()
    site = approved.stewardship_sites.get()

    # --- before land disturbance: every precondition of the start is named --------------------------
    at(date(2026, 4, 14))
    with pytest.raises(TransitionError) as e:
        cs.construction_start(project=project, on=date(2026, 4, 14), acting_user=director)
    for words in ("pre-construction meeting", "approved plan", "Surety", "Erosion and sedimentation controls"):
        assert words in str(e.value)
    with pytest.raises(cs.ConstructionError, match="less than the total estimated construction cost"):
        cs.surety_post(project=project, form="bond", amount=D("100000"), estimated_cost=D("120000"),
                       prevailing_wage_included=True, counsel_approved_on=date(2026, 4, 14),
                       finance_approved_on=date(2026, 4, 14), posted_on=date(2026, 4, 14), acting_user=collector)
    with pytest.raises(cs.ConstructionError, match="prevailing wage"):
        cs.surety_post(project=project, form="bond", amount=D("125000"), estimated_cost=D("120000"),
                       prevailing_wage_included=False, counsel_approved_on=date(2026, 4, 14),
                       finance_approved_on=date(2026, 4, 14), posted_on=date(2026, 4, 14), acting_user=collector)
    surety = cs.surety_post(project=project, form="bond", amount=D("125000"), estimated_cost=D("120000"),
                            prevailing_wage_included=True, counsel_approved_on=date(2026, 4, 14),
                            finance_approved_on=date(2026, 4, 14), posted_on=date(2026, 4, 14), issuer="Hartford Surety",
                            reference="B-77", acting_user=collector)
    at(date(2026, 4, 20))
    cs.preconstruction_meeting_record(project=project, held_on=date(2026, 4, 20), attendees="Owner, Dana Engineer, "
                                      "Acme Sitework (GC)", acting_user=director)
    cs.plan_on_site_confirm(project=project, on=date(2026, 4, 20), acting_user=inspector)
    at(date(2026, 4, 21), 11)
    first = cs.inspection_report_file(project=project, report=report("erosion_pre_start", dt(2026, 4, 21, 10)),
                                      acting_user=inspector)
    assert first.document.file.read().startswith(b"%PDF-")
    at(date(2026, 4, 22))
    cs.construction_start(project=project, on=date(2026, 4, 22), acting_user=director)
    assert status(project) == "active"
    approved.refresh_from_db()
    assert approved.started_on == date(2026, 4, 22)  # § 380-10 K recorded on the permit

    # --- scheduled (14 days, CGP 4.2(b)) and storm-triggered inspections ------------------------------
    due = csel.next_due(project)
    assert due.due_on == date(2026, 5, 5) and "4.2(b)" in due.citation
    at(date(2026, 4, 28), 7)  # rainfall is recorded after it fell (issue 18: never later than now)
    cs.rain_event_record(project=project, ended_at=dt(2026, 4, 27, 18), rain_in=D("0.20"), source="DPW gauge",
                         acting_user=staff)
    assert csel.next_due(project).due_on == date(2026, 5, 5)  # 0.20 in does not trigger
    storm = cs.rain_event_record(project=project, ended_at=dt(2026, 4, 28, 6), rain_in=D("0.62"),
                                 source="DPW gauge", acting_user=staff)
    due = csel.next_due(project)
    assert due.due_at == dt(2026, 4, 29, 6) and due.storm is not None

    at(date(2026, 4, 28), 15)
    bad = report("erosion_storm", dt(2026, 4, 28, 14), last_inspection=date(2026, 4, 21), evaluation="violations",
                 findings="Silt fence down along the brook for 40 ft; sediment in CB-2", corrective_steps="",
                 precipitation_24h_in=D("0.62"), storm_id=storm.pk)
    with pytest.raises(cs.ConstructionError, match=r"\[h\] steps to be taken"):
        cs.inspection_report_file(project=project, report=bad, acting_user=inspector)
    bad.corrective_steps = "Re-trench and restake the silt fence; clean CB-2 and add inlet protection"
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        storm_insp = cs.inspection_report_file(project=project, report=bad, acting_user=inspector)
        assert not [m for m in mail.outbox if "Inspection report" in m.subject]  # nothing sent inside the transaction
    assert len(callbacks) == 1
    text = pdftext(storm_insp.document.file.open("rb").read())
    assert "Silt fence down" in text and "CPESC #1234" in text and "0.62" in text and "2026-04-21" in text.replace(
        "April 21, 2026", "2026-04-21")
    # 14 days from the inspection before the start (04-21): the storm inspection does not move the routine schedule
    # (CGP 2022 Part 4.2(b); issue 18 — this line used to expect 05-12, 14 days from the storm inspection)
    assert csel.next_due(project).due_on == date(2026, 5, 5)
    sent = [m for m in mail.outbox if "Inspection report" in m.subject]
    assert sent and {"director@longmeadow.example", "olivia@example.org"} <= set(sent[-1].to)

    # --- a violation, a stop-work order, its lifting only after correction and approval ----------------
    v = cs.violation_notice_issue(project=project, inspection=storm_insp, description="Silt fence down at the brook",
                                  corrective_actions=bad.corrective_steps, correct_by=date(2026, 5, 1),
                                  found_on=date(2026, 4, 28), acting_user=director)
    order = cs.stop_work_issue(project=project, violations=[v], reason="Sediment leaving the site", acting_user=director)
    assert status(project) == "stop_work"
    assert "STOP-WORK ORDER" in pdftext(order.document.file.open("rb").read())
    with pytest.raises(cs.ConstructionError, match="not corrected"):
        cs.stop_work_lift(project=project, work_approved_note="ok", acting_user=director)
    at(date(2026, 4, 30))
    cs.violation_corrected(violation=v, on=date(2026, 4, 30), note="Fence restaked, CB-2 cleaned", acting_user=owner)
    with pytest.raises(cs.ConstructionError, match="not approved by the Director"):
        cs.stop_work_lift(project=project, work_approved_note="ok", acting_user=director)
    at(date(2026, 5, 1))
    cs.violation_approve(violation=v, on=date(2026, 5, 1), acting_user=director)
    cs.stop_work_lift(project=project, work_approved_note="Site walked; all work to date approved",
                      acting_user=director)
    assert status(project) == "active"

    # --- stabilization deadline per area ----------------------------------------------------------------
    area = cs.area_add(project=project, name="Lot 3 cut slope", acting_user=inspector)
    cs.area_ceased(area=area, on=date(2026, 5, 4), acting_user=inspector)
    [view] = csel.areas(project, today=date(2026, 5, 11))
    assert view.due == date(2026, 5, 11) and not view.overdue
    assert csel.areas(project, today=date(2026, 5, 12))[0].overdue

    # --- routine inspection; pre-bury with the engineer's 24-hour notice --------------------------------
    at(date(2026, 5, 11), 9)
    cs.inspection_report_file(project=project, report=report("erosion_routine", dt(2026, 5, 11, 8),
                                                             last_inspection=date(2026, 4, 28)), acting_user=inspector)
    cs.area_stabilized(area=area, on=date(2026, 5, 11), acting_user=inspector)
    cs.inspection_notice_give(project=project, kind="pre_bury", scheduled_at=dt(2026, 5, 12, 10), acting_user=engineer)
    at(date(2026, 5, 12), 11)
    pre_bury = report("pre_bury", dt(2026, 5, 12, 10), inspector_name="Dana Engineer",
                      inspector_credentials="MA PE 45678", last_inspection=date(2026, 5, 11),
                      structures="Infiltration chambers IC-1 to IC-12; DMH-3")
    cs.inspection_report_file(project=project, report=pre_bury, acting_user=engineer)

    # --- partial bond release for a completed phase; full release refused -------------------------------
    at(date(2026, 6, 1))
    cs.surety_release(project=project, amount=D("40000"), phase="Phase 1: road and drainage", on=date(2026, 6, 1),
                      acting_user=director)
    assert cs.surety_held(surety) == D("85000.00")
    with pytest.raises(cs.ConstructionError, match="may not be fully released") as e:
        cs.surety_release(project=project, amount=D("85000"), on=date(2026, 6, 1), acting_user=director)
    assert "final inspection report" in str(e.value) and "certificate of completion" in str(e.value)

    # --- walk-through punch list, final inspection ---------------------------------------------------------
    at(date(2026, 8, 31), 9)
    cs.inspection_notice_give(project=project, kind="walk_through", scheduled_at=dt(2026, 9, 1, 10), acting_user=engineer)
    at(date(2026, 9, 1), 12)
    walk = cs.inspection_report_file(project=project, report=report(
        "walk_through", dt(2026, 9, 1, 10), inspector_name="Dana Engineer", inspector_credentials="MA PE 45678",
        last_inspection=date(2026, 8, 25), punch_list=("Loam and seed basin side slopes", "Replace cracked DMH-3 cover")),
        acting_user=engineer)
    cs.inspection_notice_give(project=project, kind="final", scheduled_at=dt(2026, 9, 10, 10), acting_user=engineer)
    at(date(2026, 9, 10), 12)
    final = report("final", dt(2026, 9, 10, 10), inspector_name="Dana Engineer", inspector_credentials="MA PE 45678",
                   last_inspection=date(2026, 9, 1), video_recorded_on=date(2026, 9, 8),
                   video_reference="CCTV-2026-09-08 (all 1,240 ft of pipe)", storm_evaluated_on=date(2026, 9, 9),
                   storm_evaluation_rain_in=D("0.85"))
    with pytest.raises(cs.ConstructionError, match="Punch-list items"):
        cs.inspection_report_file(project=project, report=final, acting_user=engineer)
    for item in walk.punch_items.all():
        cs.punch_item_done(item=item, on=date(2026, 9, 9), note="done", acting_user=engineer)
    cs.inspection_notice_give(project=project, kind="final", scheduled_at=dt(2026, 9, 11, 14), acting_user=engineer)
    at(date(2026, 9, 11), 15)
    final.inspected_at = dt(2026, 9, 11, 14)
    cs.inspection_report_file(project=project, report=final, acting_user=engineer)

    # --- certificate refused until each piece is in -----------------------------------------------------
    with pytest.raises(TransitionError) as e:
        cs.certificate_issue(project=project, acting_user=director)
    msg = str(e.value)
    assert "final O&M plan recorded" in msg and "as-built drawings" in msg and "easements" in msg
    assert "final inspection report" not in msg  # that one is in
    with pytest.raises(cs.ConstructionError, match="Massachusetts PE registration number"):
        cs.as_built_submit(project=project, upload=pdf_upload("asbuilt.pdf"), pe_name="Dana Engineer", pe_license="",
                           certified_on=date(2026, 9, 14), paper_copy_received_on=date(2026, 9, 15), full_size=True,
                           final_grades=True, deviations="Basin outlet moved 6 ft east", acting_user=engineer)
    ab = cs.as_built_submit(project=project, upload=pdf_upload("asbuilt.pdf"), pe_name="Dana Engineer",
                            pe_license="45678", certified_on=date(2026, 9, 11), paper_copy_received_on=date(2026, 9, 11),
                            full_size=True, final_grades=True, deviations="Basin outlet moved 6 ft east",
                            acting_user=engineer)
    cs.as_built_accept(as_built=ab, on=date(2026, 9, 11), acting_user=director)
    ss.party_add(site=site, role="owner", name="Olivia Owner", email="olivia@example.org", since=date(2026, 9, 11),
                 user=owner, acting_user=staff)
    ss.party_add(site=site, role="operator", name="Elm Court HOA", email="hoa@example.org", since=date(2026, 9, 11),
                 acting_user=staff)
    from stormwater.stewardship.contents import OM_ITEMS
    items = {i.key: f"section {n}" for n, i in enumerate(OM_ITEMS, 1)}
    with pytest.raises(ss.StewardshipError, match=r"public safety features \(§ 380-14 C\(2\)\(f\)\)"):
        ss.om_plan_submit(site=site, items={k: v for k, v in items.items() if k != "safety"}, final=True,
                          acting_user=owner)
    plan = ss.om_plan_submit(site=site, items=items, final=True, upload=pdf_upload("om.pdf"), acting_user=owner)
    with pytest.raises(ss.StewardshipError, match="book and page, or document number"):
        ss.om_plan_record(plan=plan, recorded_on=date(2026, 9, 11), proof_upload=pdf_upload(), acting_user=staff)
    ss.om_plan_record(plan=plan, recorded_on=date(2026, 9, 11), document_number="2026-0051234",
                      proof_upload=pdf_upload("receipt.pdf"), acting_user=staff)
    assert status(site) == "in_force"
    n_mail = len(mail.outbox)
    eas = ss.easement_add(site=site, purpose="access", location="20 ft strip from Elm St to the basin",
                          grantor="Olivia Owner", acting_user=staff)
    with pytest.raises(TransitionError, match="20 ft strip") as e:
        cs.certificate_issue(project=project, acting_user=director)
    assert "O&M" not in str(e.value) and "as-built" not in str(e.value)
    ss.easement_record(easement=eas, recorded_on=date(2026, 9, 11), book="25123", page="88",
                       proof_upload=pdf_upload("easement.pdf"), acting_user=staff)
    at(date(2026, 10, 1))
    # Issue 16: the preview shows the certificate that will issue (marked as a preview) and issues nothing; then issue.
    web = client_for(director)
    r = web.post(f"/construction/{project.case.number}/certificate/preview/")
    assert r.status_code == 200 and r["Content-Type"] == "application/pdf"
    preview = " ".join(pdftext(r.content, layout=False).split())  # the mark overlaps the text: read in order
    assert "PREVIEW — NOT ISSUED" in preview and "CERTIFICATE OF COMPLETION" in preview
    assert "2026-0051234" in preview and "Book 25123 Page 88" in preview
    project.refresh_from_db()
    assert project.certificate_on is None and status(project) != "completed" and not mail.outbox[n_mail:]
    assert not project.case.documents.filter(tag="certificate").exists()
    r = web.post(f"/construction/{project.case.number}/certificate/", follow=True)
    assert r.status_code == 200 and "Certificate of completion issued" in r.content.decode()
    project.refresh_from_db()
    assert status(project) == "completed" and project.certificate_on == date(2026, 10, 1)
    cert = " ".join(pdftext(project.certificate_document.file.open("rb").read()).split())
    assert "CERTIFICATE OF COMPLETION" in cert and "2026-0051234" in cert and "Book 25123 Page 88" in cert
    # The permit file closes and the 53G balance ($750) is due back within 30 days (§ 380-10 G(2)(f)).
    approved.case.refresh_from_db()
    assert approved.case.status == pwf.Status.CLOSED
    refund = approved.case.clocks.get(kind=pwf.REFUND)
    assert refund.state().due == date(2026, 11, 2)  # Oct 31 is a Saturday
    cs.surety_release(project=project, amount=D("85000"), on=date(2026, 10, 1), acting_user=director)
    assert cs.surety_held(surety) == 0 and SuretyEntry.objects.filter(final=True).count() == 1

    # --- three years of O&M certifications, one failure to maintain -----------------------------------
    bmp = ss.bmp_add(site=site, name="Infiltration chambers IC-1..12", source_type="Class V Injection Well",
                     treats="road and 8 roofs", drainage_area_acres=D("3.2"), acting_user=staff)
    assert bmp.region1_category == "infiltration_chamber"
    at(date(2027, 8, 1))
    with pytest.raises(ss.StewardshipError, match="may be certified from 2027-08-12"):
        ss.certification_file(site=site, received_on=date(2027, 8, 1), work_summary="x", signed_by="HOA",
                              acting_user=owner)
    at(date(2027, 8, 20))
    with django_capture_on_commit_callbacks(execute=True):
        call_command("stewardship_reminders")
    assert any("Annual stormwater O&M certification due 2027-09-13" in m.subject for m in mail.outbox)
    ss.maintenance_log_add(bmp=bmp, on=date(2027, 8, 15), kind="routine", description="Sediment removed from "
                           "the isolator row", performed_by="Elm Court HOA", acting_user=owner)
    at(date(2027, 9, 1))
    c1 = ss.certification_file(site=site, received_on=date(2027, 9, 1), work_summary="Isolator row cleaned",
                               signed_by="Elm Court HOA", acting_user=owner)
    assert (c1.seq, c1.due_on, c1.late) == (1, date(2027, 9, 13), False)  # Sep 11 2027 is a Saturday → Monday 13th

    at(date(2028, 6, 1))
    notice = ss.maintenance_notice_issue(site=site, bmp=bmp, violation="Chambers 60 % full of sediment",
                                         corrective_work="Jet and vacuum all rows; dispose of sediment",
                                         acting_user=director)
    due = notice.case.clocks.get(kind="cure").state().due
    assert due == date(2028, 7, 3)  # 30 days → Saturday July 1, rolled to Monday July 3
    at(date(2028, 7, 3))
    with pytest.raises(TransitionError, match="30 days"):
        ss.maintenance_enforce(notice=notice, acting_user=director)
    at(date(2028, 7, 5))
    ss.maintenance_enforce(notice=notice, acting_user=director)
    assert status(notice) == "enforcement"
    ss.maintenance_log_add(bmp=bmp, on=date(2028, 7, 10), kind="disposal", description="Rows jetted",
                           performed_by="Vac Co", disposal_material="3 cy sediment", disposal_location="Springfield "
                           "transfer station", acting_user=owner)
    at(date(2028, 7, 11))
    ss.maintenance_corrected(notice=notice, on=date(2028, 7, 11), note="Inspected: rows clean", acting_user=director)
    assert status(notice) == "corrected"

    at(date(2028, 9, 20))
    assert [d.seq for d in ssel.certifications_overdue(today=date(2028, 9, 20))] == [2]  # due Sep 11, 2028
    c2 = ss.certification_file(site=site, received_on=date(2028, 9, 20), work_summary="Rows jetted after notice",
                               signed_by="Elm Court HOA", acting_user=owner)
    assert c2.late and c2.due_on == date(2028, 9, 11)
    at(date(2029, 9, 5))
    c3 = ss.certification_file(site=site, received_on=date(2029, 9, 5), work_summary="Routine year",
                               signed_by="Elm Court HOA", acting_user=owner)
    assert (c3.seq, c3.due_on, c3.late) == (3, date(2029, 9, 11), False)

    # --- MS4 report counts for permit year 2027 (July 2026 – June 2027) ---------------------------------
    rows = {r.measure: r.count for r in ms4_counts(2027)}
    assert rows["Certificates of completion issued"] == 1 and rows["Annual O&M certifications received"] == 0
    rows26 = {r.measure: r.count for r in ms4_counts(2026)}
    assert rows26["Permits issued (approved, with or without conditions)"] == 1
    assert rows26["Enforcement: stop-work orders"] == 1 and rows26["Construction site inspections (all)"] == 4
    assert "2027-2028" in ms4_csv(2028) or "2027-2028" in ms4_csv(2028).replace("\r", "")
