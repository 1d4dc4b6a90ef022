"""Plan sheets with the review on them (issue 19): the plan set PDF of a permit case, reviewers' comments
pinned to a sheet and a point (each tied to a checklist item or a standard), the applicant's answers on
resubmission, and the review letter. State changes here (one transaction and one audit row each);
reads at the bottom.

The plan set is a document of the permit case's file (``cases.CaseDocument``, tag ``plan_set``): the
comment history belongs to the case, so every review run on the case and every revised set share it.
"""
from __future__ import annotations

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from stormwater.audit.services import actor_or_none as _user, audit_record
from stormwater.cases.models import Case
from stormwater.cases.services import DocumentError, case_document_add, event_record

from .models import CommentResponse, PlanSheetSet, Review, SheetComment

ERR_NOT_PDF = "file: the plan set must be a PDF"
ERR_NO_CASE = "case: attach the review to a permit case first (plan sheets belong to the case file)"
ERR_TEXT = "text: write the comment"
ERR_REF = "ref: tie the comment to a checklist item or a standard"
ERR_POINT = "point: click the sheet where the comment belongs (or give the sheet and the position in %)"
ERR_ANSWERS = "answers: answer every open comment ({numbers}) when you resubmit"
ERR_RESOLVED = "comment: already resolved"
PLAN_SET_TAG = "plan_set"
HYDROCAD_TAG = "hydrocad_report"


class SheetError(ValueError):
    """A refused act on plan sheets; the message starts with the field."""


def _lock_case(case: Case) -> Case:
    # Versions and comment numbers are "the next one": lock the case row so two uploads cannot take the same.
    return Case.objects.select_for_update().get(pk=case.pk)


def _pdf_document(*, case: Case, upload, tag: str, title: str, acting_user):
    try:
        doc = case_document_add(case=case, upload=upload, tag=tag, title=title, acting_user=acting_user)
    except DocumentError as e:
        raise SheetError(f"file: {e}") from None
    if doc.content_type != "application/pdf":
        raise SheetError(ERR_NOT_PDF)
    return doc


@transaction.atomic
def plan_sheets_upload(*, case: Case, upload, acting_user, note: str = "") -> PlanSheetSet:
    """File a plan set (PDF) in the case as its next version."""
    case = _lock_case(case)
    version = (PlanSheetSet.objects.filter(case=case).aggregate(v=Max("version"))["v"] or 0) + 1
    doc = _pdf_document(case=case, upload=upload, tag=PLAN_SET_TAG, title=f"Plan set v{version}",
                        acting_user=acting_user)
    s = PlanSheetSet.objects.create(case=case, document=doc, version=version, note=(note or "").strip(),
                                    submitted_by=_user(acting_user))
    audit_record(actor=acting_user, action="plan_sheets.upload", obj=s, why=s.note or f"plan set v{version}",
                 data={"case": case.number, "version": version, "sha256": doc.sha256})
    return s


@transaction.atomic
def review_document_add(*, review: Review, upload, acting_user) -> object:
    """The applicant's HydroCAD report (its files are closed: the PDF report is what exists), kept in the
    review's case file beside the plan (tag ``hydrocad_report``)."""
    if review.case is None:
        raise SheetError(ERR_NO_CASE)
    doc = _pdf_document(case=review.case, upload=upload, tag=HYDROCAD_TAG,
                        title=f"HydroCAD report (review {review.pk})", acting_user=acting_user)
    audit_record(actor=acting_user, action="review.document_add", obj=review, why=doc.title,
                 data={"document": doc.pk, "sha256": doc.sha256})
    return doc


@transaction.atomic
def review_case_attach(*, review: Review, case: Case, acting_user) -> Review:
    """Attach a review run without a case to the permit case it belongs to (once)."""
    r = Review.objects.select_for_update().get(pk=review.pk)
    if r.case_id is not None:
        raise SheetError("case: the review is already attached to a case")
    r.case = case
    r.save(update_fields=["case"])
    event_record(case=case, kind="engineering_review", acting_user=acting_user,
                 why=f"Engineering review {r.pk} attached: {r.results.get('overall_label', '')}",
                 data={"review": r.pk, "overall": r.overall})
    audit_record(actor=acting_user, action="review.case_attach", obj=r, why=case.number, data={"case": case.number})
    return r


@transaction.atomic
def sheet_comment_add(*, sheet_set: PlanSheetSet, page: int, x: float, y: float, text: str, ref_key: str,
                      ref_label: str, acting_user, sheet_label: str = "", review: Review | None = None) -> SheetComment:
    """Pin a comment to a sheet and a point (x, y as fractions of the sheet from its top-left corner)."""
    text, ref_key = (text or "").strip(), (ref_key or "").strip()
    if not text:
        raise SheetError(ERR_TEXT)
    if not ref_key:
        raise SheetError(ERR_REF)
    if not (isinstance(page, int) and page >= 1 and 0.0 <= x <= 1.0 and 0.0 <= y <= 1.0):
        raise SheetError(ERR_POINT)
    if sheet_set.pages and page > sheet_set.pages:
        raise SheetError(f"point: the plan set has {sheet_set.pages} sheets")
    case = _lock_case(sheet_set.case)
    number = (SheetComment.objects.filter(case=case).aggregate(n=Max("number"))["n"] or 0) + 1
    c = SheetComment.objects.create(case=case, sheet_set=sheet_set, review=review, number=number, page=page, x=x, y=y,
                                    sheet_label=(sheet_label or "").strip()[:40], ref_key=ref_key[:120],
                                    ref_label=(ref_label or ref_key)[:400], text=text, author=_user(acting_user))
    event_record(case=case, kind="sheet_comment", acting_user=acting_user,
                 why=f"Comment {number} on sheet {page} of plan set v{sheet_set.version}: {c.ref_label}",
                 data={"comment": c.pk, "number": number, "page": page, "ref": c.ref_key})
    audit_record(actor=acting_user, action="sheet_comment.add", obj=c, why=text[:200],
                 data={"case": case.number, "number": number, "set": sheet_set.version, "page": page,
                       "x": round(x, 4), "y": round(y, 4), "ref": c.ref_key})
    return c


@transaction.atomic
def sheet_comment_resolve(*, comment: SheetComment, note: str, acting_user) -> SheetComment:
    c = SheetComment.objects.select_for_update().get(pk=comment.pk)
    if c.resolved_at is not None:
        raise SheetError(ERR_RESOLVED)
    c.resolved_at, c.resolved_by, c.resolution = timezone.now(), _user(acting_user), (note or "").strip()
    c.save(update_fields=["resolved_at", "resolved_by", "resolution"])
    audit_record(actor=acting_user, action="sheet_comment.resolve", obj=c, why=c.resolution or "resolved",
                 data={"case": c.case.number, "number": c.number})
    return c


@transaction.atomic
def plan_sheets_resubmit(*, case: Case, upload, answers: dict[int, str], acting_user, note: str = "") -> PlanSheetSet:
    """The applicant's resubmission: a revised plan set and an answer to every open comment."""
    open_comments = list(SheetComment.objects.filter(case=case, resolved_at__isnull=True).order_by("number"))
    missing = [c.number for c in open_comments if not (answers.get(c.pk) or "").strip()]
    if missing:
        raise SheetError(ERR_ANSWERS.format(numbers=", ".join(map(str, missing))))
    s = plan_sheets_upload(case=case, upload=upload, acting_user=acting_user, note=note or "revised plan set")
    for c in open_comments:
        CommentResponse.objects.create(comment=c, sheet_set=s, text=answers[c.pk].strip(), author=_user(acting_user))
    event_record(case=case, kind="plan_resubmitted", acting_user=acting_user,
                 why=f"Plan set v{s.version} with answers to {len(open_comments)} comment(s)",
                 data={"set": s.version, "answered": [c.number for c in open_comments]})
    audit_record(actor=acting_user, action="plan_sheets.resubmit", obj=s, why=f"v{s.version}",
                 data={"case": case.number, "answered": [c.number for c in open_comments]})
    return s


# --- reads --------------------------------------------------------------------------------------------

def sheet_sets_of(case: Case | None) -> list[PlanSheetSet]:
    if case is None:
        return []
    return list(PlanSheetSet.objects.filter(case=case).select_related("document", "submitted_by"))


def comments_of(case: Case | None) -> list[SheetComment]:
    if case is None:
        return []
    return list(SheetComment.objects.filter(case=case).select_related("sheet_set", "author", "resolved_by")
                .prefetch_related("responses__author", "responses__sheet_set"))


def ref_choices(review: Review | None) -> list[tuple[str, list[tuple[str, str]]]]:
    """What a comment can be tied to: the review's standards (in MassDEP checklist order) and the
    reviewer's checklist items of Ch. 380 (workbench catalog)."""
    from stormwater.workbench.catalog import CHECKLISTS, entries_of

    groups: list[tuple[str, list[tuple[str, str]]]] = []
    if review is not None:
        rows = {s["key"]: s for s in review.results.get("standards", [])}
        for sec in review.results.get("checklist", []):
            opts = []
            for it in sec["items"]:
                for k in it["rows"]:
                    if k in rows:
                        opts.append((f"row:{k}", f"{sec['title']}: {rows[k]['title']}"))
            if opts:
                groups.append((sec["title"], opts))
    for cl in CHECKLISTS:
        groups.append((f"Checklist: {cl.title}", [(f"item:{e.para}", f"§ {e.para} — {e.text[:90]}")
                                                  for e in entries_of(cl.key) if e.is_item]))
    return groups


def pins_of(comments: list[SheetComment], sheet_set: PlanSheetSet | None) -> list[dict]:
    """The pins drawn on a set: the comments made on that set."""
    if sheet_set is None:
        return []
    return [{"number": c.number, "page": c.page, "x": c.x, "y": c.y, "label": f"{c.ref_label}: {c.text[:120]}",
             "resolved": c.resolved_at is not None} for c in comments if c.sheet_set_id == sheet_set.pk]
