"""Open cases at go-live (issue 32): **O&M sites with the last certification** (Ch. 380 § 380-14), moved through the
stewardship domain's own acts (``stewardship.services``) on their real days, so the annual certification — each year
of the 12 months from the recording of the final O&M plan, due on its anniversary rolled past a weekend or holiday
(§ 380-14 B, C(2)(l); MGL c.4 §9; ``stewardship.selectors.certification_period``) — is due, and overdue, as if the site
had been kept here.

The file (CSV or .xlsx through the pipeline; names case-insensitive, aliases in ``ALIASES``), one row per site:
``permit`` (the permit's case number here, whose site is opened with its construction file or here) or ``parcel_id``
(a system older than the permits converted: a site on that parcel), ``plan_recorded_on`` with ``book`` and ``page`` or
``document_number`` (the final plan's recording at the Hampden County Registry of Deeds, § 380-14 B),
``last_certification_on`` (the day the last annual certification was received) and, when more than one year was
certified, ``earlier_certifications_on`` (the earlier ones, oldest first, separated by ``;``); optional ``site_name``,
``site_address``, ``signed_by``.

The acts, each on its day: the site opened (on the recording day, unless open here already), the final plan submitted
(its § 380-14 C contents as recorded by the old office) and recorded with a conversion record in the place of the
registry's proof (``om_plan_record``), then each certification received (``certification_file``: the oldest year not
certified, marked late when received after its due day). Refused, naming the row and field: an unknown permit or
parcel, a date that is not a date or is in the future, dates out of order (recorded ≤ each certification, oldest
first), no book and page nor document number, and whatever the acts refuse (a plan recorded before its permit was
filed, § 380-14 B; a certification before its year is nearly over, § 380-14 C(2)(l) …). Nothing is applied when any row
is refused; re-running the same file changes nothing (the site with that recording and as many certifications is
``unchanged``).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path

from django.utils import timezone

from stormwater.audit.services import audit_record
from stormwater.parcels.models import Parcel

from .cases import CasesResult
from .export import parse_date
from .rows import RowRefused, apply_rows, case_rows, dates_of, read_case_file

TARGETS = ("permit", "parcel_id", "site_name", "site_address", "plan_recorded_on", "book", "page", "document_number",
           "earlier_certifications_on", "last_certification_on", "signed_by")
ALIASES = {"permit": ("permit_number", "permit_no"), "parcel_id": ("parcel", "map_block_lot", "loc_id"),
           "site_name": ("site", "name"), "site_address": ("address",),
           "plan_recorded_on": ("recorded_on", "plan_recorded", "recording_date"),
           "document_number": ("document_no", "instrument_number"),
           "last_certification_on": ("last_certification", "last_certified_on"),
           "earlier_certifications_on": ("earlier_certifications", "certifications_on")}
REQUIRED = ("plan_recorded_on",)
CONVERTED = "as recorded in the old office's file (converted, issue 32)"
# Where an act's refusal points (its posted input) → the file's column.
FIELDS = {"recorded_on": "plan_recorded_on", "book": "book", "page": "book", "file": "plan_recorded_on"}


@dataclass
class _Row:
    n: int
    permit: object
    parcel: Parcel | None
    site: object
    recorded: date
    certs: list  # (column, day), oldest first
    get: dict


def _check(get, refuse, today: date) -> tuple[date, list] | None:
    days = dates_of(get, refuse, ("plan_recorded_on", "last_certification_on"), today)
    if not get("plan_recorded_on"):
        refuse("plan_recorded_on", "required: the day the final O&M plan was recorded (§ 380-14 B)")
    if not get("permit") and not get("parcel_id"):
        refuse("parcel_id", "required: the permit or the parcel of the site")
    if not ((get("book") and get("page")) or get("document_number")):
        refuse("book", "required: the book and page, or the document number, of the recording at the Hampden County "
                       "Registry of Deeds (§ 380-14 B)")
    earlier = []
    for part in [x.strip() for x in get("earlier_certifications_on").split(";") if x.strip()]:
        day = parse_date(part)
        if day is None:
            refuse("earlier_certifications_on", f"{part!r} is not a date")
            return None
        earlier.append(("earlier_certifications_on", day))
    if earlier and not days["last_certification_on"]:
        refuse("last_certification_on", "required with earlier_certifications_on (the last one received)")
        return None
    if not days["plan_recorded_on"]:
        return None
    certs = earlier + ([("last_certification_on", days["last_certification_on"])]
                       if days["last_certification_on"] else [])
    prev_col, prev = "plan_recorded_on", days["plan_recorded_on"]
    for c, day in certs:
        if day < prev:
            refuse(c, f"dates out of order: a certification received {day} before {prev_col.replace('_', ' ')} "
                      f"{prev} (each year's certification follows the recording, § 380-14 C(2)(l))")
            return None
        prev_col, prev = c, day
    return days["plan_recorded_on"], certs


def _convert(r: _Row, user) -> str:
    """One site through the stewardship domain's acts on their days (an act's refusal raised with its column)."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from stormwater.cases.services import TransitionError
    from stormwater.stewardship import services as ss
    from stormwater.stewardship.contents import OM_ITEMS
    from stormwater.utility.documents import render_pdf

    g = r.get
    step = ["plan_recorded_on"]
    try:
        site = r.site
        if site is None:
            where = r.permit.site_address if r.permit is not None else r.parcel.address
            parcels = list(r.permit.parcels.all()) if r.permit is not None else [r.parcel]
            site = ss.site_open(name=g.get("site_name") or where, address=g.get("site_address") or where,
                                permit=r.permit, parcels=parcels, acting_user=user, on=r.recorded)
        plan = ss.om_plan_submit(site=site, final=True, acting_user=user,
                                 items={i.key: f"in the plan recorded, {CONVERTED}" for i in OM_ITEMS})
        recording = (f"Book {g['book']} Page {g['page']}" if g.get("book") and g.get("page")
                     else f"document no. {g.get('document_number')}")
        record = render_pdf("stewardship/pdf_letter.html", {
            "site": site, "case": site.case, "on": r.recorded, "citation": "Ch. 380 § 380-14 B", "items": [],
            "to_name": "", "subject": "Recording of the final O&M plan, converted from the old office",
            "paragraphs": [f"The final O&M plan of this system was recorded at the Hampden County Registry of Deeds, "
                           f"{recording}, on {r.recorded:%B %d, %Y}, {CONVERTED}.",
                           "The registry's proof of recording is kept in the old office's file."]})
        ss.om_plan_record(plan=plan, recorded_on=r.recorded, acting_user=user, book=g.get("book", ""),
                          page=g.get("page", ""), document_number=g.get("document_number", ""),
                          proof_upload=SimpleUploadedFile(f"{site.case.number}-recording-converted.pdf", record,
                                                          content_type="application/pdf"))
        for c, day in r.certs:
            step[0] = c
            ss.certification_file(site=site, received_on=day, acting_user=user,
                                  work_summary=f"The work of the year certified to the old office, {CONVERTED}.",
                                  signed_by=g.get("signed_by") or CONVERTED)
    except (ss.StewardshipError, TransitionError) as e:
        field = getattr(e, "field", None)
        raise RowRefused(str(e), step[0] if step[0] != "plan_recorded_on" else FIELDS.get(field, step[0])) from None
    audit_record(actor=user, action="golive.site", obj=site, why=f"row {r.n}")
    return site.case.number


def sites_convert(*, path: str | Path, acting_user, apply: bool = False, source: str | None = None) -> CasesResult:
    """Convert the old office's O&M sites (see the module). Dry run unless ``apply``."""
    from stormwater.cases.services import TransitionError
    from stormwater.permits.models import PermitApplication
    from stormwater.stewardship.models import Site
    from stormwater.stewardship.selectors import final_plan_recorded
    from stormwater.stewardship.services import StewardshipError

    t, name, problems, low = read_case_file(path, source=source, targets=TARGETS, aliases=ALIASES, required=REQUIRED)
    if "permit" not in low and "parcel_id" not in low:
        from stormwater.imports.pipeline import error, refuse_on_errors

        problems.append(error("missing_column", name, "the file has no column permit or parcel_id"))
        refuse_on_errors(name, problems)
    today = timezone.localdate()
    col = lambda c: low.get(c, c)  # noqa: E731
    cells = lambda c: [r.get(low[c], "").strip() for r in t.rows] if c in low else []  # noqa: E731
    permits = {a.case.number: a for a in PermitApplication.objects.filter(case__number__in=cells("permit"))
               .select_related("case")}
    parcels = {p.parcel_id: p for p in Parcel.objects.filter(parcel_id__in=cells("parcel_id"))}
    bad: list[str] = []
    todo: list[_Row] = []
    res = CasesResult(rows=len(t.rows), problems=problems, dry_run=not apply)
    seen: set = set()
    for n, vals, get, refuse in case_rows(t, low, bad):
        permit, parcel = permits.get(get("permit")), parcels.get(get("parcel_id"))
        if get("permit") and permit is None:
            refuse("permit", f"no permit {get('permit')!r} (convert the permit files first: --kind permits)")
        elif get("parcel_id") and parcel is None:
            refuse("parcel_id", f"no parcel {get('parcel_id')!r}")
        v = _check(get, refuse, today)
        if v is None or (permit is None and parcel is None):
            continue
        recorded, certs = v
        site = (Site.objects.filter(permit=permit) if permit is not None
                else Site.objects.filter(parcels=parcel, permit__isnull=True)).order_by("id").first()
        key = ("permit", permit.pk) if permit is not None else ("parcel", parcel.pk)
        if key in seen:
            refuse("permit" if permit is not None else "parcel_id", "the same site on an earlier row")
            continue
        seen.add(key)
        plan = final_plan_recorded(site) if site is not None else None
        if plan is not None:
            if plan.recorded_on == recorded and plan.certifications.count() == len(certs):
                res.unchanged += 1
            else:
                refuse("plan_recorded_on", f"its site {site.case.number} is here already with other figures "
                                           f"(recorded {plan.recorded_on}, {plan.certifications.count()} certified)")
            continue
        todo.append(_Row(n=n, permit=permit, parcel=parcel, site=site, recorded=recorded, certs=certs, get=vals))
    return apply_rows(todo, lambda r: _convert(r, acting_user), res=res, bad=bad, col=col, apply=apply, name=name,
                      problems=problems, what="O&M sites", refusals=(StewardshipError, TransitionError))
