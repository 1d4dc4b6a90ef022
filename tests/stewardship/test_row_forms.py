"""Issue 16 "Forms": the site page's one-input row forms — "no easement necessary" and its reason (§ 380-14 D),
and the Director's verified correction of a failure to maintain (§ 380-14 E) — refused, come back as the site
page (400) with what was typed kept and the error at the field, the error summary linking to it (they were a
flash at the top after a redirect, the box empty)."""
import re
from datetime import date

from stormwater.stewardship import services as sv


def _input(page: str, fid: str) -> str:
    m = re.search(r'<input[^>]*id="%s"[^>]*>' % re.escape(fid), page)
    assert m, f"no input #{fid}"
    return m.group(0)


def test_no_easement_reason_refused_keeps_it_and_marks_the_field(site, personas, client_for):
    d = client_for(personas["staff"])
    url = f"/stewardship/{site.case.number}/easements/"
    long_reason = "All BMPs on the owner's lot; " + "access by the O&M agreement " * 12  # > 300 characters
    r = d.post(url, {"action": "none", "reason": long_reason})
    page = r.content.decode()
    assert r.status_code == 400
    field = _input(page, "id_easement_none-reason")
    assert 'aria-invalid="true"' in field and "access by the O&amp;M agreement" in field
    assert 'id="id_easement_none-reason_error"' in page and 'href="#id_easement_none-reason"' in page
    r = d.post(url, {"action": "none", "reason": "  "})
    assert r.status_code == 400 and "Say why no stormwater management easement is necessary" in r.content.decode()
    site.refresh_from_db()
    assert site.easements_not_required_reason == ""
    r = d.post(url, {"action": "none", "reason": "All BMPs on the owner's lot"})
    site.refresh_from_db()
    assert r.status_code == 302 and site.easements_not_required_reason == "All BMPs on the owner's lot"


def test_verified_correction_refused_keeps_it_and_marks_the_field(site, personas, at, client_for):
    at(date(2026, 6, 5))
    n = sv.maintenance_notice_issue(site=site, violation="Outlet blocked", corrective_work="Clear it",
                                    acting_user=personas["director"])
    d = client_for(personas["director"])
    url = f"/stewardship/{site.case.number}/notices/{n.case.number}/"
    fid = f"id_verified-{n.pk}-note"
    r = d.post(url, {"action": "corrected", "note": " "})
    page = r.content.decode()
    assert r.status_code == 400
    assert 'aria-invalid="true"' in _input(page, fid) and f'id="{fid}_error"' in page and f'href="#{fid}"' in page
    assert "Record how the correction was verified." in page
    long_note = "Seen on site: outlet cleared " + "and sediment removed " * 100  # > 2,000 characters
    r = d.post(url, {"action": "corrected", "note": long_note})
    assert r.status_code == 400 and "and sediment removed" in _input(r.content.decode(), fid)
    n.refresh_from_db()
    assert n.corrected_on is None
    r = d.post(url, {"action": "corrected", "note": "Seen on site: outlet cleared"})
    n.refresh_from_db()
    assert r.status_code == 302 and n.verified_note == "Seen on site: outlet cleared" and n.corrected_on
