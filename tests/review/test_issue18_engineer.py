"""Issue 18, "The applicant's engineer has no way in": sign-up by e-mailed link for people who are not owners, the
applicant linking them to the permit, the plan's data file uploaded, the review attached to their own permit; and
an engaged outside consultant attaching a review to the permit (answered 400 before)."""
import re
from datetime import date
from decimal import Decimal

import pytest
from django.core import mail
from django.core.files.uploadedfile import SimpleUploadedFile

from stormwater.accounts.models import User
from stormwater.review.models import Review



@pytest.fixture
def draft(town, personas, settings, tmp_path):
    """A draft application by the owner persona for their own lot (as tests/permits/conftest.py)."""
    from stormwater.parcels.models import Owner
    from stormwater.permits.services import permit_application_start
    from stormwater.rules.applicability import determine

    settings.MEDIA_ROOT = tmp_path / "media"
    owner = Owner.objects.get(user=personas["owner"])
    return permit_application_start(
        acting_user=personas["owner"], owner=owner, owner_name=owner.name, owner_address=owner.mailing_address,
        site_address="1 Elm St", parcels=[town["house"]], description="Eight-lot subdivision with a new road",
        disturbance_sqft=Decimal(87120), determination=determine(disturbance_sqft=Decimal(87120), on=date(2026, 3, 2)))


def _as(user):
    from django.test import Client

    c = Client()
    c.force_login(user)
    return c


def _signup(client, **kw):
    data = dict(kind="design_engineer", first_name="Dana", last_name="Engineer", email="dana@civil.example",
                username="dana", firm="Civil Co.", phone="413-555-0100", mailing_address="9 Main St\nSpringfield",
                pe_state="MA", pe_number="45678")
    data.update(kw)
    return client.post("/sign-up/", data)


def test_an_engineer_signs_up_by_the_e_mailed_link(client, db, settings, django_capture_on_commit_callbacks):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    assert client.get("/sign-up/").status_code == 200
    r = _signup(client, pe_number="")
    assert r.status_code == 400 and "professional engineer registration" in r.content.decode()
    assert not User.objects.filter(username="dana").exists()
    with django_capture_on_commit_callbacks(execute=True):
        r = _signup(client)
    assert r.status_code == 302 and r.url == "/sign-up/sent/"
    u = User.objects.get(username="dana")
    assert u.role == "consultant" and not u.has_usable_password()  # nobody signs in before opening the link
    assert u.registration.pe == "PE MA No. 45678" and u.credentials == "PE MA No. 45678"
    assert u.registration.firm == "Civil Co." and u.registration.phone == "413-555-0100"
    assert client.post("/login/", {"username": "dana", "password": "x"}).status_code != 302
    (m,) = [m for m in mail.outbox if "dana@civil.example" in m.to]
    link = re.search(r"https?://\S+/password-reset/\S+/", m.body).group(0)
    path = link.split("://", 1)[1].split("/", 1)[1]
    r = client.get("/" + path, follow=True)
    form_url = r.redirect_chain[-1][0] if r.redirect_chain else "/" + path
    r = client.post(form_url, {"new_password1": "gravel swale outlet 42", "new_password2": "gravel swale outlet 42"})
    assert r.status_code == 302
    assert client.login(username="dana", password="gravel swale outlet 42")
    # the same address twice is refused at the field
    r = _signup(client, username="dana2")
    assert r.status_code == 400 and "already uses this e-mail" in r.content.decode()


def test_the_applicant_links_the_engineer_who_then_uploads_and_reviews_on_the_permit(draft, personas, client_for,
                                                                                      example_text):
    eng = User.objects.create_user(username="dana", password="pw-dana", role="consultant", email="dana@civil.example",
                                   first_name="Dana", last_name="Engineer")
    number = draft.case.number
    ce = _as(eng)
    assert ce.get(f"/permits/{number}/").status_code == 404  # not linked: not seen
    r = ce.post(f"/api/reviews/?case={number}", example_text, content_type="application/x-yaml")
    assert r.status_code == 400
    co = _as(personas["owner"])
    r = co.post(f"/permits/{number}/people/", {"who": "DANA@civil.example", "role": "design_engineer"}, follow=True)
    assert "Linked to the permit." in r.content.decode()
    assert _as(personas["outsider"]).post(f"/permits/{number}/people/", {"who": "dana", "role": "contractor"}
                                                 ).status_code == 404
    page = ce.get(f"/permits/{number}/")
    assert page.status_code == 200 and "Dana Engineer — Design engineer" in page.content.decode()
    up = SimpleUploadedFile("plan.yaml", example_text.encode(), content_type="application/octet-stream")
    r = ce.post(f"/permits/{number}/upload/", {"tag": "plan_data", "file": up}, follow=True)
    assert "plan.yaml added to the file." in r.content.decode()
    doc = draft.case.documents.get(tag="plan_data")
    assert doc.content_type == "application/yaml"
    js = SimpleUploadedFile("plan.json", b'{"project": {"name": "x"}}', content_type="application/json")
    assert ce.post(f"/permits/{number}/upload/", {"tag": "plan_data", "file": js}).status_code == 302
    assert draft.case.documents.filter(tag="plan_data", content_type="application/json").exists()
    assert ce.get("/reviews/new/").status_code == 200
    r = ce.post(f"/api/reviews/?case={number}", example_text, content_type="application/x-yaml")
    assert r.status_code == 201, r.content
    assert Review.objects.get(pk=r.json()["id"]).case == draft.case


def test_an_engaged_consultant_attaches_a_review_to_the_permit(draft, personas, client_for, example_text):
    from stormwater.permits.models import ConsultantEngagement

    ConsultantEngagement.objects.create(application=draft, name="Pat Reviewer", services="review", fee=Decimal("900"),
                                        notice_on=date(2026, 3, 9), user=personas["consultant"], state="engaged")
    r = client_for(personas["consultant"]).post(f"/api/reviews/?case={draft.case.number}", example_text,
                                                content_type="application/x-yaml")
    assert r.status_code == 201, r.content
    assert Review.objects.get(pk=r.json()["id"]).case == draft.case


def test_the_report_and_the_letter_carry_the_reviewer_s_name_and_contact(draft, personas, example_text):
    """The consultant's report and the Town's review letter did not say who reviewed or how to reach them."""
    import shutil
    import subprocess

    from django.test import RequestFactory

    from stormwater.accounts.models import Registration
    from stormwater.review.documents import review_pdf
    from stormwater.review.services import review_run
    from stormwater.review.views_sheets import _letter_context
    from stormwater.utility.documents import render_pdf

    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext (poppler-utils) is not installed")

    def text(pdf):
        return " ".join(subprocess.run(["pdftotext", "-", "-"], input=pdf, capture_output=True, check=True)
                        .stdout.decode().split())

    eng = User.objects.create_user(username="dana", role="consultant", email="dana@civil.example", first_name="Dana",
                                   last_name="Engineer", credentials="PE MA No. 45678")
    Registration.objects.create(user=eng, kind="design_engineer", firm="Civil Co.", phone="413-555-0100",
                                pe_state="MA", pe_number="45678")
    review = review_run(input_text=example_text, input_name="plan.yaml", acting_user=eng)
    t = text(review_pdf(review))
    assert "Dana Engineer, PE MA No. 45678" in t and "Civil Co. · dana@civil.example · 413-555-0100" in t
    assert "DPW Stormwater Division" not in t.split("Engineering review", 1)[0] + t[:80]
    staff = personas["staff"]
    staff.first_name, staff.last_name, staff.email = "Sam", "Staffer", "sam@longmeadow.example"
    staff.save()
    review.case = draft.case
    review.save()
    t = text(render_pdf("review/letter_pdf.html", _letter_context(review, staff)))
    assert "Reviewer: Sam Staffer" in t and "sam@longmeadow.example" in t
    del RequestFactory
