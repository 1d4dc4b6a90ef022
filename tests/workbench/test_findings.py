"""Findings on checklist items: state, history (append-only), what each finding needs, the engineering
review's rows beside computed items, the SWPPP alternative, waivers on an item, the glance panel."""
from __future__ import annotations

from datetime import date

import pytest
from django.db import connection, transaction

from stormwater.audit.models import AuditEvent
from stormwater.review.models import Review
from stormwater.workbench import catalog, selectors
from stormwater.workbench import services as wb
from stormwater.workbench.models import ItemFinding, ItemWaiver

pytestmark = pytest.mark.django_db

C6 = "380-12 A(3)(c)[6]"


def test_an_item_starts_not_reviewed_and_its_latest_finding_is_its_state_with_history_kept(reviewing, personas):
    st = selectors.item_states(reviewing)
    assert len(st) == len(catalog.ITEMS) and all(s.state == selectors.NOT_REVIEWED for s in st.values())
    doc = reviewing.case.documents.get(tag="swmp")
    wb.item_finding_record(application=reviewing, para=C6, finding="deficient", comment="no test pits at basin 2",
                           document=doc, page="C-3", acting_user=personas["staff"])
    wb.item_finding_record(application=reviewing, para=C6, finding="provided", document=doc, page="C-3A",
                           acting_user=personas["director"])
    s = selectors.item_states(reviewing)[C6]
    assert s.state == "provided" and s.finding.page == "C-3A" and s.finding.reviewer == personas["director"]
    hist = selectors.item_history(reviewing, C6)
    assert [(h.finding, h.reviewer.username, h.comment) for h in hist] == [
        ("deficient", "staff", "no test pits at basin 2"), ("provided", "director", "")]
    assert reviewing.case.events.filter(kind="checklist_review").count() == 2
    assert AuditEvent.objects.filter(action="workbench.findings_record").count() == 2


def test_history_is_append_only_in_the_database(reviewing, personas):
    f = wb.item_finding_record(application=reviewing, para=C6, finding="provided", acting_user=personas["staff"])
    with pytest.raises(ValueError):
        f.save()
    table = ItemFinding._meta.db_table
    with pytest.raises(Exception), transaction.atomic(), connection.cursor() as cur:
        cur.execute(f"UPDATE {table} SET finding = 'deficient' WHERE id = %s", [f.pk])
    with pytest.raises(Exception), transaction.atomic(), connection.cursor() as cur:
        cur.execute(f"DELETE FROM {table} WHERE id = %s", [f.pk])
    assert ItemFinding.objects.get(pk=f.pk).finding == "provided"


@pytest.mark.parametrize("kw,message", [
    ({"para": C6, "finding": "not_applicable"}, wb.ERR_NA_REASON.format(para=C6)),
    ({"para": C6, "finding": "deficient"}, wb.ERR_DEFICIENT_COMMENT.format(para=C6)),
    ({"para": "380-11 B(4)(b)[5]", "finding": "not_applicable", "reason": "steep lot"},
     wb.ERR_LID_REASON.format(para="380-11 B(4)(b)[5]")),
    ({"para": "380-12 A(3)(g)[17]", "finding": "provided"}, wb.ERR_UNKNOWN_ITEM.format(para="380-12 A(3)(g)[17]")),
    ({"para": "380-12 A(3)(c)", "finding": "provided"}, wb.ERR_UNKNOWN_ITEM.format(para="380-12 A(3)(c)")),
    ({"para": C6, "finding": "fine"}, wb.ERR_FINDING.format(value="fine")),
])
def test_each_finding_needs_what_the_rule_asks(reviewing, personas, kw, message):
    with pytest.raises(ValueError) as e:
        wb.item_finding_record(application=reviewing, acting_user=personas["staff"], **kw)
    assert str(e.value) == message
    assert not ItemFinding.objects.exists()


def test_an_lid_strategy_not_met_carries_the_applicants_reason_and_the_mitigation(reviewing, personas):
    f = wb.item_finding_record(application=reviewing, para="380-11 B(4)(b)[15][f]", finding="not_applicable",
                               reason="flat roofs are steel deck, not rated for a garden load",
                               mitigation="roof runoff disconnected to a rain garden", acting_user=personas["staff"])
    assert f.mitigation.startswith("roof runoff")


def test_a_batch_is_all_or_none_and_documents_must_be_this_files(reviewing, draft, personas):
    with pytest.raises(ValueError):
        wb.item_findings_record(application=reviewing, acting_user=personas["staff"], findings=[
            {"para": C6, "finding": "provided"}, {"para": "380-12 A(3)(b)", "finding": "deficient"}])
    assert not ItemFinding.objects.exists()


def test_no_findings_on_a_draft(draft, personas):
    with pytest.raises(ValueError) as e:
        wb.item_finding_record(application=draft, para=C6, finding="provided", acting_user=personas["staff"])
    assert "draft" in str(e.value).lower()


def test_the_swppp_alternative_covers_the_escp_items(reviewing, personas):
    wb.item_finding_record(application=reviewing, para=catalog.SWPPP_PARA, finding="provided", page="SWPPP",
                           acting_user=personas["staff"])
    st = selectors.item_states(reviewing)
    assert all(st[e.para].state == selectors.COVERED for e in catalog.items_under("380-13 A(2)"))
    assert st["380-13 A(1)"].state == selectors.NOT_REVIEWED


def test_computed_items_show_the_latest_engineering_reviews_rows(reviewing, personas):
    rows = [{"key": "peak_DP1_2", "title": "Peak discharge, 2-year", "provision": "§ 380-11 B(1)", "status": "pass",
             "status_label": "Pass", "required": "≤ 4.1 cfs", "provided": "3.9 cfs", "reason": ""},
            {"key": "retention", "title": "Retention volume", "provision": "§ 380-11 D(2)(b)", "status": "fail",
             "status_label": "Fail", "required": "10,000 ft³", "provided": "8,000 ft³", "reason": ""}]
    Review.objects.create(title="old", input_format="yaml", input_text="", input_sha256="0", results={"standards": []},
                          overall="pass", engine_version="t", case=reviewing.case)
    Review.objects.create(title="new", input_format="yaml", input_text="", input_sha256="1",
                          results={"standards": rows}, overall="fail", engine_version="t", case=reviewing.case)
    ctx = selectors.workbench_for(reviewing)
    st = ctx["states"]
    assert [r["key"] for r in st["380-12 A(3)(g)[5]"].review_rows] == ["peak_DP1_2"]
    assert [r["key"] for r in st["380-12 A(3)(g)[14][c]"].review_rows] == ["retention"]
    assert st["380-12 A(3)(a)"].review_rows == [] and ctx["review"].title == "new"


def test_a_waiver_request_attaches_to_its_item(reviewing, personas):
    w = wb.item_waiver_request(application=reviewing, para="380-12 A(3)(g)[16]", acting_user=personas["owner"],
                               justification="the watershed ratio is above 10:1 at the site boundary")
    assert w.requirement.startswith("§ 380-12 A(3)(g)[16]: Post-development downstream analysis")
    assert w.case.parent == reviewing.case
    assert ItemWaiver.objects.get(waiver=w).para == "380-12 A(3)(g)[16]"
    assert selectors.item_states(reviewing)["380-12 A(3)(g)[16]"].waivers == [w]


def test_the_glance_counts_what_is_left_and_the_days_on_the_clock(reviewing, personas, at):
    at(date(2026, 3, 10))
    wb.item_findings_record(application=reviewing, acting_user=personas["staff"], findings=[
        {"para": C6, "finding": "deficient", "comment": "missing"},
        {"para": "380-12 A(3)(b)", "finding": "not_provided"},
        {"para": "380-12 A(3)(a)", "finding": "provided"}])
    g = selectors.workbench_for(reviewing)["glance"]
    assert (g.items, g.not_reviewed, g.open_deficiencies, g.requests_outstanding) == (
        len(catalog.ITEMS), len(catalog.ITEMS) - 3, 2, 0)
    assert g.clock.due == date(2026, 4, 13) and g.days_left == 34  # filed Mar 2 + 42 days
