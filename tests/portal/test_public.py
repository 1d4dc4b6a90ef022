"""What anyone may see without signing in: a parcel's fee facts, never its owner, bills or cases."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_it_finds_a_parcel_by_address_or_id_but_not_by_owner_name(client, billed):
    r = client.get("/portal/parcels/", {"q": "02-01-1"})
    assert r.status_code == 200 and "/portal/parcels/02-01-1/" in r.content.decode()
    r = client.get("/portal/parcels/", {"q": "01-01-1 Test"})
    assert "/portal/parcels/01-01-1/" in r.content.decode()
    r = client.get("/portal/parcels/", {"q": "Olivia"})  # the owner persona's name
    assert "/portal/parcels/01-01-1/" not in r.content.decode() and "0 properties found" in r.content.decode()


def test_a_short_query_is_an_error_tied_to_its_field(client, billed):
    r = client.get("/portal/parcels/", {"q": "x"})
    html = r.content.decode()
    assert r.status_code == 200 and 'role="alert"' in html
    assert 'aria-invalid="true"' in html and 'aria-describedby="id_q_helptext id_q_error"' in html


def test_the_parcel_page_explains_the_fee_without_the_owner(client, billed):
    r = client.get("/portal/parcels/02-01-1/")
    html = r.content.decode()
    assert r.status_code == 200
    assert "59" in html and "Nonresidential" in html and "200,000 square feet" in html
    assert "Declining blocks" in html and "a year" in html
    assert "Shops LLC" not in html and "PO Box 1" not in html  # owner name and address are not public
    assert "/bills/" not in html
    own = client.get("/portal/parcels/01-01-1/").content.decode()
    assert "Olivia" not in own and "1 Elm St" not in own


def test_an_unknown_parcel_is_404_and_its_geojson_too(client, billed):
    assert client.get("/portal/parcels/99-99-9/").status_code == 404
    assert client.get("/portal/parcels/99-99-9/geojson").status_code == 404
    r = client.get("/portal/parcels/01-01-1/geojson")
    assert r.status_code == 200 and r.json()["type"] == "FeatureCollection"


def test_the_parcel_page_lists_credits_in_force(client, billed):
    from stormwater.portal.selectors import public_credits
    from stormwater.parcels.models import Parcel

    assert public_credits(parcel=Parcel.objects.get(parcel_id="01-01-1"), on=billed["survey"].surveyed_on) == []
    assert "Credits in force" in client.get("/portal/parcels/01-01-1/").content.decode()


def test_the_portal_page_is_public_and_private_things_need_a_sign_in(client, billed):
    r = client.get("/portal/")
    assert r.status_code == 200 and "Find a property" in r.content.decode()
    for url in ("/bills/", "/relief/", "/permits/", "/parcels/01-01-1/"):
        r = client.get(url)
        assert r.status_code == 302 and r.url.startswith("/login/")
