"""Issue 30, the inspector's phone: a control (CGP 2022 Part 2) or a BMP found on the site added from the field —
from the day's list, with the phone's position for a BMP — and a row of the report forms from then on."""
from stormwater.construction.models import SiteControl
from stormwater.stewardship.models import Bmp

from .test_field_web import day  # noqa: F401  (the fixture)


def test_the_day_offers_to_add_a_control_and_it_becomes_a_row_of_the_report(day, client_for, personas):
    project, _ = day
    n = project.case.number
    c = client_for(personas["inspector"])
    html = c.get("/field/today/").content.decode()
    stop = html.split(f'id="stop-{n}"')[1].split("</li>\n</ol>")[0]
    assert f'action="/field/{n}/site/"' in stop and "Add a control or BMP" in stop
    r = c.post(f"/field/{n}/site/", {"what": "control", "kind": "inlet", "name": "Inlet filter at CB-2",
                                     "location": "Elm St catch basin", "next": "/field/today/"})
    assert r.status_code == 302 and r["Location"] == "/field/today/"
    ctl = SiteControl.objects.get(project=project, name="Inlet filter at CB-2")
    assert ctl.kind == "inlet" and ctl.location == "Elm St catch basin" and ctl.added_by == personas["inspector"]
    assert "Inlet filter at CB-2" in c.get(f"/field/{n}/report/?kind=erosion_routine").content.decode()


def test_a_bmp_goes_to_the_permits_stewardship_file_with_the_phones_position(day, client_for, personas):
    from stormwater.stewardship.models import Site

    project, _ = day
    n = project.case.number
    c = client_for(personas["inspector"])
    bad = c.post(f"/field/{n}/site/", {"what": "bmp", "name": "Rain garden 1", "source_type": "Bioretention",
                                       "latitude": "north", "longitude": "-72.5827", "next": "/field/today/"})
    assert bad.status_code == 400 and "is not a position in degrees" in bad.content.decode()
    assert not Bmp.objects.exists()
    r = c.post(f"/field/{n}/site/", {"what": "bmp", "name": "Rain garden 1", "source_type": "Bioretention",
                                     "latitude": "42.0506", "longitude": "-72.5827", "next": "/field/today/"})
    assert r.status_code == 302
    b = Bmp.objects.get()
    assert b.site == Site.objects.get(permit=project.permit)  # opened with the construction file
    assert (b.name, b.source_type, b.latitude, b.longitude) == ("Rain garden 1", "Bioretention", 42.0506, -72.5827)
    assert "BMP Rain garden 1" in c.get(f"/field/{n}/report/?kind=random").content.decode()


def test_adding_from_the_field_is_for_inspectors_and_goes_back_only_to_field_pages(day, client_for, personas):
    project, _ = day
    n = project.case.number
    data = {"what": "control", "kind": "exit", "name": "Exit pad", "next": "https://evil.example/"}
    assert client_for(personas["assessor"]).post(f"/field/{n}/site/", data).status_code == 403
    r = client_for(personas["inspector"]).post(f"/field/{n}/site/", data)
    assert r.status_code == 302 and r["Location"] == "/field/today/"
    r = client_for(personas["inspector"]).post(f"/field/{n}/site/", {**data, "kind": "volcano"})
    assert r.status_code == 400 and not SiteControl.objects.filter(kind="volcano").exists()
