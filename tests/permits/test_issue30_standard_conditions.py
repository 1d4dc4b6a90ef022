"""Issue 30: a standard-conditions library for permit decisions (§ 380-10 I(1)(b)). The Director keeps the list; on
the decision form the ticked conditions are copied into the decision's conditions, to be edited there before the
decision is recorded; a ticked condition never slips into (or out of) a decision unseen."""
import re


def _library():
    from stormwater.permits.models import StandardCondition

    return StandardCondition.objects.filter(active=True).order_by("seq", "pk")


def test_the_library_is_seeded_from_the_ordinance_each_condition_naming_its_section(db):
    rows = list(_library())
    assert len(rows) >= 4
    for c in rows:
        assert re.match(r"§ 380-\d+", c.citation), c.citation
        assert c.text.strip() and c.title.strip()


def test_the_director_adds_edits_and_retires_a_standard_condition(client_for, personas, db):
    from stormwater.audit.models import AuditEvent
    from stormwater.permits.models import StandardCondition

    c = client_for(personas["director"])
    page = c.get("/permits/standard-conditions/")
    assert page.status_code == 200 and "§ 380-16" in page.content.decode()
    r = c.post("/permits/standard-conditions/", {"title": "Street sweeping", "citation": "§ 380-13",
                                                  "text": "Sweep the street at the site entrance weekly.", "seq": 50,
                                                  "active": "on"})
    assert r.status_code == 302
    sc = StandardCondition.objects.get(title="Street sweeping")
    r = c.post(f"/permits/standard-conditions/{sc.pk}/", {"title": "Street sweeping", "citation": "§ 380-13",
                                                          "text": "Sweep the street daily.", "seq": 50})
    assert r.status_code == 302
    sc.refresh_from_db()
    assert sc.text == "Sweep the street daily." and sc.active is False  # the box unticked: retired
    assert AuditEvent.objects.filter(action="standard_condition_save", object_id=str(sc.pk)).count() == 2


def test_a_condition_without_its_section_is_refused_at_the_field(client_for, personas, db):
    r = client_for(personas["director"]).post("/permits/standard-conditions/", {
        "title": "X", "citation": "", "text": "Do it.", "seq": 1})
    assert r.status_code == 400 and 'id="id_citation_error"' in r.content.decode()


def test_only_the_director_manages_the_library(client_for, personas, db):
    assert client_for(personas["staff"]).get("/permits/standard-conditions/").status_code == 403


def test_the_decision_form_offers_the_library(client_for, personas, reviewing):
    page = client_for(personas["director"]).get(f"/permits/{reviewing.case.number}/").content.decode()
    for sc in _library():
        assert f'name="standard" value="{sc.pk}"' in page
    assert "Add the ticked conditions" in page


def test_ticked_conditions_are_copied_into_the_conditions_keeping_what_was_typed(client_for, personas, reviewing):
    a, b = list(_library())[:2]
    r = client_for(personas["director"]).post(f"/permits/{reviewing.case.number}/decide/standard/", {
        "kind": "approve_conditions", "findings": "Meets the standards.", "standards": ["380-11D"],
        "conditions": "Sweep the road weekly", "standard": [str(a.pk), str(b.pk)]})
    assert r.status_code == 200
    page = r.content.decode()
    m = re.search(r'<textarea[^>]*name="conditions"[^>]*>(.*?)</textarea>', page, re.S)
    from html import unescape
    lines = [x for x in unescape(m.group(1)).splitlines() if x.strip()]
    assert lines == ["Sweep the road weekly", a.text, b.text]
    assert "Meets the standards." in page and re.search(r'value="380-11D"[^>]*checked', page)
    assert not re.search(r'name="standard" value="\d+"[^>]*checked', page)  # added: the ticks are cleared
    reviewing.case.refresh_from_db()
    assert reviewing.case.status == "under_review"  # nothing decided yet


def test_the_copied_text_is_edited_and_the_edit_is_what_the_decision_keeps(client_for, personas, reviewing):
    a = _library()[0]
    edited = a.text.replace(".", ", and on Saturdays.", 1)
    r = client_for(personas["director"]).post(f"/permits/{reviewing.case.number}/decide/", {
        "kind": "approve_conditions", "findings": "Meets the standards.", "standards": ["380-11D"],
        "conditions": edited})
    assert r.status_code == 302
    assert [c.text for c in reviewing.conditions.all()] == [edited]


def test_a_ticked_condition_not_yet_added_is_refused_not_dropped_or_slipped_in(client_for, personas, reviewing):
    a = _library()[0]
    r = client_for(personas["director"]).post(f"/permits/{reviewing.case.number}/decide/", {
        "kind": "approve_conditions", "findings": "Meets the standards.", "standards": ["380-11D"],
        "conditions": "Sweep the road weekly", "standard": [str(a.pk)]})
    assert r.status_code == 400 and 'id="id_decide-standard_error"' in r.content.decode()
    reviewing.case.refresh_from_db()
    assert reviewing.case.status == "under_review" and not reviewing.conditions.exists()


def test_the_workbench_decision_form_does_not_offer_ticks_it_cannot_add(client_for, personas, reviewing):
    """The workbench's decision form has no "Add the ticked conditions" button: no ticks there to be refused."""
    from django.urls import reverse

    page = client_for(personas["director"]).get(reverse("workbench_home", args=[reviewing.case.number]))
    assert page.status_code == 200 and 'name="standard"' not in page.content.decode()
