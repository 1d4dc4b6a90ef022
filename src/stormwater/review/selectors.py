"""Reads of the review app: the BMP tables in force and the one way to reach a review."""
from __future__ import annotations

from functools import lru_cache

from django.db.models import Q, QuerySet
from django.http import Http404

from stormwater.accounts.roles import Perm
from stormwater.engineering.water_quality import PerformanceCurveTable, load_performance_table

from .models import ApplicantFigures, BmpTable, Review


def bmp_tables_in_force() -> list[BmpTable]:
    """The latest version of each table name that is not retired, most recently loaded first.

    Precedence when two tables cover the same BMP and pollutant: the most recently loaded wins.
    """
    latest: dict[str, BmpTable] = {}
    for t in BmpTable.objects.order_by("name", "-version"):
        latest.setdefault(t.name, t)
    return sorted((t for t in latest.values() if t.retired_at is None), key=lambda t: (t.loaded_at, t.pk),
                  reverse=True)


@lru_cache(maxsize=64)
def _parsed(pk: int, sha256: str, label: str, source: str, provisional: bool, csv_text: str) -> PerformanceCurveTable:
    # Keyed by content hash: a table row is never edited, so a cached parse cannot go stale.
    return load_performance_table(csv_text, name=label, source_note=source, provisional=provisional)


def performance_table(t: BmpTable) -> PerformanceCurveTable:
    return _parsed(t.pk, t.sha256, t.label, t.source_citation, t.provisional, t.csv_text)


def performance_tables_in_force() -> tuple[list[BmpTable], tuple[PerformanceCurveTable, ...]]:
    """The tables in force, as rows and as engine tables (same order)."""
    rows = bmp_tables_in_force()
    return rows, tuple(performance_table(t) for t in rows)


def reviews_for_user(*, user) -> QuerySet[Review]:
    """Every review for REVIEW_VIEW_ALL; otherwise the user's own runs and reviews attached to a case the
    user is a party to (an outside consultant engaged on the permit)."""
    qs = Review.objects.select_related("created_by", "case")
    if user.can(Perm.REVIEW_VIEW_ALL):
        return qs
    if not user.can(Perm.REVIEW_RUN):
        return qs.none()
    return qs.filter(Q(created_by=user) | Q(case__parties__user=user)).distinct()


def review_get_for_user(*, user, review_id: int) -> Review:
    """The review, or 404 when it does not exist or the user may not see it (same answer: no probing)."""
    r = reviews_for_user(user=user).filter(pk=review_id).first()
    if r is None:
        raise Http404("no such review")
    return r


def case_get_for_review(*, user, number: str):
    """The permit case a user may attach a review to: any case with PERMIT_VIEW_ALL, else one of the permits the
    user sees as one of its people (``permits.selectors.permits_for_user``: the applicant, the owner, a linked design
    engineer, the outside consultant engaged on it — issue 18: an engaged consultant was refused with 400)."""
    from stormwater.cases.models import Case
    from stormwater.permits.selectors import permits_for_user

    qs = Case.objects.filter(number=number.strip())
    if not user.can(Perm.PERMIT_VIEW_ALL):
        qs = qs.filter(Q(parties__user=user) | Q(permit__in=permits_for_user(user).values("pk")))
    return qs.first()


def applicant_figures_latest(*, review: Review) -> ApplicantFigures | None:
    """The applicant's figures the report shows for a review: the latest entered (issue 31)."""
    return review.applicant_figures.select_related("entered_by").first()


def applicant_comparison(*, review: Review) -> dict | None:
    """The latest applicant's figures beside the review's numbers (review/compare.py), or None."""
    from .compare import Tolerances, compare

    figs = applicant_figures_latest(review=review)
    if figs is None:
        return None
    cmp = compare(review.results, figs.rows, Tolerances(figs.peak_tol_pct, figs.volume_tol_pct, figs.elev_tol_ft))
    return {**cmp, "figures": figs}
