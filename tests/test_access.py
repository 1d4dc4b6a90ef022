"""Every view and endpoint checks the role; an owner reaches only their own parcels and bills."""
from datetime import date

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from stormwater.utility.models import Bill
from stormwater.utility.services import bill_run_issue, fiscal_year


def _callbacks(patterns=None):
    for p in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(p, URLResolver):
            yield from _callbacks(p.url_patterns)
        else:
            assert isinstance(p, URLPattern)
            yield p.name, p.callback


def test_every_url_is_guarded_or_deliberately_public():
    unguarded = [name for name, cb in _callbacks()
                 if not hasattr(cb, "required_perm") and not getattr(cb, "is_public", False)
                 and not getattr(getattr(cb, "view_class", None), "is_public", False)]
    assert unguarded == []


PUBLIC = {"login", "logout", "healthz", "readyz",  # monitors (issue 28): states and ages only
          # Sign-in's second step (nobody is signed in until it passes; it needs the right password first, kept in
          # the session) and the password reset by e-mailed link (issue 14): before anyone is signed in.
          "login_two_factor", "login_two_factor_setup", "password_reset", "password_reset_done",
          "password_reset_confirm", "password_reset_complete", "api_calc_fee", "api_calc_split", "api_calc_engineering", "api_calc_interest",
          "api_calc_deadline",  # Ch. 295 Art. IV clocks (issue 5): computes from what is sent, reads no records
          # Ch. 380 applicability questionnaire and its API: the applicant's first question, asked before
          # any account exists; computes from what is sent and reads no records (like the calculators).
          "permit_applicability", "api_permit_applicability",
          # The public portal (issue 9): the landing page and sign-up (before any account exists), and a
          # parcel's fee facts by address/parcel id — class, impervious area, map, ERUs, fee, explanation,
          # credits — the public facts the fee is computed from; never owner names, bills or cases.
          "portal_home", "portal_parcel_search", "portal_parcel", "portal_parcel_geojson", "portal_signup",
          # The JSON API's contract (issue 15): the OpenAPI document and its reference page describe the API.
          "api_openapi", "api_docs",
          # A person's work queue as an iCalendar feed (issue 16): calendar clients send no cookie, so the secret,
          # revocable link is the credential (stormwater.workqueue.selectors.calendar_feed_user; 404 otherwise).
          "work_queue_ical",
          # The inspector's phone pages (issue 18): the service worker script and the web app manifest are static
          # code and a static description (scope /field/); they read no records. Every field page itself is guarded.
          "field_service_worker", "field_manifest",
          # Sign-up for applicants, design engineers and contractors (issue 18): before any account exists; the
          # account has no usable password until the e-mailed link is opened.
          "professional_signup", "professional_signup_sent"}


def test_only_the_expected_urls_are_public():
    public = {name for name, cb in _callbacks() if not hasattr(cb, "required_perm")}
    assert public == PUBLIC


@pytest.fixture
def billed(town, resolution):
    label, start, end = fiscal_year(2027)
    bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2026, 9, 15),
                   acting_user=None)
    return town


def test_anonymous_users_are_sent_to_login_and_api_says_401(client, billed):
    r = client.get("/parcels/")
    assert r.status_code == 302 and r.url.startswith("/login/")
    assert client.get("/api/parcels/").status_code == 401


def test_an_owner_sees_only_their_own_parcels(client_for, personas, billed):
    c = client_for(personas["owner"])
    r = c.get("/parcels/")
    assert "01-01-1" in r.content.decode() and "02-01-1" not in r.content.decode()
    # The condominium where the owner holds unit A is theirs too.
    assert "04-01-1" in r.content.decode()
    assert c.get("/parcels/01-01-1/").status_code == 200
    assert c.get("/parcels/02-01-1/").status_code == 404  # not theirs: same answer as "no such parcel"
    assert c.get("/api/parcels/02-01-1/").status_code == 404
    ids = {p["parcel_id"] for p in c.get("/api/parcels/").json()["parcels"]}
    assert ids == {"01-01-1", "04-01-1"}


def test_an_owner_sees_only_their_own_bills(client_for, personas, billed):
    c = client_for(personas["owner"])
    mine = Bill.objects.get(parcel=billed["house"])
    theirs = Bill.objects.get(parcel=billed["house2"])
    other_unit = Bill.objects.get(parcel=billed["condo"], account__unit__unit="B")
    my_unit = Bill.objects.get(parcel=billed["condo"], account__unit__unit="A")
    assert c.get(f"/bills/{mine.number}/").status_code == 200
    assert c.get(f"/bills/{my_unit.number}/").status_code == 200
    for b in (theirs, other_unit):
        assert c.get(f"/bills/{b.number}/").status_code == 404
        assert c.get(f"/bills/{b.number}/pdf/").status_code == 404
        assert c.get(f"/api/bills/{b.number}/").status_code == 404
    listed = c.get("/bills/").content.decode()
    assert mine.number in listed and theirs.number not in listed and other_unit.number not in listed
    # The condo page shows the owner's own unit bill only.
    page = c.get("/parcels/04-01-1/").content.decode()
    assert my_unit.number in page and other_unit.number not in page


@pytest.mark.parametrize("role,url,status", [
    ("owner", "/bill-runs/", 403), ("consultant", "/bill-runs/", 403), ("inspector", "/bill-runs/new/", 403),
    ("assessor", "/bill-runs/new/", 403), ("clerk", "/bill-runs/new/", 403), ("collector", "/bill-runs/new/", 200),
    ("staff", "/bill-runs/new/", 200), ("director", "/bill-runs/new/", 200),
    ("owner", "/rates/", 403), ("clerk", "/rates/new/", 200), ("collector", "/rates/new/", 403),
    ("consultant", "/parcels/02-01-1/", 404), ("inspector", "/parcels/02-01-1/", 200),
    ("owner", "/billing-problems/", 403), ("staff", "/billing-problems/", 200),
])
def test_role_matrix(client_for, personas, billed, role, url, status):
    assert client_for(personas[role]).get(url).status_code == status


def test_api_bill_run_requires_the_billing_role(client_for, personas, billed):
    r = client_for(personas["owner"]).post("/api/bill-runs/", {"fiscal_year": 2028}, content_type="application/json")
    assert r.status_code == 403


def test_only_classifiers_may_override_a_class(client_for, personas, billed):
    r = client_for(personas["collector"]).post("/parcels/02-01-1/class/", {"property_class": "exempt", "reason": "x"})
    assert r.status_code == 403
    billed["shops"].refresh_from_db()
    assert billed["shops"].class_override == ""


def test_an_associations_instrument_is_read_by_who_sees_the_parcel_and_recorded_by_parcel_editors(client_for, personas,
                                                                                                   town):
    # Ch. 295 Art. IV ¶G (issue 17): a unit owner reads the instrument; only parcel editors record one.
    from stormwater.parcels.models import AssociationInstrument

    body = {"reference": "Book 7 Page 7", "recorded_on": "2026-11-02",
            "shares": [{"unit_parcel_id": "02-01-1", "share_percent": "100"}]}
    owner = client_for(personas["owner"])  # owns unit A of the condominium
    got = owner.get("/api/parcels/04-01-1/association/").json()
    assert got["in_force"]["reference"] == "Book 1 Page 2"
    assert owner.post("/api/parcels/04-01-1/association/", body, content_type="application/json").status_code == 403
    assert owner.post("/parcels/04-01-1/association/", {"reference": "x"}).status_code == 403
    assert "Record new instrument" not in owner.get("/parcels/04-01-1/").content.decode()
    assert client_for(personas["outsider"]).get("/api/parcels/04-01-1/association/").status_code == 404
    for role in ("collector", "clerk", "inspector"):
        r = client_for(personas[role]).post("/api/parcels/04-01-1/association/", body, content_type="application/json")
        assert r.status_code == 403, role
    assert AssociationInstrument.objects.count() == 1
    r = client_for(personas["assessor"]).post("/api/parcels/04-01-1/association/", body,
                                              content_type="application/json")
    assert r.status_code == 201 and AssociationInstrument.objects.count() == 2
