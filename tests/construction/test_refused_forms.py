"""Issue 16 "Forms" (done when: "a refused staff form keeps every typed value and marks the field"): the construction
file's hand-written row forms, refused by their service, come back as the file page (400) with the form as it was
sent and the error at the input (``web.postdata.refused`` → ``web.refill``); nothing is recorded."""
import re
from datetime import date

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from stormwater.audit.models import AuditEvent
from stormwater.cases.models import CaseEvent
from stormwater.construction import services as cs
from stormwater.construction.models import ConstructionProject, RainEvent

from .refilled import assert_refilled
from .test_web import started  # noqa: F401  (fixture)


def _tag(page: str, name: str, form_action: str) -> str:
    """The start tag of the input ``name`` in the form posting to ``form_action``."""
    m = re.search(r'<form[^>]*action="%s"[^>]*>(.*?)</form>' % re.escape(form_action), page, re.S)
    assert m, f"no form posting to {form_action}"
    t = re.search(r'<(?:input|select|textarea)[^>]*name="%s"[^>]*>' % re.escape(name), m.group(1))
    assert t, f"no {name} in the form"
    return t.group(0)


def test_rainfall_refused_keeps_every_value_and_marks_the_field(client_for, personas, started):  # noqa: F811
    c = client_for(personas["inspector"])
    url = f"/construction/{started.case.number}/rain/"
    n = RainEvent.objects.count()
    r = c.post(url, {"ended_at": "2026-04-21T07:00", "rain_in": "1.2.5", "snow_in": "0", "source": "DPW gauge"})
    assert r.status_code == 400 and RainEvent.objects.count() == n
    page = r.content.decode()
    rain = _tag(page, "rain_in", url)
    assert 'value="1.2.5"' in rain and 'aria-invalid="true"' in rain and 'aria-describedby="refused-rain_in_error"' in rain
    assert 'value="DPW gauge"' in _tag(page, "source", url)
    assert 'value="2026-04-21T07:00"' in _tag(page, "ended_at", url)
    assert '<span class="field-error" id="refused-rain_in_error">' in page
    assert 'href="#refused-rain_in">Rain [in]: ' in page  # the summary names the input by its label
    assert re.search(r"<details open[^>]*><summary>Record rainfall", page)  # the folded form is shown open
    assert 'class="messages"' not in page  # the error is on the form, not a message at the top


# --- every other row form of the file and the list (one case each, named for the form) ----------------------------


PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


def _active(p, personas):
    cs.construction_start(project=p, on=date(2026, 4, 22), acting_user=personas["director"])
    return p


def _violation(p, personas):
    return cs.violation_notice_issue(project=p, description="Silt fence down", corrective_actions="Restake it",
                                     correct_by=date(2026, 4, 30), acting_user=personas["director"])


def _area(p, personas):
    return cs.area_add(project=p, name="North slope", acting_user=personas["inspector"]).pk


def _stop_work_ready(p, personas):
    """Active, a stop-work order in force on a violation since corrected and approved."""
    _active(p, personas)
    v = _violation(p, personas)
    cs.stop_work_issue(project=p, violations=[v], reason="Sediment at the brook", acting_user=personas["director"])
    cs.violation_corrected(violation=v, on=date(2026, 4, 22), note="Restaked", acting_user=personas["consultant"])
    cs.violation_approve(violation=v, on=date(2026, 4, 22), acting_user=personas["director"])


# (case, who, setup(project, personas) → value for "{x}" in the data, url suffix, posted data, refused input)
CASES = [
    ("conditions", "director", None, "conditions/",
     {"frequency": "14day_storm", "sensitive_waters": "on", "stabilized_on": "2026-05-40", "frozen": "suspended"},
     "stabilized_on"),
    ("start", "director", None, "start/", {"on": "2026-04-31"}, "on"),
    ("notice", "consultant", None, "notice/", {"kind": "walk_through", "scheduled_at": "2026-04-21T09:00"},
     "scheduled_at"),
    ("notice_bad_time", "consultant", None, "notice/", {"kind": "final", "scheduled_at": "tomorrow 9"},
     "scheduled_at"),
    ("control_add", "inspector", None, "controls/", {"kind": "perimeter", "name": "  ", "location": "North edge"},
     "name"),
    ("position", "inspector", None, "position/", {"latitude": "95", "longitude": "-72.55"}, "latitude"),
    ("area_row", "inspector", _area, "areas/", {"area": "{x}", "on": "2026-04-40", "action": "ceased"}, "on"),
    ("stop_work_lift", "director", _stop_work_ready, "stop-work/lift/", {"note": "  "}, "note"),
    ("violation_notice", "director", _active, "violations/",
     {"inspection": "", "description": "Silt fence down", "corrective_actions": "  ", "correct_by": "2026-04-30"},
     "corrective_actions"),
    ("violation_notice_date", "director", _active, "violations/",
     {"inspection": "", "description": "Silt fence down", "corrective_actions": "Restake", "correct_by": "2026-04-01"},
     "correct_by"),
    ("stop_work", "director", lambda p, ps: (_active(p, ps), _violation(p, ps)), "stop-work/", {"reason": "  "},
     "reason"),
    ("enforcement", "director", _active, "enforcement/", {"reason": "  ", "action": "refer"}, "reason"),
    ("surety_release", "collector", None, "surety/", {"action": "release", "amount": "200000", "phase": "Phase 1"},
     "amount"),
    ("surety_release_phase", "collector", None, "surety/", {"action": "release", "amount": "1000", "phase": " "},
     "phase"),
    ("surety_forfeit", "collector", lambda p, ps: _violation(p, ps).pk, "surety/",
     {"action": "forfeit", "violation": "{x}", "amount": "5000", "reason": "Contractor gone"}, "violation"),
    ("as_built", "consultant", None, "as-built/",
     {"file": "pdf", "pe_name": "Dana Engineer", "pe_license": " ", "certified_on": "2026-04-20",
      "full_size": "on", "final_grades": "on", "deviations": "none"}, "pe_license"),
]


@pytest.mark.parametrize("case,who,setup,suffix,data,field", CASES, ids=[c[0] for c in CASES])
def test_file_row_form_refused_keeps_every_value_and_marks_the_field(client_for, personas, started,  # noqa: F811
                                                                      case, who, setup, suffix, data, field):
    x = setup(started, personas) if setup else None
    if isinstance(x, tuple):
        x = x[-1]
    data = {k: (v.replace("{x}", str(x)) if isinstance(v, str) else v) for k, v in data.items()}
    if case == "stop_work":  # the violation's box left unticked is put back unticked; the reason is refused
        data["violations"] = [str(x.pk)]
    url = f"/construction/{started.case.number}/{suffix}"
    events, audits = CaseEvent.objects.count(), AuditEvent.objects.count()
    post = {k: (SimpleUploadedFile("asbuilt.pdf", PDF, content_type="application/pdf") if k == "file" else v)
            for k, v in data.items()}
    r = client_for(personas[who]).post(url, post)
    assert (CaseEvent.objects.count(), AuditEvent.objects.count()) == (events, audits)  # nothing recorded
    assert_refilled(r, url, {k: v for k, v in data.items() if k not in ("action", "area")}, field)  # hidden, button


def test_meeting_refused_keeps_every_value_and_marks_the_field(client_for, personas, project):
    url = f"/construction/{project.case.number}/meeting/"
    data = {"held_on": "2026-04-13", "attendees": "  ", "notes": "Walked the limit of work"}
    r = client_for(personas["director"]).post(url, data)
    assert_refilled(r, url, data, "attendees")
    assert not project.meetings.exists()


def test_surety_post_refused_keeps_every_value_and_marks_the_field(client_for, personas, project):
    url = f"/construction/{project.case.number}/surety/"
    data = {"form": "loc", "issuer": "Bay State Bank", "reference": "LC-7", "estimated_cost": "120,000",
            "prevailing_wage": "on", "amount": "100000", "counsel_approved_on": "2026-04-10",
            "finance_approved_on": "2026-04-10", "posted_on": "2026-04-13"}
    r = client_for(personas["collector"]).post(url, {"action": "post", **data})
    assert_refilled(r, url, data, "amount")
    assert "less than the total estimated construction cost" in r.content.decode()


def test_open_a_construction_file_refused_keeps_every_value_and_marks_the_field(client_for, personas, approved):
    """The list's "open a construction file" form (construction_open): refused, the list again (400)."""
    n = ConstructionProject.objects.count()
    data = {"permit": approved.case.number, "design_engineer": str(personas["consultant"].pk),
            "design_engineer_name": "Dana Engineer", "design_engineer_pe": "MA PE 45678",
            "esc_inspector_name": "Ivy Inspector", "esc_inspector_credentials": "CPESC",
            "no_surety_reason": "   ", "frequency": "14day_storm", "sensitive_waters": "on"}
    r = client_for(personas["director"]).post("/construction/open/", data)
    assert_refilled(r, "/construction/open/", data, "no_surety_reason")
    assert ConstructionProject.objects.count() == n
    assert ' checked' not in re.search(r'<input[^>]*name="preconstruction_required"[^>]*>', r.content.decode()).group(0)


def test_open_a_construction_file_with_no_permit_chosen_says_so_at_the_field(client_for, personas, approved):
    """A blank permit was a 404 page (the crawl of tests/test_refused_crawl.py): now the list again, marked."""
    data = {"permit": "", "design_engineer_name": "Dana Engineer", "frequency": "14day_storm"}
    r = client_for(personas["director"]).post("/construction/open/", data)
    assert_refilled(r, "/construction/open/", {k: v for k, v in data.items() if k != "permit"}, "permit")
    assert "Choose the approved permit" in r.content.decode()
