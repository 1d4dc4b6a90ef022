"""Issue 16 "Forms" (done when: "a refused staff form keeps every typed value and marks the field"): the Director's
forms on a person's page, one's own profile and the API tokens page, refused, come back as their page (400) with
what was typed and the error at the input (``web.postdata.refused``); nothing is changed."""
from office_refill import assert_refused
from stormwater.api.models import ApiToken


def test_user_role_unchanged(client_for, personas):
    """A role the person already has: the role chosen and the reason typed stay, the role is marked."""
    person = personas["collector"]
    c = client_for(personas["director"])
    url = f"/users/{person.pk}/role/"
    assert_refused(c.post(url, {"role": "collector", "why": "Moved to Finance"}), url, "role",
                   {"role": "collector", "why": "Moved to Finance"})
    person.refresh_from_db()
    assert person.role == "collector"


def test_profile_name_too_long(client_for, personas):
    c = client_for(personas["inspector"])
    posted = {"first_name": "A" * 200, "last_name": "Inspector", "credentials": "CPESC #1234"}
    assert_refused(c.post("/account/profile/", posted), "/account/profile/", "first_name", posted)
    personas["inspector"].refresh_from_db()
    assert personas["inspector"].credentials == ""


def test_api_token_without_a_name(client_for, personas):
    c = client_for(personas["director"])
    assert_refused(c.post("/api-tokens/", {"name": "  ", "role": "assessor"}), "", "name",
                   {"name": "  ", "role": "assessor"})
    assert not ApiToken.objects.exists()
