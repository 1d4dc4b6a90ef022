"""Issue 27: a raw posted value taken as a record id (stop-work, areas, violations, surety) or as the inspection
frequency was a 500. Each is now refused as the app's other refusals are: the file's page again, status 400,
the error at the field; the state unchanged."""
from __future__ import annotations

import pytest

from stormwater.construction.models import ConstructionProject as Project

ODD_IDS = ["abc", "¹", "-3", "99999999999999999999999", "1.5"]


def _post(client_for, personas, project, path, data, who="director"):
    return client_for(personas[who]).post(f"/construction/{project.case.number}/{path}", data)


def _refused(client, r, words: str) -> bool:
    """Refused as the app refuses: the page again with the error at the field (400), or — when the page shows no
    such form in the file's present state (before construction starts) — the error as a message on it."""
    if r.status_code == 302:
        return words in client.get(r.url).content.decode()
    return r.status_code == 400 and words in r.content.decode()


@pytest.mark.parametrize("value", ODD_IDS)
def test_a_stop_work_order_refuses_an_odd_violation_id(client_for, personas, project, value):
    r = _post(client_for, personas, project, "stop-work/", {"violations": [value], "reason": "Silt in the brook"})
    assert _refused(client_for(personas["director"]), r, "is not one of the records offered")
    assert not project.stop_work_orders.exists()


@pytest.mark.parametrize("action", ["ceased", "stabilized"])
@pytest.mark.parametrize("value", ODD_IDS)
def test_an_area_act_refuses_an_odd_area_id(client_for, personas, project, action, value):
    r = _post(client_for, personas, project, "areas/", {"action": action, "area": value, "on": "2026-04-13"})
    assert r.status_code == 400 and "is not one of the records offered" in r.content.decode()


@pytest.mark.parametrize("value", ODD_IDS)
def test_a_violation_notice_refuses_an_odd_inspection_id(client_for, personas, project, value):
    r = _post(client_for, personas, project, "violations/", {"inspection": value, "description": "Silt fence down",
                                                              "corrective_actions": "Reset it",
                                                              "correct_by": "2026-04-20"})
    assert _refused(client_for(personas["director"]), r, "is not one of the records offered")
    assert not project.violations.exists()


@pytest.mark.parametrize("value", ODD_IDS)
def test_a_surety_draw_refuses_an_odd_violation_id(client_for, personas, project, value):
    r = _post(client_for, personas, project, "surety/", {"action": "forfeit", "violation": value, "amount": "100",
                                                          "on": "2026-04-13"}, who="collector")
    assert r.status_code == 400 and "is not one of the records offered" in r.content.decode()


@pytest.mark.parametrize("value", ["0x1F", "weekly", "7DAY"])
def test_the_conditions_refuse_an_unknown_frequency_and_the_page_still_shows(client_for, personas, project, value):
    r = _post(client_for, personas, project, "conditions/", {"frequency": value})
    assert r.status_code == 400 and "frequency" in r.content.decode()
    assert Project.objects.get(pk=project.pk).frequency == "14day_storm"
    assert client_for(personas["director"]).get(f"/construction/{project.case.number}/").status_code == 200


@pytest.mark.parametrize("value", ["abc", "99999999999999999999999"])
def test_removing_a_control_refuses_an_odd_control_id(client_for, personas, project, value):
    c = client_for(personas["director"])
    r = c.post(f"/construction/{project.case.number}/controls/", {"action": "remove", "control": value})
    assert r.status_code in (302, 400)
    page = r.content.decode() if r.status_code == 400 else c.get(r.url).content.decode()
    assert "is not one of the records offered" in page


@pytest.mark.parametrize("field", ["design_engineer", "esc_inspector"])
def test_opening_a_file_refuses_an_odd_person_id(client_for, personas, approved, field):
    c = client_for(personas["director"])
    r = c.post("/construction/open/", {"permit": approved.case.number, field: "99999999999999999999999"})
    assert r.status_code in (302, 400)
    page = r.content.decode() if r.status_code == 400 else c.get(r.url).content.decode()
    assert "is not one of the records offered" in page
    assert not Project.objects.exists()
