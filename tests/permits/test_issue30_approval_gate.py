"""Issue 30 "Two rules for one approval": the permit page approved a permit whose workbench checklist showed every
item unreviewed, while the workbench's own decision form refused it. One gate (``permits.approval.approval_check``,
§ 380-10 I(1)(a)–(b) and the unnumbered paragraph of § 380-10: approval "contingent on the application's
completeness, demonstration of compliance with design standards") is applied by every path that approves: the
permit page, the JSON API and the workbench."""
from datetime import date

import pytest

from stormwater.cases.services import TransitionError
from stormwater.permits import services as sv
from stormwater.permits.approval import ERR_UNREVIEWED
from stormwater.workbench import catalog
from stormwater.workbench import services as wb

from .conftest import complete_package, review_every_item

APPROVE = {"kind": "approve", "findings": "Meets the standards.", "standards": ["380-11D"]}


@pytest.fixture
def reviewing(draft, personas, at):
    at(date(2026, 3, 2))
    complete_package(draft, personas["staff"])
    sv.permit_file(application=draft, acting_user=personas["owner"])
    at(date(2026, 3, 6))
    sv.permit_determine_complete(application=draft, acting_user=personas["staff"])
    return draft


def _status(app):
    app.case.refresh_from_db()
    return app.case.status


def _unreviewed():
    n = len(catalog.ITEMS)
    return ERR_UNREVIEWED.format(n=n, first=catalog.ITEMS[0].para)


def test_the_permit_page_refuses_an_approval_with_every_item_unreviewed(client_for, personas, reviewing):
    page = client_for(personas["director"]).get(f"/permits/{reviewing.case.number}/").content.decode()
    assert 'id="approval-gate"' in page and _unreviewed() in page  # said before the Director tries
    r = client_for(personas["director"]).post(f"/permits/{reviewing.case.number}/decide/", APPROVE)
    assert r.status_code == 400 and _unreviewed() in r.content.decode()
    assert _status(reviewing) == "under_review" and not reviewing.case.clocks.filter(kind="project_start").exists()


def test_the_api_refuses_it_with_the_same_words(client_for, personas, reviewing):
    r = client_for(personas["director"]).post(f"/api/permits/{reviewing.case.number}/decide/", APPROVE,
                                              content_type="application/json")
    assert r.status_code == 400 and r.json()["error"] == _unreviewed()
    assert _status(reviewing) == "under_review"


def test_the_workbench_refuses_it_with_the_same_words(personas, reviewing):
    with pytest.raises(TransitionError) as e:
        wb.workbench_decide(application=reviewing, acting_user=personas["director"], conditions=[], **APPROVE)
    assert str(e.value) == _unreviewed() and _status(reviewing) == "under_review"


def test_one_open_item_refuses_every_path_and_a_disapproval_is_not_gated(client_for, personas, reviewing):
    review_every_item(reviewing, personas["staff"])
    para = catalog.ITEMS[5].para
    wb.item_finding_record(application=reviewing, para=para, finding="deficient", comment="TSS short",
                           acting_user=personas["staff"])
    with pytest.raises(TransitionError, match=r"no open deficiency: 1 deficient"):
        sv.permit_decide(application=reviewing, acting_user=personas["director"], **APPROVE)
    r = client_for(personas["director"]).post(f"/permits/{reviewing.case.number}/decide/", APPROVE)
    assert r.status_code == 400 and f"§ {para}" in r.content.decode()
    sv.permit_decide(application=reviewing, kind="disapprove", findings="TSS removal short of 90 %.",
                     standards=["380-11D"], acting_user=personas["director"])
    assert _status(reviewing) == "disapproved"


def test_with_every_item_reviewed_the_permit_page_approves(client_for, personas, reviewing):
    review_every_item(reviewing, personas["staff"])
    assert 'id="approval-gate"' not in client_for(personas["director"]).get(
        f"/permits/{reviewing.case.number}/").content.decode()
    r = client_for(personas["director"]).post(f"/permits/{reviewing.case.number}/decide/", APPROVE)
    assert r.status_code == 302, r.content[:400]
    assert _status(reviewing) == "approved"
