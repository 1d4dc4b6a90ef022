"""Issue 16 "Forms": the construction file's one-input row forms (add a stabilization area, § 380-11 C(3)(a);
report a violation corrected, § 380-16 C(4)(e)[5]) refused come back as the file page (400) with what was typed
kept and the error at the field, the error summary linking to it — no flash and redirect."""
import re
from datetime import date

from stormwater.construction import services as cs
from stormwater.construction.models import DisturbedArea

from .test_web import started  # noqa: F401  (fixture)


def _input(page: str, name_id: str) -> str:
    m = re.search(r'<input[^>]*id="%s"[^>]*>' % re.escape(name_id), page)
    assert m, f"no input #{name_id}"
    return m.group(0)


def test_add_area_refused_keeps_the_name_and_marks_the_field(client_for, personas, started):  # noqa: F811
    c = client_for(personas["inspector"])
    n = DisturbedArea.objects.count()
    long_name = "North slope behind lot 4 " + "x" * 190  # 215 characters: more than an area's name holds
    r = c.post(f"/construction/{started.case.number}/areas/", {"action": "add", "name": long_name})
    assert r.status_code == 400 and DisturbedArea.objects.count() == n
    page = r.content.decode()
    field = _input(page, "id_area-name")
    assert f'value="{long_name}"' in field and 'aria-invalid="true"' in field
    assert 'id="id_area-name_error"' in page and 'href="#id_area-name"' in page
    r = c.post(f"/construction/{started.case.number}/areas/", {"action": "add", "name": "  "})
    assert r.status_code == 400 and "Name the area." in r.content.decode()
    r = c.post(f"/construction/{started.case.number}/areas/", {"action": "add", "name": "North slope"})
    assert r.status_code == 302 and DisturbedArea.objects.filter(name="North slope").exists()


def test_report_corrected_refused_keeps_what_was_typed_and_marks_the_field(client_for, personas, started, at):  # noqa: F811
    v = cs.violation_notice_issue(project=started, description="Fence down", corrective_actions="Restake",
                                  correct_by=date(2026, 4, 30), acting_user=personas["director"])
    c = client_for(personas["inspector"])
    url = f"/construction/{started.case.number}/violations/{v.pk}/corrected/"
    r = c.post(url, {"on": "2026-04-22", "note": "   "})  # nothing said about what was done
    assert r.status_code == 400
    page = r.content.decode()
    fid = f"id_corrected-{v.pk}-note"
    assert 'aria-invalid="true"' in _input(page, fid) and f'id="{fid}_error"' in page and f'href="#{fid}"' in page
    assert 'value="2026-04-22"' in _input(page, f"id_corrected-{v.pk}-on")
    r = c.post(url, {"on": "2026-04-40", "note": "Fence re-staked and trenched"})
    assert r.status_code == 400
    page = r.content.decode()
    assert 'value="Fence re-staked and trenched"' in _input(page, fid)
    assert 'aria-invalid="true"' in _input(page, f"id_corrected-{v.pk}-on")
    v.refresh_from_db()
    assert v.corrected_on is None
    r = c.post(url, {"on": "2026-04-22", "note": "Fence re-staked and trenched"})
    assert r.status_code == 302
    v.refresh_from_db()
    assert v.corrected_on == date(2026, 4, 22) and v.corrected_note == "Fence re-staked and trenched"


def test_a_correction_is_not_dated_after_today_nor_before_the_violation(client_for, personas, started):  # noqa: F811
    """§ 380-16 C(4)(e)[5] (issue 18: acts are never dated later than now): the date is now an input of its own."""
    v = cs.violation_notice_issue(project=started, description="Fence down", corrective_actions="Restake",
                                  correct_by=date(2026, 4, 30), found_on=date(2026, 4, 21),
                                  acting_user=personas["director"])
    c = client_for(personas["inspector"])
    url = f"/construction/{started.case.number}/violations/{v.pk}/corrected/"
    for day in ("2026-04-23", "2026-04-20"):  # today is Apr 22; the violation was found on Apr 21
        r = c.post(url, {"on": day, "note": "Fence re-staked"})
        page = r.content.decode()
        assert r.status_code == 400 and f'id="id_corrected-{v.pk}-on_error"' in page
        assert f'value="{day}"' in _input(page, f"id_corrected-{v.pk}-on")
    v.refresh_from_db()
    assert v.corrected_on is None
