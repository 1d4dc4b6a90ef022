"""Sign-up linked to the record owner by the verification code printed on the bill."""
from __future__ import annotations

import pytest
from django.template.loader import render_to_string

from stormwater.accounts.models import User
from stormwater.audit.models import AuditEvent
from stormwater.parcels.models import Owner
from stormwater.portal.codes import normalize_code, verification_code, verification_code_matches
from stormwater.portal.services import ERR_CODE, ERR_LINKED
from stormwater.utility.models import Bill

pytestmark = pytest.mark.django_db


def _form(account, code, username="shopsowner", **kw):
    return {"account_number": account, "code": code, "username": username, "email": "shops@example.org",
            "password1": "rain-garden-2026", "password2": "rain-garden-2026", **kw}


def test_the_code_is_an_hmac_of_the_account_number_under_the_secret_key(settings):
    a = verification_code("ACC-1")
    assert a == verification_code("ACC-1") and a != verification_code("ACC-2")
    assert len(a) == 11 and a[5] == "-" and not set(a) & set("0189")
    assert verification_code_matches("ACC-1", a.lower().replace("-", " "))
    assert normalize_code(" abcde fghij ") == "ABCDE-FGHIJ"
    settings.SECRET_KEY = "another-key-" * 4
    assert verification_code("ACC-1") != a


def test_the_bill_pdf_prints_the_code(billed):
    bill = Bill.objects.get(parcel=billed["shops"])
    html = render_to_string("utility/bill_pdf.html", {"bill": bill, "installments": bill.installments.all(),
                                                      "resolution": bill.run.resolution, "town": "Town"})
    assert verification_code(bill.account.number) in html and bill.account.number in html


def test_a_new_owner_signs_up_and_sees_only_their_bills(client, billed):
    shops = Bill.objects.get(parcel=billed["shops"])
    r = client.post("/portal/sign-up/", _form(shops.account.number, verification_code(shops.account.number)))
    assert r.status_code == 302 and r.url == "/portal/"
    user = User.objects.get(username="shopsowner")
    assert user.role == "owner" and user.email == "shops@example.org"
    assert Owner.objects.get(name="Shops LLC").user == user
    assert AuditEvent.objects.filter(action="portal.owner_signup", actor=user).count() == 1
    home = client.get("/portal/").content.decode()
    assert shops.number in home
    assert client.get(f"/bills/{shops.number}/").status_code == 200
    mine = Bill.objects.get(parcel=billed["house"])
    assert mine.number not in home and client.get(f"/bills/{mine.number}/").status_code == 404


def test_a_wrong_code_or_unknown_account_creates_nothing_and_says_the_same(client, billed):
    shops = Bill.objects.get(parcel=billed["shops"])
    for account, code in ((shops.account.number, "AAAAA-AAAAA"), ("NO-SUCH", verification_code("NO-SUCH"))):
        r = client.post("/portal/sign-up/", _form(account, code))
        assert r.status_code == 200 and ERR_CODE in r.content.decode()
        assert 'role="alert"' in r.content.decode()
    assert not User.objects.filter(username="shopsowner").exists()
    assert Owner.objects.get(name="Shops LLC").user is None


def test_an_owner_already_linked_cannot_be_claimed_again(client, billed):
    mine = Bill.objects.get(parcel=billed["house"])  # Olivia is linked to the owner persona
    r = client.post("/portal/sign-up/", _form(mine.account.number, verification_code(mine.account.number)))
    assert ERR_LINKED in r.content.decode() and not User.objects.filter(username="shopsowner").exists()


def test_sign_up_is_throttled_after_five_wrong_codes(client, billed):
    shops = Bill.objects.get(parcel=billed["shops"])
    for _ in range(5):
        assert client.post("/portal/sign-up/", _form(shops.account.number, "AAAAA-AAAAA")).status_code == 200
    r = client.post("/portal/sign-up/", _form(shops.account.number, verification_code(shops.account.number)))
    assert r.status_code == 429 and "Too many attempts" in r.content.decode()
    assert not User.objects.filter(username="shopsowner").exists()


def test_weak_passwords_and_taken_usernames_are_refused(client, billed):
    shops = Bill.objects.get(parcel=billed["shops"])
    code = verification_code(shops.account.number)
    r = client.post("/portal/sign-up/", _form(shops.account.number, code, password1="password", password2="password"))
    assert "too common" in r.content.decode()
    r = client.post("/portal/sign-up/", _form(shops.account.number, code, username="owner"))
    assert "username is taken" in r.content.decode()
    assert Owner.objects.get(name="Shops LLC").user is None
