"""Security of the public side: throttled login, CSP, CSRF, and another person's records unreachable."""
from __future__ import annotations

import re
from datetime import date
from decimal import Decimal as D

import pytest
from django.test import Client
from django.urls import URLPattern, get_resolver

from stormwater.utility.models import Bill

from .conftest import pdf_upload

pytestmark = pytest.mark.django_db


def _login(client, username, password, ip="10.0.0.1"):
    return client.post("/login/", {"username": username, "password": password}, REMOTE_ADDR=ip)


def test_login_is_throttled_per_username_and_ip_after_five_failures(client, personas):
    for _ in range(5):
        r = _login(client, "owner", "wrong")
        assert r.status_code == 200 and "didn't match" in r.content.decode()
    r = _login(client, "owner", "pw-owner")  # even the right password waits for the window
    assert r.status_code == 429 and "sign-in is paused for 15 minutes" in r.content.decode()
    assert 'role="alert"' in r.content.decode()
    assert "_auth_user_id" not in client.session
    # Another address, or another username from the same address, is not held up.
    assert _login(Client(), "owner", "pw-owner", ip="10.0.0.2").status_code == 302
    assert _login(Client(), "staff", "pw-staff").status_code == 302


def test_a_success_clears_the_count(client, personas, settings):
    settings.LOGIN_THROTTLE_FAILURES = 2
    _login(client, "owner", "wrong")
    assert _login(client, "owner", "pw-owner").status_code == 302
    client.logout()
    _login(client, "owner", "wrong")
    assert _login(client, "owner", "pw-owner").status_code == 302


def test_every_page_has_a_content_security_policy_without_unsafe_inline_scripts(client, personas, billed):
    for url in ("/portal/", "/login/", "/portal/parcels/02-01-1/"):
        r = client.get(url)
        csp = r["Content-Security-Policy"]
        assert "default-src 'self'" in csp and "object-src 'none'" in csp and "frame-ancestors 'none'" in csp
        script_src = re.search(r"script-src ([^;]*)", csp).group(1)
        assert "'unsafe-inline'" not in script_src and "'unsafe-eval'" not in script_src
        nonce = re.search(r"'nonce-([^']+)'", script_src).group(1)
        html = r.content.decode()
        for tag in re.findall(r"<script\b[^>]*>", html):  # every script is a file, or carries the nonce
            assert "src=" in tag or f'nonce="{nonce}"' in tag, tag
        assert not re.search(r"\son[a-z]+=\"", html)  # no inline event handlers
        assert r["X-Frame-Options"] == "DENY" and r["X-Content-Type-Options"] == "nosniff"


def test_the_nonce_differs_per_response(client, personas):
    a = client.get("/login/")["Content-Security-Policy"]
    b = client.get("/login/")["Content-Security-Policy"]
    assert a != b


def test_forms_without_the_csrf_token_are_refused(personas, billed):
    c = Client(enforce_csrf_checks=True)
    assert c.post("/login/", {"username": "owner", "password": "pw-owner"}).status_code == 403
    assert c.post("/portal/sign-up/", {"account_number": "x"}).status_code == 403
    c.force_login(personas["owner"])
    assert c.post("/relief/abatements/new/", {}).status_code == 403
    assert c.post("/permits/new/", {}).status_code == 403


# A view acting with the signed-in session must check the CSRF token; only the public calculators (which
# read no records and change nothing) may skip it.


def _exempt_names():
    return sorted(p.name for p in get_resolver().url_patterns
                  if isinstance(p, URLPattern) and getattr(p.callback, "csrf_exempt", False))


@pytest.mark.parametrize("name", _exempt_names())
def test_only_the_public_calculators_are_csrf_exempt(name):
    from tests.test_access import PUBLIC

    assert name in PUBLIC and (name.startswith("api_calc") or name == "api_permit_applicability")


def test_production_cookies_are_secure():
    import os
    import subprocess
    import sys

    code = ("import django,os;os.environ['DJANGO_SETTINGS_MODULE']='stormwater.settings';django.setup();"
            "from django.conf import settings as s;"
            "print(s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SESSION_COOKIE_HTTPONLY, s.SECURE_HSTS_SECONDS>0)")
    import secrets

    # A production configuration that passes start-up's refusals (issue 14: "x" * 50 is now refused as a key).
    env = {**os.environ, "STORMWATER_ENV": "production", "SECRET_KEY": secrets.token_urlsafe(50),
           "ALLOWED_HOSTS": "stormwater.example"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "True", "True", "True"]


@pytest.fixture
def records(billed, personas, at):
    """The owner persona's abatement (with an upload) and permit file (with a plan)."""
    from stormwater.parcels.models import Owner
    from stormwater.permits.services import permit_application_start, permit_document_upload
    from stormwater.receivables.services import payment_post
    from stormwater.relief.services import abatement_apply
    from stormwater.rules.applicability import determine

    bill = Bill.objects.get(parcel=billed["house"])
    at(date(2026, 9, 20))
    payment_post(account=bill.account, amount=D("53.16"), received_on=date(2026, 9, 20), acting_user=None)
    ab = abatement_apply(bill=bill, grounds=["area"], statement="The shed is gone.", amount_requested=D("10.00"),
                         disposition="refund", acting_user=personas["owner"],
                         uploads=[("evidence", pdf_upload())])
    owner = Owner.objects.get(user=personas["owner"])
    app = permit_application_start(
        acting_user=personas["owner"], owner=owner, owner_name=owner.name, owner_address=owner.mailing_address,
        site_address="1 Elm St", parcels=[billed["house"]], description="Subdivision",
        disturbance_sqft=D(87120), determination=determine(disturbance_sqft=D(87120), on=date(2026, 9, 20)))
    doc = permit_document_upload(application=app, upload=pdf_upload("plan.pdf"), tag="other", title="Site plan",
                                 acting_user=personas["owner"])
    return {"bill": bill, "abatement": ab, "permit": app, "permit_doc": doc,
            "relief_doc": ab.case.documents.first()}


def test_another_owner_cannot_reach_the_records_of_the_first(client_for, personas, records):
    c = client_for(personas["owner"])
    bill, ab, app = records["bill"], records["abatement"], records["permit"]
    own = [f"/bills/{bill.number}/", f"/bills/{bill.number}/pdf/", f"/accounts/{bill.account.number}/",
           f"/api/accounts/{bill.account.number}/", f"/relief/{ab.case.number}/",
           f"/relief/{ab.case.number}/documents/{records['relief_doc'].pk}/", f"/api/relief/{ab.case.number}/",
           f"/permits/{app.case.number}/", f"/permits/{app.case.number}/documents/{records['permit_doc'].pk}/",
           f"/api/permits/{app.case.number}/"]
    for url in own:
        assert c.get(url).status_code == 200, url
    c = client_for(personas["outsider"])
    for url in own:
        assert c.get(url).status_code == 404, url
    home = c.get("/portal/").content.decode()
    assert bill.number not in home and ab.case.number not in home and app.case.number not in home
    # Nor may they add to the first owner's files.
    n_relief, n_permit = ab.case.documents.count(), app.case.documents.count()
    r = c.post(f"/relief/{ab.case.number}/upload/", {"tag": "evidence", "file": pdf_upload()})
    assert r.status_code == 404
    r = c.post(f"/permits/{app.case.number}/upload/", {"tag": "other", "file": pdf_upload()})
    assert r.status_code == 404
    assert ab.case.documents.count() == n_relief and app.case.documents.count() == n_permit
    # Anonymous: a sign-in first, whatever the URL.
    anon = Client()
    for url in own:
        assert anon.get(url).status_code in (302, 401), url


def test_the_owner_sees_their_records_on_the_portal(client_for, personas, records):
    html = client_for(personas["owner"]).get("/portal/").content.decode()
    assert records["bill"].number in html and records["abatement"].case.number in html
    assert records["permit"].case.number in html
    assert "Decision on the abatement" in html or "due <strong>" in html  # the running clock and its due date


def test_uploads_are_checked_by_content_and_size(client_for, personas, records, settings):
    c = client_for(personas["owner"])
    app = records["permit"]
    n = app.case.documents.count()
    fake = pdf_upload("plan.pdf", b"MZ\x90\x00 this is a windows executable")
    r = c.post(f"/permits/{app.case.number}/upload/", {"tag": "other", "file": fake}, follow=True)
    assert app.case.documents.count() == n and r.status_code == 400  # the file page again, the refusal at the file
    settings.CASE_UPLOAD_MAX_BYTES = 10
    r = c.post(f"/permits/{app.case.number}/upload/", {"tag": "other", "file": pdf_upload("big.pdf")}, follow=True)
    assert app.case.documents.count() == n


def test_an_upload_whose_name_disagrees_with_its_content_is_refused_on_the_page(client_for, personas, records):
    """Issue 14: a JPEG header followed by HTML was stored as ``photo.hta``; a PDF named ``setup.pdf.exe`` was stored
    and opened inline."""
    c = client_for(personas["owner"])
    app = records["permit"]
    n = app.case.documents.count()
    hta = pdf_upload("photo.hta", b"\xff\xd8\xff\xe0\x00\x10JFIF\x00<html><script>alert(1)</script></html>")
    r = c.post(f"/permits/{app.case.number}/upload/", {"tag": "other", "file": hta}, follow=True)
    assert "“photo.hta” is a JPEG file by its content" in r.content.decode()
    r = c.post(f"/permits/{app.case.number}/upload/", {"tag": "other", "file": pdf_upload("setup.pdf.exe")},
               follow=True)
    assert "“setup.pdf.exe” is a PDF file by its content" in r.content.decode()
    assert app.case.documents.count() == n


def refuse_eicar(upload):
    """A test scan hook: refuses the EICAR test string, as a real scanner would."""
    return "EICAR test signature" if b"EICAR" in upload.read() else None


def test_the_virus_scan_hook_refuses_what_it_flags_and_is_off_by_default(client_for, personas, records, settings):
    c = client_for(personas["owner"])
    app = records["permit"]
    n = app.case.documents.count()
    flagged = pdf_upload("plan.pdf", b"%PDF-1.4\nEICAR-STANDARD-ANTIVIRUS-TEST-FILE\n%%EOF")
    assert settings.UPLOAD_SCAN_HOOK == ""
    c.post(f"/permits/{app.case.number}/upload/", {"tag": "other", "file": flagged})
    assert app.case.documents.count() == n + 1  # no hook: content and size checks only
    settings.UPLOAD_SCAN_HOOK = "tests.portal.test_security.refuse_eicar"
    flagged.seek(0)
    r = c.post(f"/permits/{app.case.number}/upload/", {"tag": "other", "file": flagged}, follow=True)
    assert "refused by the virus scan: EICAR test signature" in r.content.decode()
    assert app.case.documents.count() == n + 1
    c.post(f"/permits/{app.case.number}/upload/", {"tag": "other", "file": pdf_upload("clean.pdf")})
    assert app.case.documents.count() == n + 2
