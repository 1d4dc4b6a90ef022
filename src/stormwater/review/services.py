"""State changes of the review app: load/retire an official BMP table, run a review (one transaction
and one audit row each)."""
from __future__ import annotations

import hashlib

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from stormwater.audit.services import actor_or_none as _user, audit_record
from stormwater.engineering.water_quality import load_performance_table
from stormwater.townconfig import town_config

from .engine import ReviewError, review_compute
from .models import ApplicantFigures, BmpTable, Review
from .plan import PlanError, plan_parse
from .selectors import case_get_for_review, performance_tables_in_force
from .swmm import compare as swmm_compare

MAX_INPUT_BYTES = 2 * 1024 * 1024
ERR_NO_CASE = "case: no such case (or it is not one you work on)"
ERR_TOO_BIG = "file: larger than 2 MB"


class ReviewInputError(ValueError):
    """The upload cannot be reviewed; the message starts with the field's path."""




@transaction.atomic
def bmp_table_load(*, name: str, source_citation: str, csv_text: str, provisional: bool = False,
                   acting_user) -> BmpTable:
    """Load an official BMP performance table (§ 380-11 A(4), D(2)(a)) as the next version of ``name``.

    The CSV is checked by the engine's own loader (columns bmp, pollutant, infiltration_rate_in_hr,
    storage_depth_in, removal; two or more depths per curve; removal 0-1 or 0-100 %) before it is stored.
    """
    name = (name or "").strip()
    source_citation = (source_citation or "").strip()
    if not name:
        raise ValueError("name: required")
    if not source_citation:
        raise ValueError("source_citation: required (the document, table and date the numbers come from)")
    table = load_performance_table(csv_text, name=name, source_note=source_citation, provisional=provisional)
    # Lock the name's rows so two loads of the same name cannot take the same version number.
    current = (BmpTable.objects.select_for_update().filter(name=name).aggregate(v=Max("version"))["v"] or 0)
    bmps = sorted({b for b, _ in table.curves})
    pollutants = sorted({p for _, p in table.curves})
    t = BmpTable.objects.create(
        name=name, version=current + 1, source_citation=source_citation, provisional=provisional,
        csv_text=csv_text, sha256=hashlib.sha256(csv_text.encode("utf-8")).hexdigest(),
        summary={"bmps": bmps, "pollutants": pollutants, "curves": sum(len(v) for v in table.curves.values())},
        loaded_by=_user(acting_user))
    audit_record(actor=acting_user, action="bmp_table.load", obj=t, why=source_citation,
                 data={"name": name, "version": t.version, "sha256": t.sha256, "bmps": bmps, "pollutants": pollutants})
    return t


@transaction.atomic
def bmp_table_retire(*, table: BmpTable, reason: str, acting_user) -> BmpTable:
    """Take a table out of force (it stays stored: past reviews name it)."""
    reason = (reason or "").strip()
    if not reason:
        raise ValueError("reason: required")
    t = BmpTable.objects.select_for_update().get(pk=table.pk)
    if t.retired_at is not None:
        raise ValueError("table: already retired")
    t.retired_at, t.retired_by, t.retired_reason = timezone.now(), _user(acting_user), reason
    t.save(update_fields=["retired_at", "retired_by", "retired_reason"])
    audit_record(actor=acting_user, action="bmp_table.retire", obj=t, why=reason, data={"name": t.name, "version": t.version})
    return t


@transaction.atomic
def review_run(*, input_text: str, acting_user, input_name: str = "", title: str = "",
               case_number: str = "") -> Review:
    """Recompute an uploaded stormwater management plan and store the report (Ch. 380 § 380-11, § 380-12).

    Raises :class:`ReviewInputError` (message starting with the field path) if the file cannot be read
    or computed; nothing is stored then.
    """
    if len(input_text.encode("utf-8")) > MAX_INPUT_BYTES:
        raise ReviewInputError(ERR_TOO_BIG)
    case = None
    if case_number.strip():
        case = case_get_for_review(user=acting_user, number=case_number)
        if case is None:
            raise ReviewInputError(ERR_NO_CASE)
    try:
        plan, _, fmt = plan_parse(input_text, name=input_name)
        rows, tables = performance_tables_in_force()
        results = review_compute(plan, tables=tables, town=town_config(), swmm_compare=swmm_compare)
    except (PlanError, ReviewError) as e:
        raise ReviewInputError(str(e)) from None
    used_names = {u["name"] for u in results["tables_used"]}
    results["tables_in_force"] = [{"id": t.pk, "name": t.name, "version": t.version, "label": t.label,
                                   "source": t.source_citation, "provisional": t.provisional,
                                   "used": t.label in used_names} for t in rows]
    review = Review.objects.create(
        title=(title or plan.project.name)[:300], input_name=input_name[:255], input_format=fmt,
        input_text=input_text, input_sha256=hashlib.sha256(input_text.encode("utf-8")).hexdigest(),
        results=results, overall=results["overall"], provisional=results["provisional"],
        engine_version=results["engine"], case=case, created_by=_user(acting_user))
    review.tables.set(rows)
    audit_record(actor=acting_user, action="review.run", obj=review, why=review.title,
                 data={"overall": review.overall, "provisional": review.provisional, "counts": results["counts"],
                       "input_sha256": review.input_sha256, "case": case.number if case else None})
    if case is not None:
        from stormwater.cases.services import event_record

        event_record(case=case, kind="engineering_review", acting_user=acting_user,
                     why=f"Engineering review {review.pk}: {results['overall_label']}"
                         f"{' (provisional)' if review.provisional else ''}",
                     data={"review": review.pk, "overall": review.overall})
    return review


@transaction.atomic
def applicant_figures_keep(*, review: Review, rows: list[dict], tolerances, source: str, acting_user,
                           file_name: str = "") -> ApplicantFigures:
    """Keep the applicant's HydroCAD/SWMM figures for a review (issue 31): ``rows`` already checked
    (review/compare.py ``check_row`` / ``figures_from_csv``), ``tolerances`` a ``compare.Tolerances``.
    A new row each time; the latest is the one shown."""
    figs = ApplicantFigures.objects.create(
        review=review, rows=rows, peak_tol_pct=tolerances.peak_pct, volume_tol_pct=tolerances.volume_pct,
        elev_tol_ft=tolerances.elev_ft, source=source, file_name=file_name[:255], entered_by=_user(acting_user))
    audit_record(actor=acting_user, action="review.applicant_figures", obj=review, why=f"{len(rows)} rows ({source})",
                 data={"figures": figs.pk, "rows": len(rows), "source": source, "file": file_name,
                       "tolerances": [tolerances.peak_pct, tolerances.volume_pct, tolerances.elev_ft]})
    return figs
