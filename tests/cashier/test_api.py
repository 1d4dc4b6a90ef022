"""The office's JSON API (issue 17): a receipt, a duplicate asked, lien certificate requests."""
import json

from stormwater.cashier.models import LienCertificate, Receipt
from stormwater.utility.models import Account


def post(c, url, body):
    return c.post(url, json.dumps(body), content_type="application/json")


def test_receipt_api_posts_asks_about_a_duplicate_and_refuses_bad_input(billed, personas, client_for):
    c = client_for(personas["collector"])
    number = Account.objects.get(parcel=billed["house"], unit=None).number
    body = {"account": number, "amount": "10.00", "tender": "check", "reference": "900"}
    r = post(c, "/api/receipts/", body)
    assert r.status_code == 201 and r.json()["number"].startswith("R-") and r.json()["amount"] == "10.00"
    r = post(c, "/api/receipts/", body)
    assert r.status_code == 400 and r.json()["duplicate_of"][0]["reference"] == "900"
    assert post(c, "/api/receipts/", {**body, "confirm_duplicate": True}).status_code == 201
    for bad, field in (({**body, "tender": "gold"}, "tender"), ({**body, "amount": "NaN"}, "amount"),
                       ({**body, "account": "nope"}, "account"), ({**body, "extra": 1}, "extra"),
                       ({**body, "confirm_duplicate": "yes"}, "confirm_duplicate"),
                       ({**body, "received_on": "2026-13-01"}, "received_on")):
        r = post(c, "/api/receipts/", bad)
        assert r.status_code == 400 and field in r.json()["error"], (bad, r.json())
    assert Receipt.objects.count() == 2
    assert post(client_for(personas["staff"]), "/api/receipts/", body).status_code == 403


def test_lien_certificate_api(billed, personas, client_for):
    o = client_for(personas["owner"])
    r = post(o, "/api/lien-certificates/", {"parcel_id": "02-01-1", "requester_name": "Olivia Owner"})
    assert r.status_code == 201 and r.json()["due_on"] == "2026-11-12" and r.json()["figures"] is None
    cid = r.json()["id"]
    assert o.get(f"/api/lien-certificates/{cid}/").json()["channel"] == "online"
    assert post(o, "/api/lien-certificates/", {"parcel_id": "02-01-1", "requester_name": "O",
                                               "channel": "counter"}).status_code == 400
    assert post(o, "/api/lien-certificates/", {"parcel_id": "zz", "requester_name": "O"}).status_code == 400
    assert post(o, "/api/lien-certificates/", {"parcel_id": "02-01-1", "requester_name": "O",
                                               "requester_email": "bad"}).status_code == 400
    assert client_for(personas["outsider"]).get(f"/api/lien-certificates/{cid}/").status_code == 404
    assert LienCertificate.objects.count() == 1
