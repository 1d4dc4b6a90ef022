"""Every refusal of construction oversight, each naming what is missing and its Ch. 380 provision, with the
state unchanged after it."""
from datetime import date
from decimal import Decimal as D

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from stormwater.cases.services import TransitionError
from stormwater.construction import services as cs
from stormwater.construction.models import Inspection, SuretyEntry
from stormwater.stewardship import services as ss

from .conftest import dt, pdf_upload, report
from .images import png_bytes


def _post_surety(project, user, amount="125000"):
    return cs.surety_post(project=project, form="loc", amount=D(amount), estimated_cost=D("120000"),
                          prevailing_wage_included=True, counsel_approved_on=date(2026, 4, 14),
                          finance_approved_on=date(2026, 4, 14), posted_on=date(2026, 4, 14), acting_user=user)


@pytest.fixture
def active(project, personas, at):
    """Started 2026-04-22 with surety $125,000 (estimate $120,000) and the pre-start ESC inspection."""
    at(date(2026, 4, 20))
    _post_surety(project, personas["collector"])
    cs.preconstruction_meeting_record(project=project, held_on=date(2026, 4, 20), attendees="all",
                                      acting_user=personas["director"])
    cs.plan_on_site_confirm(project=project, on=date(2026, 4, 20), acting_user=personas["inspector"])
    at(date(2026, 4, 21), 11)
    cs.inspection_report_file(project=project, report=report("erosion_pre_start", dt(2026, 4, 21, 10)),
                              acting_user=personas["inspector"])
    at(date(2026, 4, 22))
    cs.construction_start(project=project, on=date(2026, 4, 22), acting_user=personas["director"])
    return project


def test_oversight_needs_an_approved_permit(approved, personas, at):
    from stormwater.construction.services import project_open

    at(date(2026, 4, 13))
    project_open(permit=approved, acting_user=personas["director"])
    with pytest.raises(cs.ConstructionError, match="already has its construction file"):
        project_open(permit=approved, acting_user=personas["director"])


def test_not_approved_permit_is_refused(town, personas, at):
    from decimal import Decimal

    from stormwater.parcels.models import Owner
    from stormwater.permits.services import permit_application_start
    from stormwater.rules.applicability import determine

    at(date(2026, 3, 2))
    owner = Owner.objects.get(user=personas["owner"])
    draft = permit_application_start(acting_user=personas["owner"], owner=owner, owner_name=owner.name,
                                     site_address="1 Elm St", parcels=[town["house"]], description="x",
                                     disturbance_sqft=Decimal(87120),
                                     determination=determine(disturbance_sqft=Decimal(87120), on=date(2026, 3, 2)))
    with pytest.raises(cs.ConstructionError, match=r"approved permit \(§ 380-10 I\(1\)"):
        cs.project_open(permit=draft, acting_user=personas["director"])


def test_a_report_missing_a_field_is_refused_with_the_field_named(active, personas, at):
    at(date(2026, 4, 28), 12)
    n = Inspection.objects.count()
    for field, words in (("weather", "[e] weather"), ("inspector_credentials", "[b] inspector's credentials"),
                         ("location", "[a] the location")):
        with pytest.raises(cs.ConstructionError, match=f"missing: .*{words.replace('[', '.').replace(']', '.')}"):
            cs.inspection_report_file(project=active, report=report("erosion_routine", dt(2026, 4, 28, 9),
                                                                    **{field: ""}),
                                      acting_user=personas["inspector"])
    with pytest.raises(cs.ConstructionError, match=r"\[f\] accumulated precipitation"):
        cs.inspection_report_file(project=active, report=report("erosion_routine", dt(2026, 4, 28, 9),
                                                                precipitation_24h_in=None),
                                  acting_user=personas["inspector"])
    with pytest.raises(cs.ConstructionError, match=r"\[d\] date of last inspection"):
        cs.inspection_report_file(project=active, report=report("erosion_routine", dt(2026, 4, 28, 9),
                                                                last_inspection=None),
                                  acting_user=personas["inspector"])
    assert Inspection.objects.count() == n


def test_engineer_inspections_need_24_hours_notice_at_the_edge(active, personas, at):
    eng = personas["consultant"]
    pre = dict(inspector_name="Dana Engineer", inspector_credentials="MA PE 45678", structures="DMH-1")
    at(date(2026, 5, 11), 10, 1)
    with pytest.raises(cs.ConstructionError, match="no notice"):
        cs.inspection_report_file(project=active, report=report("pre_bury", dt(2026, 5, 12, 10), **pre),
                                  acting_user=eng)
    cs.inspection_notice_give(project=active, kind="pre_bury", scheduled_at=dt(2026, 5, 12, 10), acting_user=eng)
    at(date(2026, 5, 12), 11)
    with pytest.raises(cs.ConstructionError, match=r"23\.98 hours|24 hours are required"):
        cs.inspection_report_file(project=active, report=report("pre_bury", dt(2026, 5, 12, 10), **pre),
                                  acting_user=eng)
    at(date(2026, 5, 12), 10, 0)
    cs.inspection_notice_give(project=active, kind="pre_bury", scheduled_at=dt(2026, 5, 13, 10), acting_user=eng)
    at(date(2026, 5, 13), 11)
    cs.inspection_report_file(project=active, report=report("pre_bury", dt(2026, 5, 13, 10), **pre), acting_user=eng)
    with pytest.raises(cs.ConstructionError, match="structures inspected before backfilling"):
        cs.inspection_notice_give(project=active, kind="pre_bury", scheduled_at=dt(2026, 5, 14, 12), acting_user=eng)
        at(date(2026, 5, 14), 13)
        cs.inspection_report_file(project=active, report=report("pre_bury", dt(2026, 5, 14, 12), **{**pre,
                                                                                                  "structures": ""}),
                                  acting_user=eng)


def test_who_files_what(active, personas, at):
    at(date(2026, 4, 28), 12)
    with pytest.raises(cs.ConstructionError, match="Random inspections are the Director's"):
        cs.inspection_report_file(project=active, report=report("random", dt(2026, 4, 28, 9)),
                                  acting_user=personas["consultant"])
    with pytest.raises(cs.ConstructionError, match="design engineer"):
        cs.inspection_report_file(project=active, report=report("walk_through", dt(2026, 4, 28, 9)),
                                  acting_user=personas["outsider"])
    cs.inspection_report_file(project=active, report=report("random", dt(2026, 4, 28, 9)),
                              acting_user=personas["staff"])


def test_final_inspection_needs_the_video_the_storm_and_the_walk_through(active, personas, at):
    eng = personas["consultant"]
    at(date(2026, 9, 1), 9)
    cs.inspection_notice_give(project=active, kind="final", scheduled_at=dt(2026, 9, 2, 10), acting_user=eng)
    at(date(2026, 9, 2), 12)
    base = dict(inspector_name="Dana Engineer", inspector_credentials="MA PE 45678", last_inspection=date(2026, 8, 1))
    with pytest.raises(cs.ConstructionError, match="dated video"):
        cs.inspection_report_file(project=active, report=report("final", dt(2026, 9, 2, 10), **base), acting_user=eng)
    with pytest.raises(cs.ConstructionError, match="actual storm"):
        cs.inspection_report_file(project=active, report=report(
            "final", dt(2026, 9, 2, 10), video_recorded_on=date(2026, 9, 1), video_reference="CCTV-1", **base),
            acting_user=eng)
    with pytest.raises(cs.ConstructionError, match="walk-through"):
        cs.inspection_report_file(project=active, report=report(
            "final", dt(2026, 9, 2, 10), video_recorded_on=date(2026, 9, 1), video_reference="CCTV-1",
            storm_evaluated_on=date(2026, 8, 30), storm_evaluation_rain_in=D("0.5"), **base), acting_user=eng)


def test_start_refused_naming_each_missing_precondition(project, personas, at):
    at(date(2026, 4, 14))
    with pytest.raises(TransitionError, match=r"§ 380-16 A.*§ 380-16 B.*§ 380-17 A.*§ 380-16 C\(4\)\(b\)\[1\]"):
        cs.construction_start(project=project, on=date(2026, 4, 14), acting_user=personas["director"])
    project.case.refresh_from_db()
    assert project.case.status == "preconstruction"


def test_surety_refusals(project, personas, at):
    at(date(2026, 4, 14))
    c = personas["collector"]
    with pytest.raises(cs.ConstructionError, match="Town Counsel and the Finance"):
        cs.surety_post(project=project, form="cash", amount=D("120000"), estimated_cost=D("120000"),
                       prevailing_wage_included=True, counsel_approved_on=None, finance_approved_on=date(2026, 4, 14),
                       posted_on=date(2026, 4, 14), acting_user=c)
    s = cs.surety_post(project=project, form="cash", amount=D("120000.00"), estimated_cost=D("120000.00"),
                       prevailing_wage_included=True, counsel_approved_on=date(2026, 4, 14),
                       finance_approved_on=date(2026, 4, 14), posted_on=date(2026, 4, 14), acting_user=c)
    assert s.amount == s.estimated_cost  # "not less than": equal is enough
    with pytest.raises(cs.ConstructionError, match="already been posted"):
        _post_surety(project, c)


def test_full_release_before_the_certificate_is_refused_and_partial_needs_compliance(active, personas, at):
    d = personas["director"]
    at(date(2026, 6, 1))
    with pytest.raises(cs.ConstructionError, match="name the phase"):
        cs.surety_release(project=active, amount=D("1000"), on=date(2026, 6, 1), acting_user=d)
    with pytest.raises(cs.ConstructionError, match="more than the security still held"):
        cs.surety_release(project=active, amount=D("125000.01"), phase="all", on=date(2026, 6, 1), acting_user=d)
    with pytest.raises(cs.ConstructionError, match="may not be fully released.*final O&M plan.*as-built.*final "
                                                   "inspection report.*certificate of completion"):
        cs.surety_release(project=active, amount=D("125000"), phase="all", on=date(2026, 6, 1), acting_user=d)
    v = cs.violation_notice_issue(project=active, description="Inlet protection missing", corrective_actions="Install",
                                  correct_by=date(2026, 6, 5), acting_user=d)
    with pytest.raises(cs.ConstructionError, match=f"violations are unresolved: V{v.pk}"):
        cs.surety_release(project=active, amount=D("1000"), phase="Phase 1", on=date(2026, 6, 1), acting_user=d)
    # releases in parts that add up to the whole: the last part is a full release and is refused too
    cs.violation_corrected(violation=v, on=date(2026, 6, 1), note="done", acting_user=personas["owner"])
    cs.violation_approve(violation=v, on=date(2026, 6, 1), acting_user=d)
    cs.surety_release(project=active, amount=D("124999.99"), phase="Phase 1", on=date(2026, 6, 1), acting_user=d)
    with pytest.raises(cs.ConstructionError, match="may not be fully released"):
        cs.surety_release(project=active, amount=D("0.01"), phase="Phase 2", on=date(2026, 6, 1), acting_user=d)
    assert SuretyEntry.objects.count() == 1


def test_forfeiture_only_after_the_permittee_fails_to_correct(active, personas, at):
    d = personas["director"]
    at(date(2026, 6, 1))
    v = cs.violation_notice_issue(project=active, description="Basin outlet eroding", corrective_actions="Riprap apron",
                                  correct_by=date(2026, 6, 10), acting_user=d)
    with pytest.raises(cs.ConstructionError, match="may still be corrected until 2026-06-10"):
        cs.surety_forfeit(project=active, violation=v, amount=D("8000"), on=date(2026, 6, 10), reason="x",
                          acting_user=d)
    at(date(2026, 6, 11))
    e = cs.surety_forfeit(project=active, violation=v, amount=D("8000"), on=date(2026, 6, 11),
                          reason="Town contractor installs the apron", acting_user=d)
    assert e.kind == "forfeiture" and cs.surety_held(active.surety) == D("117000")


def test_stop_work_lift_refused_before_correction_and_approval(active, personas, at):
    d = personas["director"]
    at(date(2026, 5, 1))
    with pytest.raises(cs.ConstructionError, match="name at least one unresolved violation"):
        cs.stop_work_issue(project=active, violations=[], reason="x", acting_user=d)
    v1 = cs.violation_notice_issue(project=active, description="Fence down", corrective_actions="Restake",
                                   correct_by=date(2026, 5, 3), acting_user=d)
    v2 = cs.violation_notice_issue(project=active, description="Tracking onto Elm St", corrective_actions="Sweep",
                                   correct_by=date(2026, 5, 3), acting_user=d)
    cs.stop_work_issue(project=active, violations=[v1], reason="Sediment at the brook", acting_user=d)
    cs.violation_corrected(violation=v1, on=date(2026, 5, 1), note="restaked", acting_user=personas["owner"])
    cs.violation_approve(violation=v1, on=date(2026, 5, 1), acting_user=d)
    # another violation is still open: "until any violations are corrected"
    with pytest.raises(cs.ConstructionError, match=f"V{v2.pk}.*not corrected"):
        cs.stop_work_lift(project=active, work_approved_note="ok", acting_user=d)
    with pytest.raises(cs.ConstructionError, match="not been reported corrected"):
        cs.violation_approve(violation=v2, on=date(2026, 5, 1), acting_user=d)
    cs.violation_corrected(violation=v2, on=date(2026, 5, 1), note="swept", acting_user=personas["owner"])
    cs.violation_approve(violation=v2, on=date(2026, 5, 1), acting_user=d)
    with pytest.raises(cs.ConstructionError, match="approval of the work previously completed"):
        cs.stop_work_lift(project=active, work_approved_note=" ", acting_user=d)
    cs.stop_work_lift(project=active, work_approved_note="All work approved", acting_user=d)
    active.case.refresh_from_db()
    assert active.case.status == "active"
    with pytest.raises(cs.ConstructionError, match="no stop-work order in force"):
        cs.stop_work_lift(project=active, work_approved_note="x", acting_user=d)


def test_escalation_to_enforcement_needs_an_unresolved_violation(active, personas, at):
    d = personas["director"]
    at(date(2026, 5, 1))
    with pytest.raises(cs.ConstructionError, match="no unresolved violation"):
        cs.enforcement_refer(project=active, reason="x", acting_user=d)
    v = cs.violation_notice_issue(project=active, description="Fence down", corrective_actions="Restake",
                                  correct_by=date(2026, 5, 3), acting_user=d)
    at(date(2026, 5, 6))
    ref = cs.enforcement_refer(project=active, reason="Not corrected by May 3", acting_user=d)
    assert ref.document.file.read().startswith(b"%PDF-")
    with pytest.raises(TransitionError):
        cs.enforcement_resolve(project=active, resolution="x", acting_user=d)
    cs.violation_corrected(violation=v, on=date(2026, 5, 6), note="done", acting_user=personas["owner"])
    cs.violation_approve(violation=v, on=date(2026, 5, 6), acting_user=d)
    cs.enforcement_resolve(project=active, resolution="Corrected", acting_user=d)
    active.case.refresh_from_db()
    assert active.case.status == "active"


def test_as_built_refusals(active, personas, at):
    at(date(2026, 9, 1))
    png = SimpleUploadedFile("asbuilt.png", png_bytes(), content_type="image/png")  # a real image, not a PDF
    kw = dict(pe_name="Dana Engineer", pe_license="45678", certified_on=date(2026, 9, 1),
              paper_copy_received_on=date(2026, 9, 1), full_size=True, final_grades=True, deviations="none",
              acting_user=personas["consultant"])
    with pytest.raises(cs.ConstructionError, match="PDF format"):
        cs.as_built_submit(project=active, upload=png, **kw)
    with pytest.raises(cs.ConstructionError, match="paper copy.*full-size plans.*final grades.*deviations"):
        cs.as_built_submit(project=active, upload=pdf_upload(), **{**kw, "paper_copy_received_on": None,
                                                                   "full_size": False, "final_grades": False,
                                                                   "deviations": ""})


def test_certificate_refused_naming_each_missing_piece_one_by_one(active, personas, at):
    d = personas["director"]
    at(date(2026, 9, 1))
    site = active.permit.stewardship_sites.get()

    def missing():
        with pytest.raises(TransitionError) as e:
            cs.certificate_issue(project=active, acting_user=d)
        return str(e.value)

    m = missing()
    for words in ("final O&M plan recorded", "as-built drawings", "final inspection report",
                  "easements: none entered"):
        assert words in m
    ss.easements_not_required(site=site, reason="All BMPs on the owner's lot; access by the O&M agreement",
                              acting_user=d)
    assert "easements" not in missing()
    ab = cs.as_built_submit(project=active, upload=pdf_upload(), pe_name="Dana Engineer", pe_license="45678",
                            certified_on=date(2026, 9, 1), paper_copy_received_on=date(2026, 9, 1), full_size=True,
                            final_grades=True, deviations="none", acting_user=personas["consultant"])
    assert "as-built drawings" in missing()  # submitted but not accepted
    cs.as_built_accept(as_built=ab, on=date(2026, 9, 1), acting_user=d)
    assert "as-built" not in missing()
    plan = ss.om_plan_submit(site=site, items={i: "p" for i in __import__(
        "stormwater.stewardship.contents", fromlist=["BY_KEY"]).BY_KEY}, final=True, acting_user=personas["owner"])
    assert "final O&M plan recorded" in missing()  # final but not recorded
    ss.om_plan_record(plan=plan, recorded_on=date(2026, 9, 1), book="1", page="2", proof_upload=pdf_upload(),
                      acting_user=d)
    assert missing().count("Missing:") == 1 and "final inspection report" in missing()
    active.case.refresh_from_db()
    assert active.case.status == "active" and active.certificate_on is None


def test_stabilization_deadline_edges(active, personas, at):
    from stormwater.construction.selectors import areas

    a = cs.area_add(project=active, name="Stockpile", acting_user=personas["inspector"])
    cs.area_ceased(area=a, on=date(2026, 7, 28), acting_user=personas["inspector"])
    assert [(v.due, v.overdue) for v in areas(active, today=date(2026, 8, 4))] == [(date(2026, 8, 4), False)]
    assert areas(active, today=date(2026, 8, 5))[0].overdue
    cs.area_stabilized(area=a, on=date(2026, 8, 5), acting_user=personas["inspector"])
    assert not areas(active, today=date(2026, 8, 6))[0].overdue
    with pytest.raises(cs.ConstructionError, match="already stabilized"):
        cs.area_stabilized(area=a, on=date(2026, 8, 6), acting_user=personas["inspector"])


def test_inspection_notice_must_be_in_the_future(active, personas, at):
    at(date(2026, 5, 1), 12)
    with pytest.raises(cs.ConstructionError, match="future"):
        cs.inspection_notice_give(project=active, kind="pre_bury", scheduled_at=dt(2026, 5, 1, 11),
                                  acting_user=personas["consultant"])


def test_the_design_engineer_cannot_backdate_the_paper_copy(active, personas, at):
    """Issue 14: dates a filer gives are the server's; the DPW records when a paper copy really arrived."""
    at(date(2026, 9, 10))
    ab = cs.as_built_submit(project=active, upload=pdf_upload(), pe_name="Dana Engineer", pe_license="45678",
                            certified_on=date(2026, 9, 1), paper_copy_received_on=date(2026, 9, 1), full_size=True,
                            final_grades=True, deviations="none", acting_user=personas["consultant"])
    assert ab.paper_copy_received_on == date(2026, 9, 10) and ab.certified_on == date(2026, 9, 1)
    ab2 = cs.as_built_submit(project=active, upload=pdf_upload(), pe_name="Dana Engineer", pe_license="45678",
                             certified_on=date(2026, 9, 1), paper_copy_received_on=date(2026, 9, 2), full_size=True,
                             final_grades=True, deviations="none", acting_user=personas["director"])
    assert ab2.paper_copy_received_on == date(2026, 9, 2)
