"""Issue 16 "Preview, confirm, undo": every submit button guards against a double submission (the shared
script in base.html), and the server refuses a second identical submit of an irreversible act: the form
carries a one-time token; the second post with the same token does nothing and goes where the first went."""
import re
from datetime import date
from decimal import Decimal as D

from stormwater.audit.models import AuditEvent
from stormwater.receivables.services import payment_post
from stormwater.relief import services as sv

from .conftest import house_bill


def _token(page: str, action: str) -> str:
    form = re.search(rf'<form[^>]*action="[^"]*/act/{action}/"[^>]*>(.*?)</form>', page, re.S).group(1)
    return re.search(r'name="submit_token" value="([^"]+)"', form).group(1)


def test_a_written_decision_posted_twice_with_its_token_is_issued_once(client_for, personas, billed, at):
    bill = house_bill(billed)
    at(date(2026, 9, 20))
    payment_post(account=bill.account, amount=D("53.16"), received_on=date(2026, 9, 20), acting_user=None)
    ab = sv.abatement_apply(bill=bill, grounds=["area"], statement="x", amount_requested=D("5"),
                            disposition="refund", acting_user=personas["owner"])
    d = client_for(personas["director"])
    page = d.get(f"/relief/{ab.case.number}/").content.decode()
    token = _token(page, "decide_abatement")
    post = {"decision": "deny", "reasons": "No error shown.", "submit_token": token}
    first = d.post(f"/relief/{ab.case.number}/act/decide_abatement/", post)
    assert first.status_code == 302
    second = d.post(f"/relief/{ab.case.number}/act/decide_abatement/", post, follow=True)
    assert second.status_code == 200 and "already sent" in second.content.decode()
    assert second.redirect_chain[-1][0] == first.url
    assert AuditEvent.objects.filter(action="abatement.decide").count() <= 1
    assert ab.case.events.filter(to_status="denied").count() == 1
    assert ab.case.documents.filter(generated=True, tag="decision").count() == 1


def test_every_page_loads_the_shared_double_submit_guard(client_for, personas, db):
    page = client_for(personas["director"]).get("/").content.decode()
    assert re.search(r'<script[^>]*src="[^"]*stormwater/forms\.js"[^>]*nonce=', page)
