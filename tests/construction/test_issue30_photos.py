"""Issue 30, the inspector's phone: photo captions (typed on the phone under each photo, kept with the photo,
shown on the report page and in the PDF)."""
from stormwater.construction.models import Inspection

from .images import jpeg_bytes, upload
from .test_field_web import KEY, _post, day  # noqa: F401  (the fixture)


def test_each_photo_keeps_its_caption(day, client_for, personas):
    project, storm = day
    c = client_for(personas["inspector"])
    data = _post(project, storm, **{
        "photos-caption": ["North gate, looking south", ""],
        "row-0-photos": [upload("fence.jpg", jpeg_bytes(color=(10, 90, 200)))],
        "row-0-photos-caption": ["Silt fence intact after the storm"]})
    r = c.post("/field/reports/", data)
    assert r.status_code == 201, r.content
    insp = Inspection.objects.get(client_key=KEY)
    got = {(ph.document.original_name, ph.row_id is not None): ph.caption for ph in insp.photos.select_related("document")}
    assert got == {("a.jpg", False): "North gate, looking south", ("b.jpg", False): "",
                   ("fence.jpg", True): "Silt fence intact after the storm"}
    page = c.get(r.json()["url"]).content.decode()
    assert "North gate, looking south" in page and "Silt fence intact after the storm" in page
    assert 'alt="Photo 1: North gate, looking south' in page


def test_a_caption_longer_than_the_field_is_refused_by_name(day, client_for, personas):
    project, storm = day
    r = client_for(personas["inspector"]).post("/field/reports/", _post(project, storm, **{
        "photos-caption": ["x" * 301, ""]}))
    assert r.status_code == 400 and "a.jpg" in r.json()["errors"][0] and "300" in r.json()["errors"][0]
    assert not Inspection.objects.filter(client_key=KEY).exists()


def test_the_report_pdf_prints_the_caption(day, client_for, personas):
    from django.template.loader import render_to_string

    from stormwater.construction.documents import inspection_report_context

    project, storm = day
    r = client_for(personas["inspector"]).post("/field/reports/", _post(project, storm, **{
        "photos-caption": ["North gate, looking south", ""]}))
    assert r.status_code == 201, r.content
    html = render_to_string("construction/pdf/inspection_report.html",
                            inspection_report_context(Inspection.objects.get(client_key=KEY)))
    assert "North gate, looking south" in html
