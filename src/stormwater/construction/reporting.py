"""Inspection reports and what feeds the schedule: rainfall, the design engineer's 24-hour notices, the written
report (§ 380-16 C(4)(f)[1]) with its checklist rows, photos and signature, punch items. Split out of
``services`` (which re-exports every name here)."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal

from django.db import transaction
from django.utils import timezone

from stormwater.accounts.roles import Perm
from stormwater.audit.services import audit_record
from stormwater.cases.filing import after_now, after_today
from stormwater.cases.services import event_record
from stormwater.rules.inspections import notice_is_timely, report_missing_fields, report_missing_keys
from stormwater.rules.money import ZERO
from stormwater.formats import day as show_day, moment as show_moment

from . import documents
from .base import ConstructionError, _keep_pdf, _lock, _send_on_commit, not_before_permit
from .models import (ENGINEER_KINDS, ChecklistRow, Condition, ConstructionProject, Evaluation, Inspection,
                     InspectionKind, InspectionNotice, InspectionPhoto, PunchItem, RainEvent, SignatureMethod,
                     SiteControl)

K = InspectionKind

REPORT_INPUTS = {"inspected_on": "inspected_at"}  # an item of the rule → the report form's input, where they differ
ERR_REPORT_FIELDS = "The inspection report is missing: {fields}."
ERR_NO_NOTICE = ("The project design engineer must notify the DPW Director at least 24 hours before each inspection "
                 "(§ 380-16 C(3)); no notice for a {kind} on {day}.")
ERR_LATE_NOTICE = ("The notice of the {kind} was given {hours:.1f} hours before it; at least 24 hours are required "
                   "(§ 380-16 C(3)).")
ERR_NOT_YOURS = "Only the project's {who} or the Director's inspectors may file this report."
ERR_RANDOM = "Random inspections are the Director's and their agents' (§ 380-16 C(4)(b)[2])."
ERR_PRE_BURY = "A pre-bury report names the structures inspected before backfilling (§ 380-16 C(4)(c))."
ERR_FINAL_VIDEO = ("The final inspection includes a full, dated video inspection of all stormwater pipes installed "
                   "(§ 380-16 C(4)(e)[1]): give the video's date and reference.")
ERR_FINAL_STORM = ("The final inspection evaluates the system in an actual storm (§ 380-16 C(4)(e)[2]): give the "
                   "storm's date and rainfall.")
ERR_FINAL_PUNCH = "Punch-list items from the walk-through are still open (§ 380-16 C(4)(d)): {items}."
ERR_FINAL_NO_WALK = "The walk-through inspection and its punch list come before the final inspection (§ 380-16 C(4)(d))."
ERR_NOTICE_PAST = "The inspection must be scheduled in the future."
ERR_ROW_UNKNOWN = "Checklist row {n} is not a control or BMP of this site."
ERR_ROW_CONDITION = "Say how you found “{label}”: in place, needs maintenance or failed."
ERR_ROW_NOTE = "“{label}” {condition}: say what is wrong and what must be done (CGP 2022 Part 5 corrective action)."
ERR_ROW_FAILED = ("A failed control is a failure to comply with the approved plan: choose “Violations” as the "
                  "evaluation and give the steps to correct them (§ 380-16 C(4)(f)[1][g]–[h]). Failed: {items}.")
ERR_TOO_MANY_PHOTOS = "{n} photos: a report takes at most {max}."
MAX_CAPTION = 300  # InspectionPhoto.caption
ERR_CAPTION = "The caption of “{name}” is longer than {max} characters: shorten it."
ERR_SIGNATURE = "Sign the report on the screen, or type your name to attest it."
ERR_SIGNATURE_NAME = "Type your name to attest the report."
ERR_ATTEST = "Tick “I attest that this report is true and complete” with your typed name, or sign on the screen."
ERR_UNSAFE = ("A part of the site not inspected because it was unsafe is said in the report: what made it unsafe and "
              "where (CGP 2022 Part 4.5; the EPA report form's “unsafe conditions for inspection”).")
MAX_PHOTOS = 40
MAX_SIGNATURE_BYTES = 1024 * 1024


# --- rain, notices, reports ------------------------------------------------------------------------

@transaction.atomic
def rain_event_record(*, project: ConstructionProject, ended_at: datetime, rain_in: Decimal, snow_in: Decimal = ZERO,
                      source: str, acting_user) -> RainEvent:
    """A 24-hour precipitation total at the site (CGP 2022 Part 4.2(b), 4.3.1 storm triggers)."""
    if rain_in < 0 or snow_in < 0:
        raise ConstructionError("Precipitation must not be negative.", field="rain_in" if rain_in < 0 else "snow_in")
    if not source.strip():
        raise ConstructionError("Name the source of the rainfall record (gauge, NOAA station).", field="source")
    future = after_now(ended_at, what="time the 24-hour rainfall ended")
    if future:
        raise ConstructionError(future, field="ended_at")
    not_before_permit(project, ended_at, what="time the 24-hour rainfall ended", field="ended_at")
    ev = RainEvent.objects.create(project=project, ended_at=ended_at, rain_in=rain_in, snow_in=snow_in,
                                  source=source.strip(), recorded_by=acting_user)
    event_record(case=project.case, kind="rain", acting_user=acting_user, on=timezone.localtime(ended_at).date(),
                 why=f"{rain_in} in rain, {snow_in} in snow in 24 h ending {show_moment(ended_at)}"
                     f" ({source})")
    return ev


@transaction.atomic
def inspection_notice_give(*, project: ConstructionProject, kind: str, scheduled_at: datetime, acting_user,
                           note: str = "") -> InspectionNotice:
    """§ 380-16 C(3): the design engineer notifies the Director at least 24 hours before each inspection.
    The notice is stamped with the time it is received; whether it was timely is judged on the report."""
    now = timezone.now()
    if scheduled_at <= now:
        raise ConstructionError(ERR_NOTICE_PAST, field="scheduled_at")
    n = InspectionNotice.objects.create(project=project, kind=kind, scheduled_at=scheduled_at, noticed_at=now,
                                        given_by=acting_user, note=note)
    event_record(case=project.case, kind="inspection.notice", acting_user=acting_user,
                 why=f"Notice of {K(kind).label} on {show_moment(scheduled_at)} (§ 380-16 C(3))")
    return n


def may_file(user, project: ConstructionProject, kind: str) -> bool:
    """Who files which report: the Director's inspectors any; the project's design engineer the
    engineer's inspections (§ 380-16 C(3)) and, like the ESC inspector, erosion-control ones (§ 380-16 C(2)); the
    system (``None``: commands and imports, as ``cases.filing``) the old office's reports it converts (issue 32)."""
    if user is None or user.can(Perm.INSPECT):
        return True
    if kind == K.RANDOM or not user.can(Perm.INSPECTION_FILE):
        return False
    if kind in {k.value for k in ENGINEER_KINDS} | {K.INITIAL_SITE.value}:
        return project.design_engineer_id == user.pk
    return user.pk in (project.design_engineer_id, project.esc_inspector_id)


@dataclass
class RowInput:
    """One checklist row as the inspector found it: a control of the site (``control_id``) or a BMP of its
    stewardship site (``bmp_id``), its condition, a note, and the photos of this finding (uploads)."""

    condition: str
    control_id: int | None = None
    bmp_id: int | None = None
    note: str = ""
    photos: tuple = ()
    captions: tuple[str, ...] = ()  # the caption of each photo, in order ("" = none; issue 30)


@dataclass
class SignatureInput:
    """Drawn on the screen (``image``: the canvas as a PNG upload) or a typed name attestation (``typed_name``)."""

    method: str
    name: str
    image: object | None = None
    attested: bool = True  # the typed name's box "I attest that this report is true and complete" ticked


@dataclass
class ReportInput:
    """The written report as filed (§ 380-16 C(4)(f)[1]); ``last_inspection`` is a date or "none". ``rows``, ``photos``
    (of the report as a whole) and ``signature`` come from the field form; ``client_key`` is the key the browser
    generated for a report written offline (one report however often it is sent)."""

    kind: str
    inspected_at: datetime | None
    location: str
    inspector_name: str
    inspector_credentials: str
    last_inspection: date | str | None
    weather: str
    precipitation_24h_in: Decimal | None
    evaluation: str
    corrective_steps: str = ""
    findings: str = ""
    structures: str = ""
    video_recorded_on: date | None = None
    video_reference: str = ""
    storm_evaluated_on: date | None = None
    storm_evaluation_rain_in: Decimal | None = None
    storm_id: int | None = None
    punch_list: tuple[str, ...] = ()
    rows: tuple[RowInput, ...] = ()
    photos: tuple = ()
    photo_captions: tuple[str, ...] = ()  # the caption of each of ``photos``, in order (issue 30)
    signature: SignatureInput | None = None
    client_key: str | None = None
    unsafe_conditions: str = ""   # CGP 2022 Part 4.5: what made a part of the site unsafe to inspect
    unsafe_locations: str = ""    # … and where

    def as_fields(self) -> dict:
        return {"inspected_on": self.inspected_at, "location": self.location, "inspector_name": self.inspector_name,
                "inspector_credentials": self.inspector_credentials, "kind": self.kind,
                "last_inspection": self.last_inspection, "weather": self.weather,
                "precipitation_24h_in": self.precipitation_24h_in, "evaluation": self.evaluation,
                "corrective_steps": self.corrective_steps}


class AlreadyFiled(Exception):
    """The report with this client key is already in the file (it was sent before): nothing is filed again."""

    def __init__(self, inspection: Inspection):
        super().__init__(f"Already filed as report {inspection.pk}.")
        self.inspection = inspection


def _read(upload) -> bytes:
    upload.seek(0)
    data = upload.read()
    upload.seek(0)
    return data


def _checked_rows(p: ConstructionProject, report: ReportInput) -> list[tuple[RowInput, str, object, object]]:
    """(row, label, control, bmp) for each row, or a refusal naming the row (CGP 2022 Part 5: a control that needs
    maintenance or failed is a corrective action, described in the note)."""
    from stormwater.stewardship.models import Bmp

    out, failed = [], []
    for i, r in enumerate(report.rows, start=1):
        control = bmp = None
        if r.control_id:
            control = SiteControl.objects.filter(project=p, pk=r.control_id).first()
            if control is None:
                raise ConstructionError(ERR_ROW_UNKNOWN.format(n=i))
            label = f"{control.name} ({control.get_kind_display()})" + (f", {control.location}" if control.location else "")
        elif r.bmp_id:
            bmp = Bmp.objects.filter(site__permit=p.permit, pk=r.bmp_id).first()
            if bmp is None:
                raise ConstructionError(ERR_ROW_UNKNOWN.format(n=i))
            label = f"BMP {bmp.name} ({bmp.source_type})"
        else:
            raise ConstructionError(ERR_ROW_UNKNOWN.format(n=i))
        if r.condition not in Condition.values:
            raise ConstructionError(ERR_ROW_CONDITION.format(label=label))
        if r.condition not in (Condition.IN_PLACE, Condition.UNSAFE) and not r.note.strip():
            raise ConstructionError(ERR_ROW_NOTE.format(label=label, condition=Condition(r.condition).label.lower()))
        if r.condition == Condition.FAILED:
            failed.append(label)
        out.append((r, label, control, bmp))
    if failed and report.evaluation != Evaluation.VIOLATIONS:
        raise ConstructionError(ERR_ROW_FAILED.format(items="; ".join(failed)))
    return out


def _check_unsafe(report: ReportInput) -> None:
    """CGP 2022 Part 4.5: an area unsafe to inspect at the time of the inspection need not be inspected; the report
    then says what made it unsafe and where (both, together). A row marked unsafe needs them. The report is still an
    inspection of the site: the schedule counts from it (``selectors.dues_from`` does not look at this)."""
    said = (report.unsafe_conditions.strip(), report.unsafe_locations.strip())
    marked = any(r.condition == Condition.UNSAFE for r in report.rows)
    if (marked or any(said)) and not all(said):
        raise ConstructionError(ERR_UNSAFE, field="unsafe_conditions" if not said[0] else "unsafe_locations")


def _checked_photos(uploads, captions=()) -> list:
    """(upload, PhotoFacts, caption) for each photo; a file that is not a readable JPEG/PNG, or a caption longer
    than the field, is refused by the photo's name."""
    from .photos import PhotoError, photo_facts

    out = []
    for n, up in enumerate(uploads):
        name = getattr(up, "name", "photo")
        caption = (captions[n] if n < len(captions) else "").strip()
        if len(caption) > MAX_CAPTION:
            raise ConstructionError(ERR_CAPTION.format(name=name, max=MAX_CAPTION))
        try:
            out.append((up, photo_facts(_read(up), name), caption))
        except PhotoError as e:
            raise ConstructionError(str(e)) from None
    return out


def _photo_keep(*, p, insp, row, upload, facts, caption="", acting_user) -> InspectionPhoto:
    from django.core.files.base import ContentFile

    from stormwater.web.filetypes import PHOTO_TYPES
    from stormwater.cases.services import DocumentError, case_document_add

    from .photos import thumbnail_jpeg

    try:
        doc = case_document_add(case=p.case, upload=upload, tag="inspection_photo", types=PHOTO_TYPES,
                                title=f"Photo, inspection report {insp.pk}" + (f": {row.label}" if row else ""),
                                acting_user=acting_user)
    except DocumentError as e:
        raise ConstructionError(f"{getattr(upload, 'name', 'photo')}: {e}") from None
    taken = facts.taken_at
    if taken is not None and timezone.is_naive(taken):
        taken = timezone.make_aware(taken)  # the camera's clock is local time (America/New_York)
    photo = InspectionPhoto(inspection=insp, row=row, document=doc, width=facts.width, height=facts.height,
                            taken_at=taken, latitude=facts.latitude, longitude=facts.longitude, caption=caption)
    photo.thumbnail.save(f"{doc.pk}.jpg", ContentFile(thumbnail_jpeg(_read(upload))), save=False)
    photo.save()
    return photo


@transaction.atomic
def inspection_report_file(*, project: ConstructionProject, report: ReportInput, acting_user,
                           signature_required: bool = False, notify: bool = True) -> Inspection:
    """File a written inspection report (§ 380-16 C(4)(f)[1]). Refused, naming each missing item, unless
    every required item is present; engineer inspections need the 24-hour notice (§ 380-16 C(3)); the
    pre-bury, walk-through and final inspections have their own contents (§ 380-16 C(4)(c)–(e)). Checklist rows,
    photos (content-checked JPEG/PNG; time and position from their EXIF) and the signature are kept with it. The PDF
    goes into the file and to the applicant and the Director (email after commit, where configured).

    A report with a ``client_key`` already in the file raises ``AlreadyFiled`` (checked under the project's row
    lock; the unique constraint on ``Inspection.client_key`` is the backstop for two concurrent first sends).
    ``signature_required``: the web forms require the inspector's signature (drawn, or a typed attestation); it is
    checked after the items the ordinance requires, so those are named first. ``notify=False``: kept in the file and
    sent to nobody (a report of the old office converted at go-live, issue 32: it went to them from there)."""
    p = _lock(project)
    if report.client_key:
        existing = Inspection.objects.filter(client_key=report.client_key).first()
        if existing is not None:
            raise AlreadyFiled(existing)
    kind = K(report.kind) if report.kind in K.values else None
    missing = report_missing_fields(report.as_fields())
    if kind is None and "§ 380-16 C(4)(f)[1][c] type of inspection" not in missing:
        missing.append("§ 380-16 C(4)(f)[1][c] type of inspection")
    if missing:  # the form marks the first missing item's input (issue 16 "Forms")
        first = (report_missing_keys(report.as_fields()) or ["kind"])[0]
        raise ConstructionError(ERR_REPORT_FIELDS.format(fields="; ".join(missing)), field=REPORT_INPUTS.get(first, first))
    if not may_file(acting_user, p, kind):
        if kind == K.RANDOM:
            raise ConstructionError(ERR_RANDOM)
        who = "design engineer" if kind in ENGINEER_KINDS else "design engineer or erosion-control inspector"
        raise ConstructionError(ERR_NOT_YOURS.format(who=who))
    # Every refusal about the report's dates and its notice is said at once (issue 30: a report dated tomorrow
    # without a notice was refused for the notice, then for the date once the notice was fixed).
    refusals: list[tuple[str, str | None]] = []
    notice = None
    if kind in ENGINEER_KINDS:
        day = timezone.localtime(report.inspected_at).date()
        notice = p.notices.filter(kind=kind, scheduled_at__date=day).order_by("-noticed_at").first()
        if notice is None:
            refusals.append((ERR_NO_NOTICE.format(kind=kind.label.lower(), day=day), None))
        elif not notice_is_timely(noticed_at=notice.noticed_at, inspection_at=report.inspected_at):
            hours = (report.inspected_at - notice.noticed_at).total_seconds() / 3600
            refusals.append((ERR_LATE_NOTICE.format(kind=kind.label.lower(), hours=hours), None))
    # Issue 18: a report is of an inspection made (§ 380-16 C(4)(f)[1]); none of its dates is later than now.
    # Issue 30: nor earlier than the permit (construction.base.not_before_permit).
    dated = ((report.inspected_at, "inspection date and time", "inspected_at", after_now),
             (report.video_recorded_on, "date of the video inspection of the pipes", "video_recorded_on", after_today),
             (report.storm_evaluated_on, "date of the storm evaluated", "storm_evaluated_on", after_today))
    for when, what, field, later in dated:
        refusal = later(when, what=what)
        if refusal is None:
            try:
                not_before_permit(p, when, what=what, field=field)
            except ConstructionError as e:
                refusal = str(e)
        if refusal:
            refusals.append((refusal, field))
    if refusals:
        first_field = next((f for _, f in refusals if f), None)
        raise ConstructionError(" ".join(m for m, _ in refusals), field=first_field)
    if kind == K.PRE_BURY and not report.structures.strip():
        raise ConstructionError(ERR_PRE_BURY)
    if kind == K.FINAL:
        if report.video_recorded_on is None or not report.video_reference.strip():
            raise ConstructionError(ERR_FINAL_VIDEO)
        if report.storm_evaluated_on is None or report.storm_evaluation_rain_in is None:
            raise ConstructionError(ERR_FINAL_STORM)
        if not p.inspections.filter(kind=K.WALK_THROUGH).exists():
            raise ConstructionError(ERR_FINAL_NO_WALK)
        open_items = [i.text for i in p.punch_items.filter(done_on__isnull=True)]
        if open_items:
            raise ConstructionError(ERR_FINAL_PUNCH.format(items="; ".join(open_items)))
    rows = _checked_rows(p, report)
    _check_unsafe(report)
    n_photos = len(report.photos) + sum(len(r.photos) for r in report.rows)
    if n_photos > MAX_PHOTOS:
        raise ConstructionError(ERR_TOO_MANY_PHOTOS.format(n=n_photos, max=MAX_PHOTOS))
    report_photos = _checked_photos(report.photos, report.photo_captions)
    row_photos = [_checked_photos(r.photos, r.captions) for r, *_ in rows]
    sig = report.signature
    if sig is None and signature_required:
        raise ConstructionError(ERR_SIGNATURE, field="signature_method")
    if sig is not None:
        if sig.method not in SignatureMethod.values:
            raise ConstructionError(ERR_SIGNATURE, field="signature_method")
        if sig.method == SignatureMethod.TYPED and not sig.name.strip():
            raise ConstructionError(ERR_SIGNATURE_NAME, field="signed_name")
        if sig.method == SignatureMethod.TYPED and not sig.attested:
            raise ConstructionError(ERR_ATTEST, field="attest")
        if sig.method == SignatureMethod.DRAWN and sig.image is None:
            raise ConstructionError(ERR_SIGNATURE, field="signature_method")
    last = None if isinstance(report.last_inspection, str) else report.last_inspection
    storm = p.rain_events.filter(pk=report.storm_id).first() if report.storm_id else None
    insp = Inspection.objects.create(
        project=p, kind=kind, inspected_at=report.inspected_at, location=report.location.strip(),
        inspector_name=report.inspector_name.strip(), inspector_credentials=report.inspector_credentials.strip(),
        last_inspection_on=last, weather=report.weather.strip(), precipitation_24h_in=report.precipitation_24h_in,
        evaluation=report.evaluation, findings=report.findings, corrective_steps=report.corrective_steps,
        notice=notice, storm=storm, structures=report.structures, video_recorded_on=report.video_recorded_on,
        video_reference=report.video_reference, storm_evaluated_on=report.storm_evaluated_on,
        storm_evaluation_rain_in=report.storm_evaluation_rain_in, filed_by=acting_user,
        client_key=report.client_key or None, unsafe_conditions=report.unsafe_conditions.strip(),
        unsafe_locations=report.unsafe_locations.strip()[:300],
        signature_method=sig.method if sig else "", signed_name=(sig.name.strip() or report.inspector_name.strip())
        if sig else "")
    if kind == K.WALK_THROUGH:
        for text in report.punch_list:
            if text.strip():
                PunchItem.objects.create(project=p, inspection=insp, text=text.strip())
    for (r, label, control, bmp), photos in zip(rows, row_photos):
        row = ChecklistRow.objects.create(inspection=insp, control=control, bmp=bmp, label=label[:300],
                                          condition=r.condition, note=r.note.strip())
        for upload, facts, caption in photos:
            _photo_keep(p=p, insp=insp, row=row, upload=upload, facts=facts, caption=caption, acting_user=acting_user)
    for upload, facts, caption in report_photos:
        _photo_keep(p=p, insp=insp, row=None, upload=upload, facts=facts, caption=caption, acting_user=acting_user)
    if sig is not None and sig.method == SignatureMethod.DRAWN:
        from stormwater.web.filetypes import PHOTO_PNG
        from stormwater.cases.services import DocumentError, case_document_add

        if getattr(sig.image, "size", 0) > MAX_SIGNATURE_BYTES:
            raise ConstructionError(ERR_SIGNATURE)
        try:
            insp.signature_document = case_document_add(
                case=p.case, upload=sig.image, tag="inspection_signature", types=(PHOTO_PNG,),
                title=f"Signature of {insp.signed_name}, inspection report {insp.pk}", acting_user=acting_user)
        except DocumentError:
            raise ConstructionError(ERR_SIGNATURE) from None
        insp.save(update_fields=["signature_document"])
    day = timezone.localtime(insp.inspected_at).date()
    pdf = documents.inspection_report_pdf(insp)
    doc = _keep_pdf(p, pdf, tag="inspection_report", title=f"Inspection report: {kind.label} ({show_day(day)})",
                    filename=f"{p.case.number}-inspection-{insp.pk}-{day}.pdf", acting_user=acting_user)
    insp.document = doc
    insp.save(update_fields=["document"])
    event_record(case=p.case, kind="inspection", acting_user=acting_user, on=day,
                 why=f"{kind.label}: {Evaluation(insp.evaluation).label}", data={"inspection": insp.pk})
    audit_record(actor=acting_user, action="construction.inspection", obj=insp,
                 data={"kind": kind.value, "rows": len(rows), "photos": n_photos,
                       "signature": insp.signature_method or None, "client_key": insp.client_key})
    if not notify:
        return insp
    _send_on_commit(project=p, subject=f"Inspection report {p.case.number}: {kind.label} ({day})",
                    body=f"The written report of the {kind.label.lower()} of {day} at {p.permit.site_address} is "
                         f"attached (Ch. 380 § 380-16 C(4)(f)[1]).", filename=doc.original_name, pdf=pdf,
                    acting_user=acting_user)
    return insp


@transaction.atomic
def punch_item_done(*, item: PunchItem, on: date, note: str, acting_user) -> PunchItem:
    """A walk-through punch-list item done (§ 380-16 C(4)(d)); not on a day later than today (issue 18)."""
    future = after_today(on, what="day the punch-list item was done")
    if future:
        raise ConstructionError(future, field="on")
    not_before_permit(item.project, on, what="day the punch-list item was done", field="on")
    if item.done_on is None:
        item.done_on, item.done_note = on, note
        item.save(update_fields=["done_on", "done_note"])
        event_record(case=item.project.case, kind="punch", acting_user=acting_user, on=on,
                     why=f"Punch-list item done: {item.text}" + (f" ({note})" if note else ""))
    return item


# --- the site as the inspector sees it: its controls and its position ---------------------------------------

ERR_CONTROL_NAME = "Name the control (e.g. “Silt fence along the brook”)."
ERR_CONTROL_KIND = "Choose the kind of control."
ERR_POSITION = "A position is a latitude between -90 and 90 and a longitude between -180 and 180 (WGS84 degrees)."


@transaction.atomic
def site_control_add(*, project: ConstructionProject, kind: str, name: str, acting_user, location: str = "",
                     on: date | None = None) -> SiteControl:
    """An erosion or sediment control of the approved plan (CGP 2022 Part 2): a checklist row of every
    erosion-control inspection from now on."""
    from .models import ControlKind

    if kind not in ControlKind.values:
        raise ConstructionError(ERR_CONTROL_KIND, field="kind")
    if not name.strip():
        raise ConstructionError(ERR_CONTROL_NAME, field="name")
    not_before_permit(project, on, what="day the control was added", field="on")
    c = SiteControl.objects.create(project=project, kind=kind, name=name.strip()[:200], location=location.strip()[:200],
                                   added_on=on or timezone.localdate(), added_by=acting_user)
    event_record(case=project.case, kind="control", acting_user=acting_user,
                 why=f"Control added: {c.name} ({c.get_kind_display()})", data={"control": c.pk})
    audit_record(actor=acting_user, action="construction.control_add", obj=c)
    return c


@transaction.atomic
def site_control_remove(*, control: SiteControl, acting_user, on: date | None = None) -> SiteControl:
    """The control is gone from the site (e.g. the silt fence removed after stabilization): no longer a row."""
    if control.removed_on is None:
        control.removed_on = on or timezone.localdate()
        control.save(update_fields=["removed_on"])
        event_record(case=control.project.case, kind="control", acting_user=acting_user,
                     why=f"Control removed: {control.name}", data={"control": control.pk})
        audit_record(actor=acting_user, action="construction.control_remove", obj=control)
    return control


@transaction.atomic
def project_position_set(*, project: ConstructionProject, latitude: float, longitude: float,
                         acting_user) -> ConstructionProject:
    """The site's position for the inspector's map and route (e.g. taken from the phone at the site entrance)."""
    if not -90 <= latitude <= 90:  # NaN fails both comparisons
        raise ConstructionError(ERR_POSITION, field="latitude")
    if not -180 <= longitude <= 180:
        raise ConstructionError(ERR_POSITION, field="longitude")
    p = _lock(project)
    before = (p.latitude, p.longitude)
    p.latitude, p.longitude = round(latitude, 6), round(longitude, 6)
    p.save(update_fields=["latitude", "longitude"])
    audit_record(actor=acting_user, action="construction.position", obj=p,
                 data={"before": before, "after": (p.latitude, p.longitude)})
    return p


# --- a report written offline meets the file as it is now ----------------------------------------------------

def report_conflicts(project: ConstructionProject, *, seen_status: str | None, seen_last: int | None,
                     kind: str, storm_id: int | None, inspected_at: datetime | None) -> list[str]:
    """What changed in the file since the inspector opened the report form (the form carries the status and the
    newest report id it saw), in words: the status (a stop-work order issued meanwhile …) and reports filed
    since — above all the same report already filed by someone else (the same storm's inspection, the same type on
    the same day). Empty when nothing changed or the form did not say what it saw."""
    from . import workflow as wf

    out: list[str] = []
    case = project.case
    if seen_status and seen_status != case.status:
        labels = dict(wf.Status.choices)
        out.append(f"Since you opened the form, the file went from “{labels.get(seen_status, seen_status)}” to "
                   f"“{case.status_label}”.")
        if case.status == wf.Status.STOP_WORK:
            order = project.stop_work_orders.filter(lifted_on__isnull=True).order_by("-issued_on", "-id").first()
            if order is not None:
                out.append(f"A stop-work order was issued on {order.issued_on:%Y-%m-%d}: {order.reason}")
    if seen_last is not None:
        day = timezone.localtime(inspected_at).date() if inspected_at else None
        for i in project.inspections.filter(pk__gt=seen_last).select_related("filed_by").order_by("id"):
            who = i.inspector_name or (i.filed_by.username if i.filed_by else "someone")
            when = timezone.localtime(i.inspected_at)
            if kind == K.EROSION_STORM and i.kind == K.EROSION_STORM and storm_id and i.storm_id == storm_id:
                out.append(f"The storm inspection for this storm was already filed by {who} ({when:%Y-%m-%d %H:%M}, "
                           f"report {i.pk}).")
            elif i.kind == kind and day is not None and when.date() == day:
                out.append(f"A {K(i.kind).label.lower()} report for {day:%Y-%m-%d} was already filed by {who} "
                           f"(report {i.pk}).")
            else:
                out.append(f"Another report was filed since: {K(i.kind).label.lower()}, {when:%Y-%m-%d %H:%M}, "
                           f"by {who} (report {i.pk}).")
    return out
