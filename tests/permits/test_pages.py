"""Every state of a file renders for every person who may see it (no template error), showing the
actions that person may take there and no others."""
from datetime import date
from decimal import Decimal as D

import pytest

from stormwater.permits import services as sv

from .conftest import complete_package, review_every_item

STEPS = ["draft", "filed", "incomplete", "under_review", "info_requested", "consultant_fee_due",
         "consultant_appeal", "approved_conditions", "closed"]


def advance(app, personas, at, upto):
    p = personas
    at(date(2026, 3, 2))
    if upto == "draft":
        return
    complete_package(app, p["staff"])
    sv.permit_file(application=app, acting_user=p["owner"])
    if upto == "filed":
        return
    at(date(2026, 3, 5))
    sv.permit_determine_incomplete(application=app, cure_by=date(2026, 3, 20), acting_user=p["staff"],
                                   note="The O&M plan names no party responsible for maintenance.")
    if upto == "incomplete":
        return
    complete_package(app, p["staff"])
    sv.permit_items_received(application=app, acting_user=p["owner"])
    sv.permit_determine_complete(application=app, acting_user=p["staff"])
    if upto == "under_review":
        return
    if upto == "info_requested":
        sv.permit_request_information(application=app, items="Test pits", acting_user=p["staff"])
        return
    at(date(2026, 3, 9))
    sv.consultant_select(application=app, name="Pat", degree="PE", services="review", fee=D("900"),
                         notice_on=date(2026, 3, 9), acting_user=p["director"], user=p["consultant"])
    if upto == "consultant_fee_due":
        return
    if upto == "consultant_appeal":
        sv.consultant_appeal_file(application=app, received_on=date(2026, 3, 9), ground="conflict", statement="x",
                                  acting_user=p["owner"])
        return
    sv.consultant_fee_deposit(application=app, amount=D("900"), on=date(2026, 3, 9), reference="R",
                              acting_user=p["collector"])
    sv.waiver_request(application=app, requirement="Paper copies", justification="PDF", acting_user=p["owner"])
    w = app.waivers.get()
    sv.waiver_decide(waiver=w, grant=False, note="no", acting_user=p["director"])
    review_every_item(app, p["staff"])
    sv.permit_decide(application=app, kind="approve_conditions", findings="ok", standards=["380-11D"],
                     conditions=["Silt fence"], acting_user=p["director"])
    sv.project_change_notify(application=app, notified_on=date(2026, 3, 9), description="Move basin",
                             acting_user=p["owner"])
    if upto == "approved_conditions":
        return
    sv.permit_close(application=app, acting_user=p["director"])


ACTIONS = {  # a button only the right person sees in that state
    "draft": ("File the application", {"owner", "staff", "director"}),
    "filed": ("Determine complete", {"staff", "director"}),
    "incomplete": ("Deny as administratively incomplete", {"director"}),
    "under_review": ("Record the decision", {"director"}),
    "info_requested": ("Submit the response", {"owner", "staff", "director"}),
    "consultant_fee_due": ("Deny: consultant fee not paid", {"director"}),
    "consultant_appeal": ("Record the Select Board", {"clerk", "director"}),
    "approved_conditions": ("Send notice of change", {"owner", "staff", "director"}),
    "closed": ("Account report (PDF)", {"owner", "staff", "director", "collector", "clerk", "inspector", "consultant"}),
}


@pytest.mark.parametrize("upto", STEPS)
def test_each_state_renders_for_everyone_who_may_see_it(upto, draft, personas, at, client_for):
    advance(draft, personas, at, upto)
    draft.case.refresh_from_db()
    assert draft.case.status == upto
    label, who = ACTIONS[upto]
    roles = ["owner", "staff", "director", "collector", "clerk", "inspector"]
    if draft.consultants.exists():
        roles.append("consultant")
    for role in roles:
        r = client_for(personas[role]).get(f"/permits/{draft.case.number}/")
        assert r.status_code == 200, role
        assert (label in r.content.decode()) == (role in who), (role, label)
    assert client_for(personas["outsider"]).get(f"/permits/{draft.case.number}/").status_code == 404
