"""State changes of stewardship (Ch. 380 § 380-14), each atomic, audited and on the site's case timeline.
Refusals raise ``StewardshipError`` (a ValueError) or ``TransitionError`` naming what is missing and
the rule; email goes out only after commit and only where an address is configured.
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path

from django.db import transaction
from django.utils import timezone

from stormwater.accounts.roles import Perm
from stormwater.audit.services import audit_record
from stormwater.cases.filing import after_today, filed_on
from stormwater.cases.services import (TransitionError, case_document_add, case_document_generate, case_open,
                                       case_transition, clock_start, event_record)
from stormwater.cases.selectors import case_clock
from stormwater.utility.documents import render_pdf
from stormwater.formats import day as show_day

from . import workflow as wf
from .contents import missing_items
from .inventory import normalise_source_id, read_inventory
from .models import (REGISTRY, AnnualCertification, Bmp, CertificationReminder, Easement, InventoryImport,
                     MaintenanceKind, MaintenanceLog, MaintenanceNotice, OMPlan, OwnershipChange, PartyRole,
                     PlanAmendment, ResponsibleParty, Site, Structure)
from .selectors import current_parties, final_plan_recorded, next_certification, responsible_emails

CURE_DAYS = 30  # § 380-14 E: satisfactory corrections within 30 days of the Director's notice


class StewardshipError(ValueError):
    """A refusal; ``field``, where given, is the posted input it concerns (issue 16 "Forms": the refused form
    marks that input, ``web.postdata.refused``)."""

    def __init__(self, message: str = "", field: str | None = None):
        super().__init__(message)
        self.field = field


ERR_PLAN_ITEMS = "The final O&M plan lacks required contents (§ 380-14 C): {items}."
ERR_PLAN_NOT_FINAL = "Only the final, executed O&M plan is recorded (§ 380-14 B)."
ERR_RECORDED_BEFORE_PERMIT = ("The O&M plan cannot have been recorded on {on:%Y-%m-%d}, before the permit was filed "
                              "({permit}, filed {filed:%Y-%m-%d}): check the registry's recording date (§ 380-14 B).")
ERR_RECORDING = ("Recording at the Hampden County Registry of Deeds needs the book and page or the document number, "
                 "the date recorded and the proof of recording (§ 380-14 B): missing {items}.")
ERR_EASEMENT_FIELDS = "An easement states its purpose, location and grantor (§ 380-14 D(2), C(2)(d), C(2)(m))."
ERR_LOG_DISPOSAL = ("A disposal entry records the type of material and the disposal location (§ 380-14 C(2)(j)).")
ERR_LOG_FIELDS = "A log entry needs its date, what was done and who did it (§ 380-14 C(2)(j))."
ERR_CERT_NO_PLAN = "Annual certifications follow a recorded final O&M plan (§ 380-14 B, C(2)(l)); none is recorded."
ERR_CERT_EARLY = ("The certification documents the work of the last 12 months (§ 380-14 C(2)(l)): year {seq} "
                  "({start} – {end}) may be certified from {opens}.")
ERR_CERT_FIELDS = "The annual certification needs the work done over the last 12 months and the signature: missing {items}."
ERR_CERT_FUTURE = "The date received must not be in the future."
ERR_OWNERSHIP_FUTURE = "The date notified must not be in the future."
ERR_ENFORCE_EARLY = ("The owner has 30 days after the Director's notice to correct (§ 380-14 E): they run to {due}. "
                     "Enforcement may follow only after that day.")
ERR_AMEND_SIGNATURES = ("An amendment must be in writing and signed by all responsible parties — owners, persons with "
                        "financial and operational responsibility, and easement grantors (§ 380-14 F(2)). Not signed by: "
                        "{names}.")
ERR_AMEND_DIRECTOR = "An amendment is made by mutual agreement with the DPW Director (§ 380-14 F(2)): record the agreement date."
ERR_OWNERSHIP_FIELDS = "Give the new party's name and the dates (§ 380-14 F(1))."
ERR_NO_EASEMENT_REASON = "Say why no stormwater management easement is necessary (§ 380-14 D(1), D(3))."


def _today() -> date:
    return timezone.localdate()


def _email_on_commit(*, subject: str, body: str, to: list[str], filename: str = "", pdf: bytes | None = None) -> None:
    if not to:
        return
    from stormwater.notices.services import notice_email  # recorded in NoticeSent, sent after commit

    notice_email(to=to, subject=subject, body=body, kind="stewardship_letter",
                 attachment=(filename, pdf, "application/pdf") if pdf is not None else None)


def _letter(site: Site, *, case=None, subject: str, paragraphs: list[str], on: date, citation: str,
            to_name: str = "", items: list[str] | None = None) -> bytes:
    return render_pdf("stewardship/pdf_letter.html", {
        "site": site, "case": case or site.case, "subject": subject, "paragraphs": paragraphs, "on": on,
        "citation": citation, "items": items or [],
        "to_name": to_name or ", ".join(p.name for p in current_parties(site) if p.role == PartyRole.OWNER)})


# --- sites and parties ----------------------------------------------------------------------------

@transaction.atomic
def site_open(*, name: str, acting_user, address: str = "", permit=None, owner_user=None, parcels=(),
              town_maintained: bool = False, on: date | None = None) -> Site:
    """A site and its case; ``on``: the day it was opened when not today (converted from the old office, issue 32)."""
    case = case_open(kind=wf.STEWARDSHIP, title=f"Stormwater system: {name}", acting_user=acting_user,
                     applicant=owner_user, parent=permit.case if permit is not None else None, on=on)
    site = Site.objects.create(case=case, name=name, address=address, permit=permit, owner_user=owner_user,
                               town_maintained=town_maintained)
    if parcels:
        site.parcels.set(parcels)
    audit_record(actor=acting_user, action="stewardship.site_open", obj=site, why=name)
    return site


@transaction.atomic
def party_add(*, site: Site, role: str, name: str, since: date, acting_user, address: str = "", email: str = "",
              user=None) -> ResponsibleParty:
    if not name.strip():
        raise StewardshipError("Give the party's name.", field="name")
    p = ResponsibleParty.objects.create(site=site, role=PartyRole(role), name=name.strip(), address=address,
                                        email=email, user=user, since=since)
    event_record(case=site.case, kind="party", acting_user=acting_user, on=since,
                 why=f"{p.get_role_display()}: {p.name}")
    return p


@transaction.atomic
def easements_not_required(*, site: Site, reason: str, acting_user) -> Site:
    if not reason.strip():
        raise StewardshipError(ERR_NO_EASEMENT_REASON, field="reason")
    site.easements_not_required_reason = reason.strip()
    site.easements_not_required_by, site.easements_not_required_on = acting_user, _today()
    site.save(update_fields=["easements_not_required_reason", "easements_not_required_by",
                             "easements_not_required_on"])
    event_record(case=site.case, kind="easement", acting_user=acting_user, why=f"No easement necessary: {reason}")
    audit_record(actor=acting_user, action="stewardship.no_easement", obj=site, why=reason)
    return site


# --- O&M plan --------------------------------------------------------------------------------------

@transaction.atomic
def om_plan_submit(*, site: Site, items: dict, final: bool, acting_user, upload=None,
                   annual_budget: Decimal | None = None) -> OMPlan:
    """A draft (§ 380-14 A(2)) or final executed O&M plan (§ 380-14 B). The final plan is refused unless
    every § 380-14 C content item is located in it (page or section), naming each one missing."""
    items = {k: str(v).strip() for k, v in (items or {}).items() if str(v or "").strip()}
    if final:
        missing = missing_items(items)
        if missing:
            raise StewardshipError(ERR_PLAN_ITEMS.format(items="; ".join(f"{i.label} ({i.citation})" for i in missing)),
                                   field=f"item_{missing[0].key}")
    version = (site.plans.order_by("-version").values_list("version", flat=True).first() or 0) + 1
    doc = case_document_add(case=site.case, upload=upload, tag="om_plan", title=f"O&M plan v{version}",
                            acting_user=acting_user) if upload is not None else None
    plan = OMPlan.objects.create(site=site, version=version, final=final, items=items, annual_budget=annual_budget,
                                 document=doc)
    event_record(case=site.case, kind="om_plan", acting_user=acting_user,
                 why=f"{'Final' if final else 'Draft'} O&M plan v{version} submitted")
    audit_record(actor=acting_user, action="stewardship.om_plan", obj=plan, data={"final": final})
    return plan


def _recording_missing(*, book: str, page: str, document_number: str, recorded_on,
                       proof_upload) -> list[tuple[str, str]]:
    """What a recording at the Registry of Deeds lacks (§ 380-14 B, D(4)), each with the posted input it is."""
    missing = []
    if not ((book.strip() and page.strip()) or document_number.strip()):
        missing.append(("book and page, or document number", "book" if not book.strip() else "page"))
    if recorded_on is None:
        missing.append(("the date recorded", "recorded_on"))
    if proof_upload is None:
        missing.append(("the proof of recording", "file"))
    return missing


@transaction.atomic
def om_plan_record(*, plan: OMPlan, recorded_on: date | None, acting_user, book: str = "", page: str = "",
                   document_number: str = "", proof_upload=None) -> OMPlan:
    """§ 380-14 B: the final O&M plan recorded at the Hampden County Registry of Deeds, proof filed with the
    Director. It binds all subsequent owners (§ 380-14 A(3)); annual certifications run from here."""
    plan = OMPlan.objects.select_for_update().select_related("site__case").get(pk=plan.pk)
    if not plan.final:
        raise StewardshipError(ERR_PLAN_NOT_FINAL)
    missing = _recording_missing(book=book, page=page, document_number=document_number, recorded_on=recorded_on,
                                 proof_upload=proof_upload)
    if missing:
        raise StewardshipError(ERR_RECORDING.format(items="; ".join(w for w, _ in missing)), field=missing[0][1])
    # Issue 18: the final plan is recorded after it is executed for the permitted project (§ 380-14 B), so not before
    # the permit application was filed, and not later than today.
    future = after_today(recorded_on, what="date the O&M plan was recorded")
    if future:
        raise StewardshipError(future, field="recorded_on")
    permit_filed = plan.site.permit.case.filed_on if plan.site.permit_id else None
    if permit_filed and recorded_on < permit_filed:
        raise StewardshipError(ERR_RECORDED_BEFORE_PERMIT.format(on=recorded_on, filed=permit_filed,
                                                                 permit=plan.site.permit.case.number),
                               field="recorded_on")
    proof = case_document_add(case=plan.site.case, upload=proof_upload, tag="om_recording",
                              title=f"Proof of recording, O&M plan v{plan.version}", acting_user=acting_user)
    plan.book, plan.page, plan.document_number = book.strip(), page.strip(), document_number.strip()
    plan.recorded_on, plan.proof_document, plan.registry = recorded_on, proof, REGISTRY
    plan.save(update_fields=["book", "page", "document_number", "recorded_on", "proof_document", "registry"])
    if plan.site.case.status == wf.SiteStatus.PENDING:
        case_transition(case=plan.site.case, to=wf.SiteStatus.IN_FORCE, acting_user=acting_user,
                        on=min(recorded_on, _today()), why=f"Final O&M plan recorded: {plan.recording}")
    else:
        event_record(case=plan.site.case, kind="om_plan", acting_user=acting_user, on=recorded_on,
                     why=f"O&M plan v{plan.version} recorded: {plan.recording}")
    audit_record(actor=acting_user, action="stewardship.om_record", obj=plan, why=plan.recording)
    return plan


# --- easements ------------------------------------------------------------------------------------

@transaction.atomic
def easement_add(*, site: Site, purpose: str, location: str, grantor: str, acting_user) -> Easement:
    if not (purpose and location.strip() and grantor.strip()):
        raise StewardshipError(ERR_EASEMENT_FIELDS, field="purpose" if not purpose else (
            "location" if not location.strip() else "grantor"))
    e = Easement.objects.create(site=site, purpose=purpose, location=location.strip(), grantor=grantor.strip())
    if not site.parties.filter(role=PartyRole.GRANTOR, name=e.grantor, until__isnull=True).exists():
        ResponsibleParty.objects.create(site=site, role=PartyRole.GRANTOR, name=e.grantor, since=_today())
    event_record(case=site.case, kind="easement", acting_user=acting_user,
                 why=f"Easement: {e.get_purpose_display()} — {e.location} (grantor {e.grantor})")
    return e


@transaction.atomic
def easement_record(*, easement: Easement, recorded_on: date | None, acting_user, book: str = "", page: str = "",
                    document_number: str = "", proof_upload=None) -> Easement:
    """§ 380-14 D(4): recorded with the Hampden County Registry of Deeds before the certificate of completion."""
    missing = _recording_missing(book=book, page=page, document_number=document_number, recorded_on=recorded_on,
                                 proof_upload=proof_upload)
    if missing:
        raise StewardshipError(ERR_RECORDING.format(items="; ".join(w for w, _ in missing)).replace(
            "(§ 380-14 B)", "(§ 380-14 D(4))"), field=missing[0][1])
    proof = case_document_add(case=easement.site.case, upload=proof_upload, tag="easement_recording",
                              title=f"Proof of recording, easement {easement.pk}", acting_user=acting_user)
    easement.book, easement.page, easement.document_number = book.strip(), page.strip(), document_number.strip()
    easement.recorded_on, easement.proof_document = recorded_on, proof
    easement.save(update_fields=["book", "page", "document_number", "recorded_on", "proof_document"])
    event_record(case=easement.site.case, kind="easement", acting_user=acting_user, on=recorded_on,
                 why=f"Easement recorded: {easement.location}")
    audit_record(actor=acting_user, action="stewardship.easement_record", obj=easement)
    return easement


# --- inventory and logs ---------------------------------------------------------------------------

@transaction.atomic
def bmp_add(*, site: Site, name: str, source_type: str, acting_user, region1_category: str = "",
            latitude: float | None = None, longitude: float | None = None, drainage_area_acres: Decimal | None = None,
            treats: str = "", owner: str = "") -> Bmp:
    from .inventory import REGION1_CATEGORIES, map_bmp_type

    if region1_category and region1_category not in REGION1_CATEGORIES:
        raise StewardshipError(f"Unknown EPA Region 1 category {region1_category!r}.", field="region1_category")
    cat, note = (region1_category, "entered") if region1_category else map_bmp_type(source_type)
    b = Bmp.objects.create(site=site, name=name, source_type=source_type, region1_category=cat, mapping_note=note,
                           latitude=latitude, longitude=longitude, drainage_area_acres=drainage_area_acres,
                           treats=treats, owner=owner, added_on=_today())
    event_record(case=site.case, kind="bmp", acting_user=acting_user, why=f"BMP added: {name} ({source_type})")
    return b


BMP_FIELDS = ("name", "source_type", "region1_category", "mapping_note", "latitude", "longitude", "treats",
              "subwatershed", "owner")


def _bmp_key(external_id: str, name: str, lat, lon) -> tuple:
    """A BMP's identity in its source: the source's id (GlobalID); without one, its name and place."""
    return (("id", normalise_source_id(external_id)) if external_id else
            ("at", name, round(lat or 0, 7), round(lon or 0, 7)))


def inventory_site_of(data) -> Site | None:
    """The site already holding this inventory's BMPs (by normalised source id, issue 26): an inventory imported
    again without naming its site goes to the same site, never a second copy of every BMP. None when no BMP of the
    file is on record."""
    from collections import Counter

    ids = {normalise_source_id(b["external_id"]) for b in data.bmps if b["external_id"]}
    if not ids:
        return None
    sites = Counter(site_id for site_id, x in Bmp.objects.exclude(external_id="").values_list("site_id", "external_id")
                    if normalise_source_id(x) in ids)
    return Site.objects.filter(pk=sites.most_common(1)[0][0]).first() if sites else None


@transaction.atomic
def inventory_import(*, site: Site, folder: str | Path, acting_user, data=None) -> InventoryImport:
    """Import a BMP and structure inventory from GIS files, mapping BMP types to EPA Region 1 categories
    (stewardship.inventory). Reading happens before the writes (``data``: already read); the writes are bulk.

    Idempotent by source id (issue 20): a BMP or structure whose source id (GlobalID; without one, its name and
    place) is already on the site is updated where the file differs, never added again — the same inventory
    imported twice leaves the site as it was (outcome "unchanged" in the import record)."""
    from collections import Counter

    from stormwater.imports.pipeline import content_checksum
    from stormwater.imports.services import import_record_create

    data = data or read_inventory(folder)
    today = _today()
    imp = InventoryImport.objects.create(site=site, source=data.source, imported_by=acting_user, counts={})
    have = {_bmp_key(b.external_id, b.name, b.latitude, b.longitude): b for b in site.bmps.all()}
    new_bmps, changed = [], []
    for b in data.bmps:
        vals = {"name": b["name"][:200], "source_type": b["source_type"][:100], "region1_category": b["category"],
                "mapping_note": b["note"][:300], "latitude": b["lat"], "longitude": b["lon"],
                "treats": b["treats"][:300], "subwatershed": b["subwatershed"][:100], "owner": b["owner"][:100]}
        old = have.get(_bmp_key(b["external_id"][:60], vals["name"], b["lat"], b["lon"]))
        if old is None:
            new_bmps.append(Bmp(site=site, external_id=b["external_id"][:60], source_import=imp, added_on=today, **vals))
        elif any(getattr(old, k) != v for k, v in vals.items()):
            for k, v in vals.items():
                setattr(old, k, v)
            changed.append(old)
    Bmp.objects.bulk_create(new_bmps, batch_size=1000)
    if changed:
        Bmp.objects.bulk_update(changed, BMP_FIELDS, batch_size=1000)
    have_s = {("id", x) if x else ("at", k, round(la or 0, 7), round(lo or 0, 7))
              for x, k, la, lo in site.structures.values_list("external_id", "kind", "latitude", "longitude")}
    new_structures = [
        Structure(site=site, kind=st["kind"][:60], external_id=st["external_id"][:60], latitude=st["lat"],
                  longitude=st["lon"], owner=st["owner"][:100], source_import=imp) for st in data.structures
        if (("id", st["external_id"][:60]) if st["external_id"] else
            ("at", st["kind"][:60], round(st["lat"] or 0, 7), round(st["lon"] or 0, 7))) not in have_s]
    Structure.objects.bulk_create(new_structures, batch_size=2000)
    imp.counts = {
        "bmps": len(data.bmps), "bmps_added": len(new_bmps), "bmps_updated": len(changed),
        "structures_added": len(new_structures),
        "bmps_by_category": dict(Counter(b["category"] or "(none)" for b in data.bmps)),
        "bmps_by_source_type": dict(Counter(b["source_type"] for b in data.bmps)),
        "structures": dict(Counter(s["kind"] for s in data.structures)), "lines": data.pipes,
        "subwatersheds": data.subwatersheds,
    }
    imp.save(update_fields=["counts"])
    event_record(case=site.case, kind="inventory", acting_user=acting_user,
                 why=f"Inventory imported from {Path(str(folder)).name}: {len(new_bmps)} BMPs added, {len(changed)} "
                     f"updated (of {len(data.bmps)}), {len(new_structures)} structures added", data={"import": imp.pk})
    audit_record(actor=acting_user, action="stewardship.inventory_import", obj=imp,
                 data={"bmps": len(data.bmps), "bmps_added": len(new_bmps), "bmps_updated": len(changed)})
    import_record_create(
        kind="bmp_inventory", source=f"{Path(str(folder)).name} → {site.case.number}", path=None,
        content_checksum=content_checksum({"site": site.pk, "bmps": data.bmps, "structures": data.structures}),
        outcome="applied" if (new_bmps or changed or new_structures) else "unchanged",
        counts={k: imp.counts[k] for k in ("bmps", "bmps_added", "bmps_updated", "structures_added")},
        report={"inventory_import": imp.pk}, acting_user=acting_user)
    return imp


@transaction.atomic
def maintenance_log_add(*, bmp: Bmp, on: date | None, kind: str, description: str, performed_by: str, acting_user,
                        disposal_material: str = "", disposal_location: str = "") -> MaintenanceLog:
    """One O&M log entry (§ 380-14 C(2)(j)): inspections, repairs, replacement, disposal (type of material
    and disposal location)."""
    if on is None or not description.strip() or not performed_by.strip():
        raise StewardshipError(ERR_LOG_FIELDS, field="on" if on is None else (
            "description" if not description.strip() else "performed_by"))
    kind = MaintenanceKind(kind)
    if kind == MaintenanceKind.DISPOSAL and not (disposal_material.strip() and disposal_location.strip()):
        raise StewardshipError(ERR_LOG_DISPOSAL,
                               field="disposal_material" if not disposal_material.strip() else "disposal_location")
    e = MaintenanceLog.objects.create(bmp=bmp, on=on, kind=kind, description=description.strip(),
                                      performed_by=performed_by.strip(), disposal_material=disposal_material.strip(),
                                      disposal_location=disposal_location.strip(), recorded_by=acting_user)
    event_record(case=bmp.site.case, kind="maintenance_log", acting_user=acting_user, on=on,
                 why=f"{bmp.name}: {kind.label} — {e.description}")
    return e


# --- annual certifications ------------------------------------------------------------------------

@transaction.atomic
def certification_file(*, site: Site, work_summary: str, signed_by: str, acting_user, received_on: date | None = None,
                       upload=None) -> AnnualCertification:
    """§ 380-14 C(2)(l): the annual certification of the last 12 months' work. Filed for the oldest year not
    yet certified; refused before that year is nearly over (30 days before its end) or without the work
    and the signature; a certification received after its due date is accepted and marked late (the
    year stays on the overdue list until then, and the next year's due date does not move).
    Received today, by the server's clock, unless stewardship staff record a paper one (cases.filing)."""
    received_on = filed_on(acting_user=acting_user, claimed=received_on, staff_perm=Perm.STEWARDSHIP)
    plan = final_plan_recorded(site)
    if plan is None:
        raise StewardshipError(ERR_CERT_NO_PLAN)
    if received_on > _today():
        raise StewardshipError(ERR_CERT_FUTURE, field="received_on")
    missing = [(x, name) for x, v, name in (("the work done", work_summary, "work_summary"),
                                            ("the signature", signed_by, "signed_by")) if not v.strip()]
    if missing:
        raise StewardshipError(ERR_CERT_FIELDS.format(items=", ".join(x for x, _ in missing)), field=missing[0][1])
    d = next_certification(plan)
    if received_on < d.opens_on:
        raise StewardshipError(ERR_CERT_EARLY.format(seq=d.seq, start=d.period_start, end=d.period_end,
                                                     opens=d.opens_on), field="received_on")
    doc = case_document_add(case=site.case, upload=upload, tag="annual_certification",
                            title=f"Annual certification, year {d.seq}", acting_user=acting_user) if upload else None
    late = received_on > d.due_on
    c = AnnualCertification.objects.create(plan=plan, seq=d.seq, period_start=d.period_start, period_end=d.period_end,
                                           due_on=d.due_on, received_on=received_on, work_summary=work_summary.strip(),
                                           signed_by=signed_by.strip(), late=late, document=doc,
                                           recorded_by=acting_user)
    event_record(case=site.case, kind="certification", acting_user=acting_user, on=received_on,
                 why=f"Annual certification year {d.seq} ({d.period_start} – {d.period_end}) received"
                     + (f" LATE (due {d.due_on})" if late else ""))
    audit_record(actor=acting_user, action="stewardship.certification", obj=c, data={"late": late})
    return c


@transaction.atomic
def certification_reminders_send(*, today: date, acting_user=None) -> list[CertificationReminder]:
    """Reminders for certifications due within 30 days ("upcoming") and past due ("overdue"), each sent
    once; emailed to the owners and operators where an address is configured (after commit)."""
    from .selectors import REMIND_DAYS, certifications_due

    sent = []
    for d in certifications_due(today=today, within_days=REMIND_DAYS):
        kind = "overdue" if d.due_on < today else "upcoming"
        if CertificationReminder.objects.filter(plan=d.plan, seq=d.seq, kind=kind).exists():
            continue
        to = responsible_emails(d.site)
        r = CertificationReminder.objects.create(plan=d.plan, seq=d.seq, kind=kind, sent_on=today, to=", ".join(to))
        subject = (f"{'OVERDUE: ' if kind == 'overdue' else ''}Annual stormwater O&M certification due {d.due_on}: "
                   f"{d.site.name}")
        body = (f"The annual certification of the operation and maintenance work at {d.site.name} for "
                f"{d.period_start} – {d.period_end} is due {d.due_on} (Ch. 380 § 380-14 C(2)(l)).")
        _email_on_commit(subject=subject, body=body, to=to)
        event_record(case=d.site.case, kind="reminder", acting_user=acting_user, on=today,
                     why=subject + (f" — emailed to {', '.join(to)}" if to else " — no email configured"))
        sent.append(r)
    return sent


# --- failure to maintain --------------------------------------------------------------------------

@transaction.atomic
def maintenance_notice_issue(*, site: Site, violation: str, corrective_work: str, acting_user,
                             noticed_on: date | None = None, bmp: Bmp | None = None) -> MaintenanceNotice:
    """§ 380-14 E: the Director's notice to correct a violation requiring maintenance work; 30 days to make
    satisfactory corrections (a clock, last day rolled past weekends/holidays, MGL c.4 §9)."""
    noticed_on = noticed_on or _today()
    if not violation.strip() or not corrective_work.strip():
        raise StewardshipError("A notice states the violation and the maintenance work required (§ 380-14 E).")
    case = case_open(kind=wf.MAINTENANCE, title=f"Failure to maintain: {site.name}", acting_user=acting_user,
                     applicant=site.owner_user, parent=site.case)
    n = MaintenanceNotice.objects.create(case=case, site=site, bmp=bmp, noticed_on=noticed_on,
                                         violation=violation.strip(), corrective_work=corrective_work.strip())
    clock = clock_start(case=case, kind=wf.CURE, label="Satisfactory corrections by the owner", citation="§ 380-14 E",
                        start=noticed_on, length=CURE_DAYS, acting_user=acting_user)
    due = clock.state().due
    pdf = _letter(site, case=case, subject=f"Notice to correct: failure to maintain ({case.number})", on=noticed_on,
                  paragraphs=[f"An inspection of the stormwater management system at {site.name} found a violation "
                              "requiring maintenance work:", n.violation, "Required work:", n.corrective_work,
                              f"Satisfactory corrections must be made within 30 days of this notice, by "
                              f"{due:%B %-d, %Y}. If they are not, the Town may seek a court order or obtain other "
                              "relief in order to inspect the property and ensure compliance."],
                  citation="Ch. 380 § 380-14 E; § 380-14 A(3) (access for inspections); § 380-19.")
    doc = case_document_generate(case=case, content=pdf, filename=f"{case.number}-notice.pdf", tag="maintenance_notice",
                                 title="Notice to correct (failure to maintain)", acting_user=acting_user)
    _email_on_commit(subject=f"Notice to correct: {site.name}", body=n.violation, to=responsible_emails(site),
                     filename=doc.original_name, pdf=pdf)
    event_record(case=site.case, kind="maintenance_notice", acting_user=acting_user, on=noticed_on,
                 why=f"Failure-to-maintain notice {case.number}: correct by {show_day(due)}")
    audit_record(actor=acting_user, action="stewardship.maintenance_notice", obj=n)
    return n


@transaction.atomic
def maintenance_corrected(*, notice: MaintenanceNotice, on: date, note: str, acting_user) -> MaintenanceNotice:
    """The corrections are made and verified by the Director."""
    if not note.strip():
        raise StewardshipError("Record how the correction was verified.", field="note")
    case_transition(case=notice.case, to=wf.NoticeStatus.CORRECTED, acting_user=acting_user, on=on,
                    why=f"Corrected and verified: {note}")
    notice.corrected_on, notice.verified_note = on, note.strip()
    notice.save(update_fields=["corrected_on", "verified_note"])
    return notice


@transaction.atomic
def maintenance_enforce(*, notice: MaintenanceNotice, acting_user, on: date | None = None) -> MaintenanceNotice:
    """§ 380-14 E: corrections not made within 30 days → the Town may seek a court order or other relief.
    Refused on or before the 30th day (rolled)."""
    on = on or _today()
    clock = case_clock(notice.case, wf.CURE)

    def check(_):
        if clock is not None and clock.due is not None and on <= clock.due:
            raise TransitionError(ERR_ENFORCE_EARLY.format(due=clock.due))
    case_transition(case=notice.case, to=wf.NoticeStatus.ENFORCEMENT, acting_user=acting_user, on=on, check=check,
                    why="Not corrected within 30 days: court order or other relief (§ 380-14 E)")
    notice.referred_on = on
    notice.save(update_fields=["referred_on"])
    pdf = _letter(notice.site, case=notice.case, subject=f"Enforcement: failure to maintain ({notice.case.number})",
                  on=on, paragraphs=[f"The corrections required by the notice of {notice.noticed_on:%B %-d, %Y} were "
                                     f"not made within 30 days (by {clock.due:%B %-d, %Y}).",
                                     "The Town will seek a court order or obtain other relief in order to inspect the "
                                     "property and ensure compliance, and may pursue all civil and criminal remedies."],
                  citation="Ch. 380 § 380-14 E; § 380-19.")
    case_document_generate(case=notice.case, content=pdf, filename=f"{notice.case.number}-enforcement.pdf",
                           tag="enforcement", title="Referral for enforcement", acting_user=acting_user)
    audit_record(actor=acting_user, action="stewardship.maintenance_enforce", obj=notice)
    return notice


# --- ownership changes and amendments -------------------------------------------------------------

@transaction.atomic
def ownership_change_record(*, site: Site, role: str, to_name: str, effective_on: date, acting_user,
                            notified_on: date | None = None, to_address: str = "", to_email: str = "",
                            deed_reference: str = "", to_user=None) -> OwnershipChange:
    """§ 380-14 F(1): the owners notify the Director of a change in ownership or in financial responsibility.
    The O&M plan binds the new owner (§ 380-14 A(3)): the old party ends, the new one begins. The notice is dated
    today by the server unless stewardship staff record a paper one (cases.filing)."""
    notified_on = filed_on(acting_user=acting_user, claimed=notified_on, staff_perm=Perm.STEWARDSHIP)
    if notified_on > _today():
        raise StewardshipError(ERR_OWNERSHIP_FUTURE, field="notified_on")
    role = PartyRole(role)
    if not to_name.strip() or notified_on is None or effective_on is None:
        raise StewardshipError(ERR_OWNERSHIP_FIELDS, field="to_name" if not to_name.strip() else (
            "notified_on" if notified_on is None else "effective_on"))
    old = list(site.parties.filter(role=role, until__isnull=True))
    for p in old:
        p.until = effective_on
        p.save(update_fields=["until"])
    ResponsibleParty.objects.create(site=site, role=role, name=to_name.strip(), address=to_address, email=to_email,
                                    user=to_user, since=effective_on)
    if role == PartyRole.OWNER and to_user is not None:
        site.owner_user = to_user
        site.save(update_fields=["owner_user"])
    ch = OwnershipChange.objects.create(site=site, notified_on=notified_on, effective_on=effective_on, role=role,
                                        from_name=", ".join(p.name for p in old), to_name=to_name.strip(),
                                        to_address=to_address, deed_reference=deed_reference, recorded_by=acting_user)
    event_record(case=site.case, kind="ownership", acting_user=acting_user, on=notified_on,
                 why=f"{role.label}: {ch.from_name or '—'} → {ch.to_name} from {effective_on} (§ 380-14 F(1))")
    audit_record(actor=acting_user, action="stewardship.ownership_change", obj=ch)
    return ch


@transaction.atomic
def plan_amend(*, plan: OMPlan, description: str, signed_by: list[ResponsibleParty], director_agreed_on: date | None,
               effective_on: date, acting_user, upload=None) -> PlanAmendment:
    """§ 380-14 F(2): the maintenance schedule amended by mutual agreement of the Director and the responsible
    parties, in writing, signed by all of them (owners, financial and operational parties, easement grantors)."""
    if not description.strip():
        raise StewardshipError("Describe the amendment.", field="description")
    if director_agreed_on is None:
        raise StewardshipError(ERR_AMEND_DIRECTOR, field="director_agreed_on")
    required = current_parties(plan.site)
    signed_ids = {p.pk for p in signed_by}
    unsigned = [f"{p.name} ({p.get_role_display().lower()})" for p in required if p.pk not in signed_ids]
    if unsigned or not required:
        names = "; ".join(unsigned) or "no responsible parties on file"
        raise StewardshipError(ERR_AMEND_SIGNATURES.format(names=names), field="signed_by")
    doc = case_document_add(case=plan.site.case, upload=upload, tag="om_amendment", title="O&M plan amendment",
                            acting_user=acting_user) if upload is not None else None
    a = PlanAmendment.objects.create(plan=plan, description=description.strip(), director_agreed_on=director_agreed_on,
                                     effective_on=effective_on, document=doc, recorded_by=acting_user)
    a.signed_by.set(signed_by)
    event_record(case=plan.site.case, kind="om_amendment", acting_user=acting_user, on=effective_on,
                 why=f"O&M plan v{plan.version} amended: {a.description}")
    audit_record(actor=acting_user, action="stewardship.plan_amend", obj=a)
    return a

