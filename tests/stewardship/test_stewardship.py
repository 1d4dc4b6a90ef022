"""Stewardship (Ch. 380 § 380-14): O&M plan contents and recording, easements, logs, annual certifications at
their edges, reminders, failure to maintain, ownership changes and amendments, the GIS inventory, MS4 counts."""
from datetime import date
from decimal import Decimal as D

import pytest
from django.core import mail
from django.core.management import call_command

from stormwater.cases.services import TransitionError
from stormwater.stewardship import selectors as sel
from stormwater.stewardship import services as sv
from stormwater.stewardship.contents import OM_ITEMS
from stormwater.stewardship.models import AnnualCertification, Bmp, CertificationReminder, MaintenanceLog
from stormwater.stewardship.reports import ms4_counts, ms4_csv

from .conftest import UKY_EXTENT, all_items, need_uky, pdf_upload


def test_final_plan_needs_every_content_item_each_named(site, personas):
    for item in OM_ITEMS:
        items = all_items()
        items.pop(item.key)
        with pytest.raises(sv.StewardshipError) as e:
            sv.om_plan_submit(site=site, items=items, final=True, acting_user=personas["owner"])
        assert item.citation in str(e.value) and str(e.value).count("§ 380-14 C(") == 1
    draft = sv.om_plan_submit(site=site, items={"owners": "p1"}, final=False, acting_user=personas["owner"])
    with pytest.raises(sv.StewardshipError, match="Only the final"):
        sv.om_plan_record(plan=draft, recorded_on=date(2026, 5, 1), book="1", page="1", proof_upload=pdf_upload(),
                          acting_user=personas["staff"])


def test_recording_needs_book_and_page_or_document_number_and_proof(site, personas):
    plan = sv.om_plan_submit(site=site, items=all_items(), final=True, acting_user=personas["owner"])
    with pytest.raises(sv.StewardshipError, match="book and page, or document number"):
        sv.om_plan_record(plan=plan, recorded_on=date(2026, 5, 1), book="25000", proof_upload=pdf_upload(),
                          acting_user=personas["staff"])
    with pytest.raises(sv.StewardshipError, match="proof of recording"):
        sv.om_plan_record(plan=plan, recorded_on=date(2026, 5, 1), document_number="12", acting_user=personas["staff"])
    assert sel.final_plan_recorded(site) is None and site.case.status == "pending"
    sv.om_plan_record(plan=plan, recorded_on=date(2026, 5, 1), document_number="2026-12",
                      proof_upload=pdf_upload(), acting_user=personas["staff"])
    site.case.refresh_from_db()
    assert site.case.status == "in_force" and "document no. 2026-12" in sel.final_plan_recorded(site).recording


def test_easements(site, personas):
    with pytest.raises(sv.StewardshipError, match="purpose, location and grantor"):
        sv.easement_add(site=site, purpose="access", location="", grantor="x", acting_user=personas["staff"])
    e = sv.easement_add(site=site, purpose="offsite", location="Basin on lot 9", grantor="Neighbor Trust",
                        acting_user=personas["staff"])
    assert any("Basin on lot 9" in m for m in sel.easements_missing(site))
    # the grantor becomes a responsible party (amendments need their signature, § 380-14 F(2))
    assert site.parties.filter(role="grantor", name="Neighbor Trust").exists()
    with pytest.raises(sv.StewardshipError, match=r"§ 380-14 D\(4\)"):
        sv.easement_record(easement=e, recorded_on=date(2026, 5, 2), book="25001", page="", proof_upload=pdf_upload(),
                           acting_user=personas["staff"])
    sv.easement_record(easement=e, recorded_on=date(2026, 5, 2), book="25001", page="7", proof_upload=pdf_upload(),
                       acting_user=personas["staff"])
    assert sel.easements_missing(site) == []
    with pytest.raises(sv.StewardshipError, match="why no stormwater"):
        sv.easements_not_required(site=site, reason=" ", acting_user=personas["staff"])


def test_maintenance_log_disposal_needs_material_and_location(site, personas):
    bmp = sv.bmp_add(site=site, name="Forebay", source_type="Detention Pond", acting_user=personas["staff"])
    assert bmp.region1_category == "extended_dry_detention_basin"
    with pytest.raises(sv.StewardshipError, match=r"type of material and the disposal location"):
        sv.maintenance_log_add(bmp=bmp, on=date(2026, 5, 1), kind="disposal", description="Sediment removed",
                               performed_by="Vac Co", disposal_material="2 cy sediment", acting_user=personas["owner"])
    with pytest.raises(sv.StewardshipError, match="date, what was done and who"):
        sv.maintenance_log_add(bmp=bmp, on=None, kind="inspection", description="x", performed_by="y",
                               acting_user=personas["owner"])
    e = sv.maintenance_log_add(bmp=bmp, on=date(2026, 5, 1), kind="inspection", description="Outlet clear",
                               performed_by="Basin Care", acting_user=personas["owner"])
    with pytest.raises(ValueError, match="append-only"):
        e.description = "changed"
        e.save()
    assert MaintenanceLog.objects.get().description == "Outlet clear"


def test_certification_windows_late_and_the_overdue_list(recorded, site, personas, at):
    # recorded Fri 2026-05-15 → year 1 due 2027-05-17 (the 15th is a Saturday), opens 2027-04-15
    d1 = sel.next_certification(recorded)
    assert (d1.period_start, d1.period_end, d1.due_on, d1.opens_on) == (
        date(2026, 5, 15), date(2027, 5, 14), date(2027, 5, 17), date(2027, 4, 15))
    at(date(2027, 4, 14))
    with pytest.raises(sv.StewardshipError, match="may be certified from 2027-04-15"):
        sv.certification_file(site=site, received_on=date(2027, 4, 14), work_summary="x", signed_by="y",
                              acting_user=personas["owner"])
    with pytest.raises(sv.StewardshipError, match="the work done, the signature"):
        sv.certification_file(site=site, received_on=date(2027, 4, 14), work_summary=" ", signed_by="",
                              acting_user=personas["owner"])
    with pytest.raises(sv.StewardshipError, match="future"):  # staff recording a paper filing give its date
        sv.certification_file(site=site, received_on=date(2027, 4, 20), work_summary="x", signed_by="y",
                              acting_user=personas["staff"])
    assert sel.certifications_overdue(today=date(2027, 5, 17)) == []
    assert [d.seq for d in sel.certifications_overdue(today=date(2027, 5, 18))] == [1]
    at(date(2027, 5, 18))
    c = sv.certification_file(site=site, received_on=date(2027, 5, 18), work_summary="Cleaned twice",
                              signed_by="Basin Care LLC", acting_user=personas["owner"])
    assert c.late and c.seq == 1
    # the late filing does not move the next anniversary
    assert sel.next_certification(recorded).due_on == date(2028, 5, 15)
    assert sel.certifications_overdue(today=date(2027, 5, 18)) == []


def test_on_the_due_day_is_on_time(recorded, site, personas, at):
    at(date(2027, 5, 17))
    c = sv.certification_file(site=site, received_on=date(2027, 5, 17), work_summary="x", signed_by="y",
                              acting_user=personas["owner"])
    assert not c.late


def test_no_certification_before_a_recorded_plan(site, personas):
    with pytest.raises(sv.StewardshipError, match="recorded final O&M plan"):
        sv.certification_file(site=site, received_on=date(2026, 5, 1), work_summary="x", signed_by="y",
                              acting_user=personas["owner"])


def test_reminders_are_sent_once_after_commit(recorded, site, personas, at, django_capture_on_commit_callbacks):
    at(date(2027, 4, 16))  # due 2027-05-17: 31 days away, no reminder yet
    with django_capture_on_commit_callbacks(execute=True):
        call_command("stewardship_reminders")
    assert mail.outbox == []
    at(date(2027, 4, 17))
    with django_capture_on_commit_callbacks(execute=True):
        call_command("stewardship_reminders")
    with django_capture_on_commit_callbacks(execute=True):
        call_command("stewardship_reminders")
    upcoming = [m for m in mail.outbox if "certification due 2027-05-17" in m.subject]
    assert len(upcoming) == 1 and set(upcoming[0].to) == {"olivia@example.org", "ops@basincare.example"}
    at(date(2027, 5, 20))
    with django_capture_on_commit_callbacks(execute=True):
        call_command("stewardship_reminders")
    assert any(m.subject.startswith("OVERDUE") for m in mail.outbox)
    assert CertificationReminder.objects.count() == 2


def test_failure_to_maintain_30_days_then_enforcement(site, personas, at):
    at(date(2026, 6, 5))
    n = sv.maintenance_notice_issue(site=site, violation="Outlet blocked", corrective_work="Clear it",
                                    acting_user=personas["director"])
    assert n.case.clocks.get(kind="cure").state().due == date(2026, 7, 6)  # Jul 5 is a Sunday
    assert n.case.documents.get(tag="maintenance_notice").file.read().startswith(b"%PDF-")
    at(date(2026, 7, 6))
    with pytest.raises(TransitionError, match="run to 2026-07-06"):
        sv.maintenance_enforce(notice=n, acting_user=personas["director"])
    at(date(2026, 7, 7))
    sv.maintenance_enforce(notice=n, acting_user=personas["director"])
    n.case.refresh_from_db()
    assert n.case.status == "enforcement" and n.referred_on == date(2026, 7, 7)
    with pytest.raises(TransitionError):
        sv.maintenance_enforce(notice=n, acting_user=personas["director"])
    sv.maintenance_corrected(notice=n, on=date(2026, 7, 7), note="Verified clear", acting_user=personas["director"])
    n.case.refresh_from_db()
    assert n.case.status == "corrected" and n.case.closed_at is not None


def test_corrected_within_30_days_closes_the_notice(site, personas, at):
    at(date(2026, 6, 5))
    n = sv.maintenance_notice_issue(site=site, violation="Outlet blocked", corrective_work="Clear it",
                                    acting_user=personas["director"])
    at(date(2026, 6, 20))
    sv.maintenance_corrected(notice=n, on=date(2026, 6, 20), note="clear", acting_user=personas["director"])
    assert n.case.clocks.get(kind="cure").met_on == date(2026, 6, 20)


def test_ownership_change_and_amendment_signed_by_all(recorded, site, personas, at):
    at(date(2026, 8, 1))
    sv.ownership_change_record(site=site, role="owner", to_name="Elm Court Condominium Trust", notified_on=date(2026, 8, 1),
                               effective_on=date(2026, 7, 30), deed_reference="Book 25100 Page 3",
                               acting_user=personas["owner"])
    owners = site.parties.filter(role="owner")
    assert [(p.name, p.until) for p in owners] == [("Olivia Owner", date(2026, 7, 30)),
                                                  ("Elm Court Condominium Trust", None)]
    parties = sel.current_parties(site)
    some = [p for p in parties if p.role != "financial"]
    with pytest.raises(sv.StewardshipError, match=r"Not signed by: Olivia Owner \(responsible for financing"):
        sv.plan_amend(plan=recorded, description="Sweep quarterly, not monthly", signed_by=some,
                      director_agreed_on=date(2026, 8, 1), effective_on=date(2026, 8, 1), acting_user=personas["director"])
    with pytest.raises(sv.StewardshipError, match="mutual agreement"):
        sv.plan_amend(plan=recorded, description="x", signed_by=parties, director_agreed_on=None,
                      effective_on=date(2026, 8, 1), acting_user=personas["director"])
    a = sv.plan_amend(plan=recorded, description="Sweep quarterly, not monthly", signed_by=parties,
                      director_agreed_on=date(2026, 8, 1), effective_on=date(2026, 8, 1), acting_user=personas["director"])
    assert a.signed_by.count() == len(parties)


def test_uky_inventory_import_maps_types_to_region_1_categories(personas, at, town_toml):
    at(date(2026, 5, 1))
    town_toml(**UKY_EXTENT)
    site = sv.site_open(name="UKY campus (sample)", acting_user=personas["staff"])
    imp = sv.inventory_import(site=site, folder=need_uky(), acting_user=personas["staff"])
    assert imp.counts["bmps"] == 160 == Bmp.objects.filter(site=site).count()
    cats = imp.counts["bmps_by_category"]
    assert cats["bioretention_basin"] == 17          # 12 bioretention + 5 rain gardens
    assert cats["porous_pavement_w_underdrain"] == 27
    assert cats["extended_dry_detention_basin"] == 23
    assert cats["infiltration_chamber"] == 4 and cats["grass_swale_w_detention"] == 1
    assert cats["(none)"] == 160 - 17 - 27 - 23 - 4 - 1
    assert imp.counts["structures"]["catch_basin"] == 1842 and imp.counts["structures"]["outfall"] == 5
    assert imp.counts["lines"]["Pipe"]["count"] == 4929
    assert {s["name"] for s in imp.counts["subwatersheds"]} >= {"TWNB", "WRPA", "HICKTC"}
    # every assigned category is one the engineering core has a curve for
    from stormwater.engineering.water_quality import rberost_provisional_table

    known = {bmp for bmp, _ in rberost_provisional_table().curves}
    assert set(Bmp.objects.exclude(region1_category="").values_list("region1_category", flat=True)) <= known
    rows = {r.measure: r.count for r in ms4_counts(2026)}
    assert rows["BMPs in the inventory at year end"] == 160 and rows["BMPs added during the year"] == 160
    csv = ms4_csv(2026)
    assert csv.splitlines()[0] == "permit_year,from,to,program,measure,count,source"
    assert "2025-2026,2025-07-01,2026-06-30" in csv


def test_annual_certifications_count_in_the_permit_year_received(recorded, site, personas, at):
    at(date(2027, 7, 1))
    sv.certification_file(site=site, received_on=date(2027, 7, 1), work_summary="x", signed_by="y",
                          acting_user=personas["owner"])
    assert {r.measure: r.count for r in ms4_counts(2028)}["— of which late"] == 1
    assert {r.measure: r.count for r in ms4_counts(2027)}["Annual O&M certifications received"] == 0
    assert AnnualCertification.objects.get().late


# --- dates an owner files are the server's (issue 14: an owner backdated an annual certification) --------------------

def test_an_owner_cannot_backdate_an_annual_certification(recorded, site, personas, at, client_for):
    at(date(2027, 5, 18))  # year 1 was due Mon 2027-05-17
    c = client_for(personas["owner"])
    page = c.get(f"/stewardship/{site.case.number}/").content.decode()
    assert 'name="received_on"' not in page  # the owner's form has no date to fill in
    r = c.post(f"/stewardship/{site.case.number}/certifications/", {
        "received_on": "2027-05-17", "work_summary": "Cleaned twice", "signed_by": "Olivia Owner"})
    assert r.status_code == 302
    cert = AnnualCertification.objects.get()
    assert cert.received_on == date(2027, 5, 18) and cert.late
    assert site.case.events.get(kind="certification").on == date(2027, 5, 18)


def test_staff_record_a_paper_certification_on_the_day_it_arrived(recorded, site, personas, at, client_for):
    at(date(2027, 5, 18))
    page = client_for(personas["staff"]).get(f"/stewardship/{site.case.number}/").content.decode()
    assert 'name="received_on"' in page
    cert = sv.certification_file(site=site, received_on=date(2027, 5, 17), work_summary="Mailed in",
                                 signed_by="Olivia Owner", acting_user=personas["staff"])
    assert cert.received_on == date(2027, 5, 17) and not cert.late
    with pytest.raises(sv.StewardshipError, match="future"):
        sv.certification_file(site=site, received_on=date(2028, 5, 19), work_summary="x", signed_by="y",
                              acting_user=personas["staff"])


def test_an_owner_cannot_backdate_an_ownership_notice(recorded, site, personas, at, client_for):
    at(date(2026, 8, 20))
    r = client_for(personas["owner"]).post(f"/stewardship/{site.case.number}/ownership/", {
        "role": "owner", "to_name": "Elm Court Condominium Trust", "notified_on": "2026-08-01",
        "effective_on": "2026-07-30"})
    assert r.status_code == 302
    ch = site.ownership_changes.get()
    assert ch.notified_on == date(2026, 8, 20) and ch.effective_on == date(2026, 7, 30)
