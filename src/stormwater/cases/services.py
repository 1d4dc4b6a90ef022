"""State changes of cases: open, transition (the one guarded setter), clocks, documents, events.

Every function is keyword-only, takes ``acting_user``, runs in one transaction and writes a
timeline event (CaseEvent) plus an audit row.
"""
from __future__ import annotations

import hashlib
from datetime import date
from typing import Callable

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import transaction
from django.utils import timezone

from stormwater.audit.services import actor_or_none as _actor, audit_record
from stormwater.rules.clocks import Unit
from stormwater.formats import day as show_day
from stormwater.web.filetypes import DOCUMENT_TYPES, HEAD_BYTES, FileType, extension, type_by_content
from stormwater.web.uploads import image_without_location, upload_refusal
from stormwater.web.forms import Refusal

from .machines import machine_for
from .models import Case, CaseDocument, CaseEvent, CaseNumber, Clock, ClockExtension, ClockToll

ERR_ILLEGAL = "A {kind} case may not go from “{src}” to “{dst}”."
ERR_FUTURE = "The effective date {on} is in the future."
ERR_BEFORE_LAST = "The effective date {on} is before the case's last status change ({last})."
ERR_TYPES = "Only {labels} files are accepted (this file is not one of them by its content)."
ERR_TYPE = ERR_TYPES.format(labels="PDF, PNG, JPEG and AutoCAD DWG")
ERR_EXTENSION = ("“{name}” is a {label} file by its content, but its name does not end in {exts}: rename it and "
                 "upload it again.")
ERR_SIZE = "The file is larger than the limit of {mb} MB."
ERR_EMPTY = "The file is empty."
ERR_INFECTED = "The file was refused by the virus scan{why}."
ERR_NO_CLOCK = "This case has no running “{kind}” clock."
ERR_EXT_REASON = "An extension needs its reason."

DEFAULT_MAX_UPLOAD_BYTES = 50 * 1024 * 1024


class TransitionError(Refusal):
    """A transition the table or a precondition refuses; the message says why, ``field`` names the input it
    concerns when there is one (a form shows it at that field: web/forms.py). A ``web.forms.Refusal``, so the
    toolkit's ``web.postdata`` shows it as a refusal without importing this app."""


class DocumentError(ValueError):
    pass


def sniff_content_type(head: bytes) -> str | None:
    """The content type a file's first bytes show among the document types, or None if it is none of them."""
    t = type_by_content(head, lambda: head, DOCUMENT_TYPES)
    return t.content_type if t else None


def _labels(types) -> str:
    labels = [t.label for t in types]
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]


def upload_type(name: str, head: bytes, read_all, types: tuple[FileType, ...] = DOCUMENT_TYPES) -> FileType:
    """The allowed type of an upload: its name's extension names one of ``types`` and its content passes that
    type's check (issue 14: extension and content agree); otherwise the refusal says which of the two is wrong."""
    ext = extension(name)
    by_name = next((t for t in types if ext in t.extensions), None)
    if by_name is not None and by_name.check(head, read_all):
        return by_name
    by_content = type_by_content(head, read_all, types)
    if by_content is None:
        raise DocumentError(ERR_TYPES.format(labels=_labels(types)))
    raise DocumentError(ERR_EXTENSION.format(name=name, label=by_content.label,
                                             exts=" or ".join(by_content.extensions)))


def max_upload_bytes() -> int:
    return int(getattr(settings, "CASE_UPLOAD_MAX_BYTES", DEFAULT_MAX_UPLOAD_BYTES))


def upload_scan(upload) -> None:
    """The virus-scan hook: settings.UPLOAD_SCAN_HOOK names a callable ``hook(upload) -> str | None`` that
    returns a reason to refuse (e.g. a ClamAV clamd INSTREAM client); unset (the default) scans nothing."""
    path = getattr(settings, "UPLOAD_SCAN_HOOK", "")
    if not path:
        return
    from django.utils.module_loading import import_string

    upload.seek(0)
    reason = import_string(path)(upload)
    upload.seek(0)
    if reason:
        raise DocumentError(ERR_INFECTED.format(why=f": {reason}" if reason is not True else ""))


def event_record(*, case: Case, kind: str, acting_user, on: date | None = None, why: str = "",
                 data: dict | None = None, from_status: str = "", to_status: str = "") -> CaseEvent:
    return CaseEvent.objects.create(case=case, kind=kind, on=on or timezone.localdate(), actor=_actor(acting_user),
                                    why=why or "", data=data or {}, from_status=from_status, to_status=to_status)


@transaction.atomic
def case_open(*, kind: str, title: str, acting_user, applicant=None, parent: Case | None = None,
              year: int | None = None, on: date | None = None) -> Case:
    """Open a case of a registered kind in its machine's initial status, numbered PREFIX-YYYY-NNNN. ``on``: the day
    it was opened when that is not today (a case converted from the old office, issue 32: its timeline reads as if
    kept here)."""
    machine = machine_for(kind)
    year = year or timezone.localdate().year
    CaseNumber.objects.get_or_create(prefix=machine.number_prefix, year=year)
    counter = CaseNumber.objects.select_for_update().get(prefix=machine.number_prefix, year=year)
    counter.last += 1
    counter.save(update_fields=["last"])
    case = Case.objects.create(kind=kind, number=f"{machine.number_prefix}-{year}-{counter.last:04d}",
                               status=machine.initial, title=title, applicant=applicant, parent=parent)
    event_record(case=case, kind="opened", acting_user=acting_user, to_status=case.status, why=title, on=on)
    audit_record(actor=acting_user, action=f"{kind}.open", obj=case, why=title)
    return case


def _last_status_day(case: Case) -> date | None:
    ev = case.events.filter(kind="status").order_by("-on", "-id").first()
    return ev.on if ev else None


@transaction.atomic
def case_transition(*, case: Case, to: str, acting_user, why: str = "", on: date | None = None,
                    data: dict | None = None, check: Callable[[Case], None] | None = None) -> Case:
    """The one guarded setter of ``Case.status``.

    Locks the row (two staff acting at once must not both move it), checks the kind's table and the
    caller's precondition ``check`` (which raises TransitionError), opens and closes the tolls the
    machine declares for the statuses left and entered, meets the clocks the new status meets,
    and records the change (who, when, effective date, why) on the timeline and in the audit log.
    """
    case = Case.objects.select_for_update().get(pk=case.pk)
    machine = machine_for(case.kind)
    src = case.status
    if not machine.allowed(src, to):
        raise TransitionError(ERR_ILLEGAL.format(kind=case.kind, src=machine.labels.get(src, src),
                                                 dst=machine.labels.get(to, to)))
    today = timezone.localdate()
    on = on or today
    if on > today:
        raise TransitionError(ERR_FUTURE.format(on=on))
    last = _last_status_day(case)
    if last and on < last:
        raise TransitionError(ERR_BEFORE_LAST.format(on=on, last=last))
    if check is not None:
        check(case)

    leaving = dict(machine.tolls.get(src, ()))
    entering = dict(machine.tolls.get(to, ()))
    for clock_kind in leaving.keys() - entering.keys():
        clock = clock_running(case=case, kind=clock_kind)
        if clock is not None:
            ClockToll.objects.filter(clock=clock, last__isnull=True).update(last=on)
    for clock_kind, reason in entering.items():
        if clock_kind in leaving:
            continue  # stays stopped
        clock = clock_running(case=case, kind=clock_kind)
        if clock is not None and not clock.tolls.filter(last__isnull=True).exists():
            ClockToll.objects.create(clock=clock, first=on, reason=reason)
    for clock_kind in machine.meets.get(to, ()):
        clock = clock_running(case=case, kind=clock_kind)
        if clock is not None:
            ClockToll.objects.filter(clock=clock, last__isnull=True).update(last=on)
            clock.met_on = on
            clock.stop_reason = machine.labels.get(to, to)
            clock.save(update_fields=["met_on", "stop_reason"])

    case.status = to
    fields = ["status"]
    if to in machine.closed and case.closed_at is None:
        case.closed_at = timezone.now()
        fields.append("closed_at")
    case.save(update_fields=fields)
    event_record(case=case, kind="status", acting_user=acting_user, on=on, why=why, data=data,
                 from_status=src, to_status=to)
    audit_record(actor=acting_user, action=f"{case.kind}.transition", obj=case, why=why,
                 data={"from": src, "to": to, "on": str(on), **(data or {})})
    return case


# --- clocks --------------------------------------------------------------------------------------

def clock_running(*, case: Case, kind: str) -> Clock | None:
    """The latest clock of ``kind`` on the case that has not been met."""
    return case.clocks.filter(kind=kind, met_on__isnull=True).order_by("-start", "-id").first()


@transaction.atomic
def clock_start(*, case: Case, kind: str, label: str, citation: str, start: date, length: int,
                unit: Unit | str = Unit.CALENDAR, roll: bool = True, window: bool = False, acting_user,
                replace: bool = True) -> Clock:
    """Start a clock. A running clock of the same kind ends (``replace``): a new notice restarts it."""
    if replace:
        old = clock_running(case=case, kind=kind)
        if old is not None:
            clock_meet(clock=old, on=start, reason="replaced by a new clock", acting_user=acting_user)
    clock = Clock.objects.create(case=case, kind=kind, label=label, citation=citation, start=start, length=length,
                                 unit=Unit(unit).value, roll=roll, window=window)
    st = clock.state()
    clock.start_event = event_record(case=case, kind="clock.start", acting_user=acting_user, on=start,
                                     why=f"{label}: {length} {Unit(unit).value} days from {show_day(start)} ({citation})",
                                     data={"clock": kind, "due": str(st.due) if st.due else None})
    clock.save(update_fields=["start_event"])
    return clock


@transaction.atomic
def clock_meet(*, clock: Clock, on: date, reason: str, acting_user) -> Clock:
    clock = Clock.objects.select_for_update().get(pk=clock.pk)
    if clock.met_on is None:
        ClockToll.objects.filter(clock=clock, last__isnull=True).update(last=on)
        clock.met_on = on
        clock.stop_reason = reason
        clock.save(update_fields=["met_on", "stop_reason"])
        event_record(case=clock.case, kind="clock.met", acting_user=acting_user, on=on,
                     why=f"{clock.label}: {reason}", data={"clock": clock.kind})
    return clock


@transaction.atomic
def clock_toll(*, clock: Clock, first: date, reason: str, acting_user) -> ClockToll:
    """Stop a clock from ``first`` (for tolls not tied to a status, e.g. the consultant appeal)."""
    toll = ClockToll.objects.create(clock=clock, first=first, reason=reason)
    event_record(case=clock.case, kind="clock.toll", acting_user=acting_user, on=first,
                 why=f"{clock.label} stopped: {reason}", data={"clock": clock.kind})
    return toll


@transaction.atomic
def clock_resume(*, clock: Clock, last: date, acting_user, why: str = "") -> None:
    """Close the clock's open toll: ``last`` is the last day it stands still."""
    n = ClockToll.objects.filter(clock=clock, last__isnull=True).update(last=last)
    if n:
        st = clock.state()
        event_record(case=clock.case, kind="clock.resume", acting_user=acting_user, on=last,
                     why=f"{clock.label} resumes after {last}" + (f": {why}" if why else ""),
                     data={"clock": clock.kind, "due": str(st.due) if st.due else None})


@transaction.atomic
def clock_extend(*, case: Case, kind: str, days: int, reason: str, acting_user,
                 on: date | None = None) -> ClockExtension:
    """Add ``days`` to a running clock with the reason (§ 380-10 I(2) for the action clock); the timeline dates it
    ``on`` (default today: a case brought in at go-live gives the day the old office extended it)."""
    if not (reason or "").strip():
        raise ValueError(ERR_EXT_REASON)
    clock = clock_running(case=case, kind=kind)
    if clock is None:
        raise ValueError(ERR_NO_CLOCK.format(kind=kind))
    ext = ClockExtension.objects.create(clock=clock, days=days, reason=reason.strip(), actor=_actor(acting_user))
    st = clock.state()
    event_record(case=case, kind="clock.extend", acting_user=acting_user, on=on,
                 why=f"{clock.label} extended by {days} days: {reason}",
                 data={"clock": kind, "days": days, "due": str(st.due) if st.due else None})
    audit_record(actor=acting_user, action="clock.extend", obj=clock, why=reason, data={"days": days})
    return ext


# --- documents -----------------------------------------------------------------------------------

@transaction.atomic
def case_document_add(*, case: Case, upload, tag: str, title: str, acting_user,
                      types: tuple[FileType, ...] = DOCUMENT_TYPES, keep_location: bool = True) -> CaseDocument:
    """Store an upload after checking its size, and its type: the name's extension must be one of ``types``
    (web.filetypes; PDF, PNG, JPEG, DWG unless the service asks for more) and the content must be of that type
    (magic bytes, or for data files UTF-8 that parses), then decoded (``web.uploads.upload_refusal``: no HTML, images
    opened by Pillow within the pixel limit, PDFs without JavaScript or automatic actions). The browser's claimed
    type is never read. ``keep_location=False`` (owner evidence, unless the owner keeps it on purpose) stores a photo
    without its camera's GPS position (``web.uploads.image_without_location``)."""
    size = upload.size
    if not size:
        raise DocumentError(ERR_EMPTY)
    if size > max_upload_bytes():
        raise DocumentError(ERR_SIZE.format(mb=max_upload_bytes() // (1024 * 1024)))
    upload.seek(0)
    head = upload.read(HEAD_BYTES)

    def read_all() -> bytes:
        upload.seek(0)
        data = upload.read()
        upload.seek(0)
        return data

    ftype = upload_type(upload.name, head, read_all, types)
    refusal = upload_refusal(upload.name, read_all(), ftype)  # decoded, not sniffed (issue 27; web.uploads)
    if refusal:
        raise DocumentError(refusal)
    ctype = ftype.content_type
    if not keep_location:
        original = read_all()
        stripped = image_without_location(original, ctype)
        if stripped != original:
            upload, size = ContentFile(stripped, name=upload.name), len(stripped)
    upload_scan(upload)
    upload.seek(0)
    digest = hashlib.sha256()
    for chunk in upload.chunks():
        digest.update(chunk)
    upload.seek(0)
    doc = CaseDocument(case=case, tag=tag, title=title or upload.name, original_name=upload.name[:255],
                       content_type=ctype, size=size, sha256=digest.hexdigest(), uploaded_by=_actor(acting_user))
    doc.file.save(upload.name, upload, save=False)
    doc.save()
    event_record(case=case, kind="document", acting_user=acting_user, why=f"{doc.title} ({upload.name})",
                 data={"document": doc.pk, "tag": tag, "sha256": doc.sha256})
    return doc


@transaction.atomic
def case_document_generate(*, case: Case, content: bytes, filename: str, tag: str, title: str,
                           acting_user) -> CaseDocument:
    """Keep a document the system rendered (a notice, a decision) in the case file."""
    ctype = sniff_content_type(content[:16]) or "application/octet-stream"
    doc = CaseDocument(case=case, tag=tag, title=title, original_name=filename, content_type=ctype,
                       size=len(content), sha256=hashlib.sha256(content).hexdigest(), generated=True,
                       uploaded_by=_actor(acting_user))
    doc.file.save(filename, ContentFile(content), save=False)
    doc.save()
    event_record(case=case, kind="document", acting_user=acting_user, why=f"{title} generated",
                 data={"document": doc.pk, "tag": tag, "sha256": doc.sha256, "generated": True})
    return doc
