"""The compliance report as a PDF (WeasyPrint, through utility.documents.render_pdf), plots embedded."""
from __future__ import annotations

from stormwater.utility.documents import render_pdf

from .plots import PlotNotFound, hydrograph_svg, svg_data_uri
from .present import report_view


def _plot_uri(results: dict):
    def src(storm: str, node: str) -> str:
        try:
            return svg_data_uri(hydrograph_svg(results, storm, node))
        except PlotNotFound:
            return ""
    return src


def review_pdf(review) -> bytes:
    view = report_view(review.results, plot_src=_plot_uri(review.results))
    return render_pdf("review/report_pdf.html", {"review": review, "r": review.results, "v": view})
