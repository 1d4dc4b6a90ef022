"""Constants shared by the review tests (a module of its own: ``conftest`` is ambiguous across test folders)."""
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "commercial-5-acre.yaml"

# A TSS table for tests: made-up points, loaded as a DPW engineer would load the official one.
TEST_TSS_CSV = """# test table (not official numbers)
bmp,pollutant,infiltration_rate_in_hr,storage_depth_in,removal
infiltration_trench,TSS,,0.1,60
infiltration_trench,TSS,,2.0,95
extended_dry_detention_basin,TSS,,0.1,30
extended_dry_detention_basin,TSS,,2.0,60
"""


def plan_set_pdf(sheets=("C-1 Site plan", "C-2 Grading and drainage", "C-3 Details"), *, revision: str = "") -> bytes:
    """A small plan set: one landscape page per sheet, its title block at the bottom right (WeasyPrint)."""
    from weasyprint import HTML

    pages = "".join(
        f'<section><div class="frame"><p class="draw">{name.split(" ", 1)[1]}{(" — " + revision) if revision else ""}</p>'
        f'<div class="tb">Longmeadow Commons (example)<br>Sheet <b>{name.split(" ", 1)[0]}</b> · {i} of {len(sheets)}</div>'
        "</div></section>" for i, name in enumerate(sheets, 1))
    html = ("<html><head><style>@page { size: 11in 8.5in; margin: 0.4in } section { page-break-after: always; "
            "height: 7.6in } .frame { border: 2px solid #000; height: 7.5in; position: relative } "
            ".draw { font: 28pt sans-serif; margin: 2in 0 0 1in } .tb { position: absolute; right: 0; bottom: 0; "
            "border-left: 2px solid #000; border-top: 2px solid #000; padding: 8pt; font: 12pt sans-serif }"
            "</style></head><body>" + pages + "</body></html>")
    return HTML(string=html).write_pdf()
