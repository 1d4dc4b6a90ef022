"""Issue 18 "linked to a permit by the applicant or staff", through the JSON API and the CLI as on the web page
(``permit_party_link``): ``GET|POST /api/permits/<n>/parties/``, ``GET|DELETE /api/permits/<n>/parties/<id>/`` and
``stormwater permit parties|link-party|unlink-party`` (JSON out). The applicant of the permit or staff link and
unlink; another owner is refused (404: the permit does not exist for them), a linked engineer may not link others
(403); bad input is 400 naming the field."""
import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from stormwater.accounts.models import Registration, User
from stormwater.audit.models import AuditEvent

pytestmark = pytest.mark.django_db


@pytest.fixture
def dana(db):
    u = User.objects.create_user(username="dana", password="pw-dana", role="consultant", email="dana@civil.example",
                                 first_name="Dana", last_name="Engineer")
    Registration.objects.create(user=u, kind="design_engineer", firm="Civil Co.", pe_state="MA", pe_number="45678")
    return u


@pytest.fixture
def cole(db):
    return User.objects.create_user(username="cole", password="pw-cole", role="owner", email="cole@build.example",
                                    first_name="Cole", last_name="Contractor")


def _as(user) -> Client:
    c = Client()
    c.force_login(user)
    return c


def _post(c, url, body):
    return c.post(url, json.dumps(body), content_type="application/json")


def test_the_applicant_links_lists_and_unlinks_through_the_api(draft, personas, dana, cole):
    number = draft.case.number
    url = f"/api/permits/{number}/parties/"
    owner = _as(personas["owner"])
    assert owner.get(url).json() == {"permit": number, "parties": []}
    r = _post(owner, url, {"who": "DANA@civil.example", "role": "design_engineer"})
    assert r.status_code == 201, r.content
    body = r.json()
    assert body["party"] == {"id": body["party"]["id"], "role": "design_engineer", "role_label": "Design engineer",
                             "name": "Dana Engineer", "firm": "Civil Co.", "pe": "PE MA No. 45678"}
    assert [p["name"] for p in body["parties"]] == ["Dana Engineer"]
    # the linked engineer now reaches the permit and sees its people, as on the web page
    ce = _as(dana)
    assert ce.get(f"/api/permits/{number}/").status_code == 200
    assert [p["role"] for p in ce.get(url).json()["parties"]] == ["design_engineer"]
    assert "Dana Engineer — Design engineer" in ce.get(f"/permits/{number}/").content.decode()
    # staff link the contractor
    r = _post(_as(personas["staff"]), url, {"who": "cole", "role": "contractor"})
    assert r.status_code == 201 and [p["name"] for p in r.json()["parties"]] == ["Dana Engineer", "Cole Contractor"]
    cole_id = r.json()["party"]["id"]
    assert ce.get(f"{url}{cole_id}/").json()["role"] == "contractor"
    # unlink: the applicant; the timeline and the audit keep it
    r = owner.delete(f"{url}{cole_id}/")
    assert r.status_code == 200 and [p["name"] for p in r.json()["parties"]] == ["Dana Engineer"]
    assert _as(cole).get(f"/api/permits/{number}/").status_code == 404  # no longer sees it
    assert draft.case.events.filter(kind="party", why__contains="no longer linked").count() == 1
    assert AuditEvent.objects.filter(action="permit.party_link").count() == 2
    assert AuditEvent.objects.filter(action="permit.party_unlink").count() == 1
    assert owner.delete(f"{url}{cole_id}/").status_code == 404  # not linked any more


def test_cross_owner_and_linked_people_are_refused(draft, personas, dana, cole):
    number = draft.case.number
    url = f"/api/permits/{number}/parties/"
    outsider = _as(personas["outsider"])
    # another owner: the permit does not exist for them (no probing), nothing linked
    assert outsider.get(url).status_code == 404
    assert _post(outsider, url, {"who": "dana", "role": "design_engineer"}).status_code == 404
    assert draft.case.parties.filter(user=dana).count() == 0
    # a linked engineer sees the permit but may not link others, nor unlink
    r = _post(_as(personas["owner"]), url, {"who": "dana", "role": "design_engineer"})
    dana_id = r.json()["party"]["id"]
    ce = _as(dana)
    r = _post(ce, url, {"who": "cole", "role": "contractor"})
    assert r.status_code == 403 and r.json()["error"] == "Only the applicant or staff link people to this permit."
    assert ce.delete(f"{url}{dana_id}/").status_code == 403
    assert outsider.delete(f"{url}{dana_id}/").status_code == 404
    # not signed in
    assert Client().get(url).status_code == 401
    # the owner, applicant or consultant party of the case is not a linked person (404, never unlinked here)
    applicant = draft.case.parties.exclude(role__in=["design_engineer", "contractor", "agent"]).first()
    if applicant is not None:
        assert _as(personas["owner"]).delete(f"{url}{applicant.pk}/").status_code == 404


@pytest.mark.parametrize("body, field", [
    ({"role": "design_engineer"}, "who: required"),
    ({"who": "", "role": "design_engineer"}, "who: required"),
    ({"who": 7, "role": "design_engineer"}, "who: must be text"),
    ({"who": "dana"}, "role: required"),
    ({"who": "dana", "role": "owner"}, "role: one of design_engineer, contractor, agent"),
    ({"who": "nobody@example.com", "role": "contractor"}, "who: No active account has the username or e-mail"),
    ({"who": "dana", "role": "contractor", "why": "x"}, "unknown field: why"),
])
def test_bad_input_is_400_naming_the_field(draft, personas, dana, body, field):
    r = _post(_as(personas["owner"]), f"/api/permits/{draft.case.number}/parties/", body)
    assert r.status_code == 400 and r.json()["error"].startswith(field), r.content


def test_linking_twice_is_400_naming_who(draft, personas, dana):
    url = f"/api/permits/{draft.case.number}/parties/"
    owner = _as(personas["owner"])
    assert _post(owner, url, {"who": "dana", "role": "design_engineer"}).status_code == 201
    r = _post(owner, url, {"who": "dana@civil.example", "role": "design_engineer"})
    assert r.status_code == 400 and r.json()["error"] == ("who: Dana Engineer is already linked to this permit as "
                                                          "its design engineer.")
    assert owner.put(url, "{}", content_type="application/json").status_code == 405


def _cli(*args):
    out = StringIO()
    call_command("permit", *args, stdout=out)
    return json.loads(out.getvalue())


def _cli_refused(*args) -> str:
    out = StringIO()
    with pytest.raises(CommandError) as e:
        call_command("permit", *args, stdout=out)
    assert json.loads(out.getvalue()) == {"error": str(e.value)}
    return str(e.value)


def test_the_cli_links_lists_and_unlinks_as_the_applicant_or_staff(draft, personas, dana, cole):
    number = draft.case.number
    out = _cli("link-party", number, "--who", "dana@civil.example", "--role", "design_engineer", "--by", "owner")
    assert out["permit"] == number and out["party"]["name"] == "Dana Engineer" and out["party"]["pe"]
    out = _cli("link-party", number, "--who", "cole", "--role", "contractor", "--by", "staff")
    assert [p["role"] for p in out["parties"]] == ["design_engineer", "contractor"]
    assert [p["name"] for p in _cli("parties", number, "--by", "dana")["parties"]] == ["Dana Engineer",
                                                                                     "Cole Contractor"]
    out = _cli("unlink-party", number, "--party", str(out["party"]["id"]), "--by", "owner")
    assert [p["name"] for p in out["parties"]] == ["Dana Engineer"]
    ev = draft.case.events.filter(kind="party").order_by("id")
    assert [e.actor.username for e in ev] == ["owner", "staff", "owner"]


def test_the_cli_refuses_another_owner_a_linked_engineer_and_bad_input(draft, personas, dana):
    number = draft.case.number
    assert _cli_refused("link-party", number, "--who", "dana", "--role", "design_engineer",
                        "--by", "outsider").startswith(f"number: no permit {number!r} that outsider may see")
    assert draft.case.parties.filter(user=dana).count() == 0
    _cli("link-party", number, "--who", "dana", "--role", "design_engineer", "--by", "owner")
    assert _cli_refused("link-party", number, "--who", "owner", "--role", "agent", "--by", "dana") == (
        "by: Only the applicant or staff link people to this permit.")
    assert _cli_refused("link-party", number, "--who", "ghost", "--role", "agent", "--by", "owner").startswith(
        "who: No active account has the username or e-mail address 'ghost'")
    assert _cli_refused("parties", number, "--by", "ghost") == "by: no active account 'ghost'"
    assert _cli_refused("unlink-party", number, "--party", "999999", "--by", "owner") == (
        "party: no linked person 999999 on this permit")
