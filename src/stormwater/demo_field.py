"""The demo town's field records (issue 16): a permitted project under construction with its oversight file,
its stewardship site (O&M plan recorded, BMPs on the map, a notice to correct), a pre-application meeting, and
an abatement on a paid bill — so that every kind of record page has something to show, on the town map too.

Everything goes through the services, dated relative to today (like the rest of the demo), and uses one of the
GIS stand-in parcels (with a polygon) so that the maps have a place to draw."""
from __future__ import annotations

from datetime import datetime, time, timedelta
from decimal import Decimal

from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

PDF = b"%PDF-1.4\n% demo document\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"


def _pdf(name: str) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, PDF, "application/pdf")


def _at(day, hour: int) -> datetime:
    return timezone.make_aware(datetime.combine(day, time(hour, 0)))


def _field_day():
    """The day the demo's field records are dated: today once its 8–10 AM inspections have happened, else
    yesterday (an inspection report is of an inspection made: none may be dated later than now, issue 18)."""
    now = timezone.localtime()
    return now.date() if now.hour >= 11 else now.date() - timedelta(days=1)


def demo_field(users) -> dict:
    """Called by ``demo.demo_load`` after the permits and relief demo records; returns what it made."""
    out = {}
    out.update(_construction(users))
    out.update(_abatement(users))
    out.update(_meeting(users))
    return out


def _review_every_item(app, staff):
    """The reviewer's checklists, every item found provided: an approval passes the one gate (issue 30,
    ``permits.approval``)."""
    from stormwater.workbench import catalog
    from stormwater.workbench.services import item_findings_record

    item_findings_record(application=app, acting_user=staff,
                         findings=[{"para": e.para, "finding": "provided"} for e in catalog.ITEMS])


def _approved_permit(users, parcel):
    from stormwater.permits.checklist import ITEMS
    from stormwater.permits.services import (abutters_mailed, abutters_set, checklist_confirm,
                                             permit_application_start, permit_decide, permit_determine_complete,
                                             permit_document_upload, permit_fees_paid, permit_file)

    staff = users["staff"]
    today = _field_day()
    app = permit_application_start(
        acting_user=staff, owner=parcel.owner, owner_name=parcel.owner.name if parcel.owner else "Demo owner",
        site_address=parcel.address, description="Four townhouses with a shared driveway and an infiltration basin",
        disturbance_sqft=Decimal("52000"), parcels=[parcel], agent_name="Pioneer Valley Site Design (agent)")
    for item in ITEMS:
        if item.by_upload and item.key != "autocad":
            permit_document_upload(application=app, upload=_pdf(f"{item.key}.pdf"), tag=item.key, acting_user=staff)
    abutters_set(application=app, text="R. and S. Kowalski\n14 Oak Rd\nLongmeadow, MA 01106", certified_on=today,
                 acting_user=staff)
    abutters_mailed(application=app, mailed_on=today, acting_user=staff)
    checklist_confirm(application=app, key="paper_copies", acting_user=staff)
    permit_fees_paid(application=app, paid_on=today, receipt="DPW-4502", acting_user=staff)
    permit_file(application=app, acting_user=staff, on=today)
    permit_determine_complete(application=app, acting_user=staff, on=today)
    _review_every_item(app, staff)
    permit_decide(application=app, kind="approve_conditions", findings="The plan meets the § 380-11 standards.",
                  standards=["380-11B", "380-11D"], conditions=["Silt fence and inlet protection before clearing"],
                  acting_user=users["director"], on=today)
    app.refresh_from_db()
    return app


def _construction(users) -> dict:
    from stormwater.construction import services as cs
    from stormwater.parcels.models import Parcel
    from stormwater.stewardship import services as ss
    from stormwater.stewardship.contents import OM_ITEMS

    parcel = (Parcel.objects.filter(shapes__isnull=False, owner__isnull=False).order_by("parcel_id").first()
              or Parcel.objects.filter(owner__isnull=False).order_by("parcel_id").first())
    if parcel is None:
        return {}
    app = _approved_permit(users, parcel)
    today = _field_day()
    director, inspector = users["director"], users["inspector"]
    p = cs.project_open(permit=app, acting_user=director, design_engineer=users["consultant"],
                        design_engineer_name="Casey Lund", design_engineer_pe="MA PE 51234", esc_inspector=inspector,
                        esc_inspector_name="Ivan Petrov", esc_inspector_credentials="CPESC #2231",
                        frequency="14day_storm")
    cs.surety_post(project=p, form="bond", amount=Decimal("64000"), estimated_cost=Decimal("61500"),
                   prevailing_wage_included=True, counsel_approved_on=today, finance_approved_on=today,
                   posted_on=today, issuer="Commonwealth Surety Co.", reference="B-77120", acting_user=users["collector"])
    cs.preconstruction_meeting_record(project=p, held_on=today, attendees="Owner, design engineer, general contractor",
                                      acting_user=director)
    cs.plan_on_site_confirm(project=p, on=today, acting_user=inspector)
    rep = dict(location=f"{parcel.address}, whole site", inspector_name="Ivan Petrov",
               inspector_credentials="CPESC #2231", weather="Overcast, 48 °F")
    cs.inspection_report_file(project=p, report=cs.ReportInput(
        kind="erosion_pre_start", inspected_at=_at(today, 8), last_inspection="none",
        precipitation_24h_in=Decimal("0"), evaluation="compliant", **rep), acting_user=inspector)
    cs.construction_start(project=p, on=today, acting_user=director)
    fence = cs.site_control_add(project=p, kind="perimeter", name="Silt fence along the east swale",
                                acting_user=inspector)
    inlet = cs.site_control_add(project=p, kind="inlet", name="Inlet protection at the street catch basin",
                                acting_user=inspector)
    storm = cs.rain_event_record(project=p, ended_at=_at(today, 9), rain_in=Decimal("0.41"), source="DPW rain gauge",
                                 acting_user=users["staff"])
    insp = cs.inspection_report_file(project=p, report=cs.ReportInput(
        kind="erosion_storm", inspected_at=_at(today, 10), last_inspection=today,
        precipitation_24h_in=Decimal("0.41"), storm_id=storm.pk, evaluation="violations",
        findings="Silt fence undermined along the east swale", corrective_steps="Re-trench and restake the fence",
        rows=(cs.RowInput(control_id=fence.pk, condition="failed", note="Undermined over 20 ft; sediment in the swale"),
              cs.RowInput(control_id=inlet.pk, condition="needs_maintenance",
                          note="Sediment piled against the filter sock")),
        **rep), acting_user=inspector)
    rows = {r.control_id: r for r in insp.rows.all()}
    # The notice from the failed row, its re-inspection today + 3 days at 9:00 (issue 30: the demo inspector's week
    # list is not empty), and a corrective action from the row needing maintenance, due today (the Today page).
    cs.violation_from_row(row=rows[fence.pk], corrective_actions="Re-trench and restake the silt fence; remove the "
                          "sediment", correct_by=today + timedelta(days=3), acting_user=director,
                          reinspect_at=_at(timezone.localdate() + timedelta(days=3), 9))
    cs.corrective_action_from_row(row=rows[inlet.pk], corrective_actions="Clean out the sediment at the inlet",
                                  correct_by=timezone.localdate(), acting_user=inspector)
    area = cs.area_add(project=p, name="Lots 1–2 rough grading", acting_user=inspector)
    cs.area_ceased(area=area, on=today, acting_user=inspector)

    site = app.stewardship_sites.order_by("id").first()  # opened with the construction file
    out = {"construction": p.case.number}
    if site is not None:
        site.parcels.add(parcel)
        ss.party_add(site=site, role="owner", name=parcel.owner.name, since=today, acting_user=users["staff"])
        plan = ss.om_plan_submit(site=site, items={i.key: f"§{n + 1}" for n, i in enumerate(OM_ITEMS)}, final=True,
                                 upload=_pdf("om-plan.pdf"), acting_user=users["staff"])
        ss.om_plan_record(plan=plan, recorded_on=today, book="25114", page="212", proof_upload=_pdf("recording.pdf"),
                          acting_user=users["staff"])
        lat, lon = _centroid(parcel)
        for i, (name, kind, cat) in enumerate((("Infiltration basin IB-1", "Infiltration Basin", ""),
                                               ("Deep sump catch basin CB-1", "Deep Sump Catch Basin", ""),
                                               ("Rain garden RG-1", "Bioretention", ""))):
            ss.bmp_add(site=site, name=name, source_type=kind, region1_category=cat, acting_user=users["staff"],
                       latitude=lat + 0.00006 * (i - 1) if lat is not None else None,
                       longitude=lon + 0.00008 * (i - 1) if lon is not None else None,
                       drainage_area_acres=Decimal("0.6"), treats="Driveway and roof runoff")
        bmp = site.bmps.order_by("pk").first()
        ss.maintenance_notice_issue(site=site, bmp=bmp, violation="Sediment over the basin's forebay",
                                    corrective_work="Remove the sediment and restore the forebay", acting_user=director)
        out["stewardship"] = site.case.number
    return out


def _centroid(parcel) -> tuple[float | None, float | None]:
    """The parcel's centroid in degrees (WGS 84) from its newest polygon, or (None, None)."""
    shape = parcel.shapes.order_by("-survey__surveyed_on", "-pk").first() if hasattr(parcel, "shapes") else None
    if shape is None:
        return None, None
    from pyproj import Transformer
    from shapely import wkb

    c = wkb.loads(bytes(shape.geom_wkb)).centroid
    lon, lat = Transformer.from_crs("EPSG:2249", "EPSG:4326", always_xy=True).transform(c.x, c.y)
    return lat, lon


def _abatement(users) -> dict:
    """An abatement application on a paid bill, filed on paper 29 days after the bill's issue (within its 30 days,
    billing ¶E) and recorded by staff: the first bill, in number order, that the ledger shows paid by then."""
    from stormwater.relief.services import ReliefError, abatement_apply
    from stormwater.utility.models import Bill

    for bill in Bill.objects.filter(parcel__owner__isnull=False).order_by("number")[:40]:
        try:
            ab = abatement_apply(bill=bill, grounds=["area"], amount_requested=Decimal("10.00"), disposition="credit",
                                 statement="The shed counted as impervious area was removed in 2025.",
                                 acting_user=users["staff"], on=bill.issue_date + timedelta(days=29))
        except ReliefError:
            continue
        return {"abatement": ab.case.number}
    return {}


def _meeting(users) -> dict:
    """A pre-application meeting on the reviewer's calendar next week (Ch. 380 § 380-10 A)."""
    from stormwater.workbench.services import meeting_schedule

    when = _at(timezone.localdate() + timedelta(days=7), 10)
    m = meeting_schedule(applicant_name="Maple Realty Trust", site_address="12 Maple Rd", scheduled_at=when,
                         acting_user=users["staff"], concept="Six-lot subdivision off Maple Rd")
    return {"meeting": m.pk}
