"""Issue 30: the inspection report page shows the signature drawn on the screen (not only the PDF), served as an
image only to those who may see the report."""
from __future__ import annotations

from datetime import date

from stormwater.construction import services as cs

from .images import png_bytes
from .test_field_reports import _field_report, site  # noqa: F401  (fixture)


def test_the_drawn_signature_is_shown_on_the_report_page(site, personas, at, client_for):  # noqa: F811
    project, fence, exit_ = site
    at(date(2026, 4, 21), 11)
    insp = cs.inspection_report_file(project=project, report=_field_report(fence, exit_),
                                     acting_user=personas["inspector"])
    n = project.case.number
    page = client_for(personas["inspector"]).get(f"/construction/{n}/inspections/{insp.pk}/").content.decode()
    src = f"/construction/{n}/inspections/{insp.pk}/signature.png"
    assert f'src="{src}"' in page and 'alt="Signature of Ivy Inspector' in page
    for who in ("inspector", "owner", "director"):
        r = client_for(personas[who]).get(src)
        assert r.status_code == 200 and r["Content-Type"] == "image/png", who
        assert b"".join(r.streaming_content) == png_bytes(), who
    assert client_for(personas["outsider"]).get(src).status_code == 404
