"""The compliance report as a PDF (WeasyPrint, through utility.documents.render_pdf), plots embedded."""
from __future__ import annotations

from stormwater.utility.documents import render_pdf

from .plots import PlotNotFound, svg_data_uri
from .stageplots import plot_svg
from .present import report_view
from .selectors import applicant_comparison


def _plot_uri(results: dict):
    def src(storm: str, node: str) -> str:
        try:
            return svg_data_uri(plot_svg(results, storm, node))
        except PlotNotFound:
            return ""
    return src


def reviewer_contact(user) -> dict | None:
    """The reviewer as printed on a review report or letter (issue 18): name, credentials (e.g. "PE MA No. 45678"),
    role or firm, e-mail and telephone (the sign-up's registration, where there is one)."""
    if user is None:
        return None
    reg = getattr(user, "registration", None) if hasattr(user, "registration") else None
    return {"name": user.get_full_name() or user.username, "credentials": user.credentials,
            "role": user.get_role_display(), "firm": reg.firm if reg else "", "email": user.email,
            "phone": reg.phone if reg else ""}


def review_pdf(review) -> bytes:
    view = report_view(review.results, plot_src=_plot_uri(review.results))
    return render_pdf("review/report_pdf.html", {"review": review, "r": review.results, "v": view,
                                                 "reviewer": reviewer_contact(review.created_by),
                                                 "cmp": applicant_comparison(review=review)})
