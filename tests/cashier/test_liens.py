"""Municipal lien certificates (MGL c.60 §23) for the stormwater charges of a parcel (issue 17)."""
from datetime import date
from decimal import Decimal as D

import pytest
from django.urls import reverse

from stormwater.cashier.liens import lien_certificate_issue, lien_certificate_request, lien_figures
from stormwater.cashier.models import LienCertificate
from stormwater.notices.models import NoticeSent
from stormwater.receivables.ledger import account_position
from stormwater.receivables.services import CollectionError, commitment_create, demand_serve
from stormwater.utility.models import Account
from stormwater.workqueue.selectors import work_queue_for_user

from .conftest import pdf_text


def acct(parcel):
    return Account.objects.get(parcel=parcel, unit=None)


def test_ten_days_roll_forward_over_a_legal_holiday(billed, personas):
    # requested Sun Nov 1: the tenth day is Wed Nov 11, Veterans Day (a legal holiday): Thu Nov 12 (MGL c.4 §9)
    c = lien_certificate_request(parcel=billed["shops"], requester_name="Pat Buyer", requested_on=date(2026, 11, 1),
                                 acting_user=personas["collector"])
    assert c.due_on == date(2026, 11, 12) and c.fee == D("25.00") and c.number == f"MLC-2026-{c.pk:05d}"
    with pytest.raises(CollectionError, match="future"):
        lien_certificate_request(parcel=billed["shops"], requester_name="X", requested_on=date(2026, 11, 3),
                                 acting_user=None)
    with pytest.raises(CollectionError, match="requester_name"):
        lien_certificate_request(parcel=billed["shops"], requester_name=" ", acting_user=None)


def test_the_fee_comes_from_the_town_configuration(billed, personas, town_toml):
    town_toml(lien_certificate_fee="50.00")
    c = lien_certificate_request(parcel=billed["shops"], requester_name="Pat", acting_user=personas["collector"])
    assert c.fee == D("50.00")


def test_certificate_lists_unpaid_charges_interest_to_date_demands_and_committed_amounts(billed, personas):
    collector = personas["collector"]
    shops, apts = acct(billed["shops"]), acct(billed["apartments"])
    demand_serve(account=shops, served_on=date(2026, 11, 1), acting_user=collector)
    d = demand_serve(account=apts, served_on=date(2026, 10, 15), acting_user=collector)
    commitment_create(tax_fiscal_year=2027, committed_on=date(2026, 10, 30), demands=[d], acting_user=collector)
    f = lien_figures(billed["shops"], as_of=date(2026, 11, 2))
    item = f["accounts"][0]["items"][0]
    assert (item["principal"], item["demand"]) == ("1414.06", "25.00")
    assert item["interest"] == str(account_position(shops, as_of=date(2026, 11, 2)).dues[0].interest)
    assert f["total"] == str(account_position(shops, as_of=date(2026, 11, 2)).total)
    # the apartments' demanded amount left the account as a lien: it is on the certificate as committed
    g = lien_figures(billed["apartments"], as_of=date(2026, 11, 2))
    # (the second installment, billed but issued only in the spring, is listed as not yet owed)
    assert [i["issued"] for i in g["accounts"][0]["items"]] == [False] and len(g["committed"]) == 1
    assert g["not_yet_due"] == g["accounts"][0]["items"][0]["total"]
    line = d.commitment_line
    assert g["committed"][0]["total"] == str(line.total) and g["total"] == str(line.total)
    # a condominium parcel's certificate covers every unit's account
    condo = lien_figures(billed["condo"], as_of=date(2026, 11, 2))
    assert len(condo["accounts"]) == Account.objects.filter(parcel=billed["condo"]).count()


def test_issue_needs_the_fee_fixes_the_figures_emails_the_pdf_and_leaves_the_queue(billed, personas):
    collector = personas["collector"]
    c = lien_certificate_request(parcel=billed["shops"], requester_name="Dana Attorney",
                                 requester_role="closing attorney", requester_email="dana@law.example",
                                 acting_user=collector)
    def queue(day):
        return [i for i in work_queue_for_user(user=collector, today=day).items if i.kind == "cashier.lien_certificate"]
    items = queue(date(2026, 11, 2))
    assert [i.due for i in items] == [c.due_on] and not items[0].overdue
    with pytest.raises(CollectionError, match="fee"):
        lien_certificate_issue(cert=c, acting_user=collector)
    c = lien_certificate_issue(cert=c, fee_reference="R-0000001", acting_user=collector)
    assert c.issued_on == date(2026, 11, 2) and c.total_due == D(c.figures["total"])
    n = NoticeSent.objects.get(kind="lien_certificate")
    assert n.to == "dana@law.example" and n.attachment_name == f"{c.number}.pdf"
    with pytest.raises(CollectionError, match="already issued"):
        lien_certificate_issue(cert=c, acting_user=collector)
    assert queue(date(2026, 11, 2)) == []
    lien_certificate_request(parcel=billed["house"], requester_name="Late", acting_user=collector)
    assert [i.overdue for i in queue(date(2026, 11, 20))] == [True]
    assert work_queue_for_user(user=personas["staff"], today=date(2026, 11, 20)).items == [] or all(
        i.source != "collector_office" for i in work_queue_for_user(user=personas["staff"], today=date(2026, 11, 20)).items)


def test_online_request_and_counter_issue_through_the_pages(billed, personas, client_for):
    c = client_for(personas["owner"])
    r = c.post(reverse("lien_certificate_request"), {"parcel_id": "02-01-1", "requester_name": "Olivia Owner",
                                                     "requester_role": "buyer", "requester_email": "o@example.org"})
    cert = LienCertificate.objects.get()
    assert r.status_code == 302 and cert.channel == "online" and cert.requested_by == personas["owner"]
    assert c.get(reverse("cashier_lien", args=[cert.pk])).status_code == 200
    assert c.get(reverse("cashier_lien_pdf", args=[cert.pk])).status_code == 404  # not issued yet
    assert c.post(reverse("cashier_lien", args=[cert.pk]), {"fee_reference": "x"}).status_code == 404
    assert client_for(personas["outsider"]).get(reverse("cashier_lien", args=[cert.pk])).status_code == 404
    r = c.post(reverse("lien_certificate_request"), {"parcel_id": "nope", "requester_name": "X"})
    assert r.status_code == 400 and "No such parcel" in r.content.decode()
    s = client_for(personas["collector"])
    assert "Waiting to be issued" in s.get(reverse("cashier_liens")).content.decode()
    r = s.post(reverse("cashier_lien", args=[cert.pk]), {"fee_reference": "check 881"}, follow=True)
    assert "issued" in r.content.decode()
    text = pdf_text(s.get(reverse("cashier_lien_pdf", args=[cert.pk])).content)
    assert cert.number in text and "MGL c.60 §23" in text and "1,414.06" in text and "02-01-1" in text
    r = s.post(reverse("cashier_liens"), {"parcel_id": "01-01-1", "requester_name": "Walk In", "channel": "counter",
                                          "fee_reference": "cash"})
    assert r.status_code == 302 and LienCertificate.objects.filter(channel="counter").count() == 1
