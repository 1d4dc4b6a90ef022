"""Issue 30: the relief page shows people the labels of its statuses and timeline events, never the stored
values ("granted_part", "decide_abatement")."""
from __future__ import annotations

import re
from datetime import date
from decimal import Decimal as D

from stormwater.receivables.services import payment_post
from stormwater.relief import services as sv

from .conftest import house_bill, pdf_upload

RAW = re.compile(r"\b[A-Za-z]+_[a-z_]+\b")


def visible_text(html: str) -> str:
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    html = re.sub(r"<[^>]+>", " ", html)     # attribute values (names, ids, classes) are not shown
    return html


def test_a_decided_abatements_page_shows_labels_not_stored_values(billed, personas, at, client_for):
    bill = house_bill(billed)
    at(date(2026, 9, 20))
    payment_post(account=bill.account, amount=D("53.16"), received_on=date(2026, 9, 20), acting_user=None)
    ab = sv.abatement_apply(bill=bill, grounds=["area"], statement="The shed is gone.", amount_requested=D("20.00"),
                            disposition="credit", acting_user=personas["owner"],
                            uploads=[("evidence", pdf_upload("survey.pdf"))])
    at(date(2026, 11, 1))
    # A written decision refused (here: nothing chosen) answers with the page again: its crumbs name the act.
    director = client_for(personas["director"])
    for url in (f"/relief/{ab.case.number}/act/decide_abatement/", f"/relief/{ab.case.number}/preview/decide_abatement/"):
        r = director.post(url, {})
        assert r.status_code == 400, url
        assert not RAW.findall(visible_text(r.content.decode())), (url, sorted(set(RAW.findall(visible_text(r.content.decode())))))
    sv.abatement_decide(abatement=ab, decision="grant_part", amount=D("12.50"), reasons="Part of the shed remains.",
                        acting_user=personas["director"])
    for who in ("director", "owner"):
        html = client_for(personas[who]).get(f"/relief/{ab.case.number}/").content.decode()
        text = visible_text(html)
        assert "Granted in part" in text, who
        assert not RAW.findall(text), (who, sorted(set(RAW.findall(text))))
