"""Found by schemathesis and the malformed sweep on PostgreSQL only (SQLite stores what PostgreSQL refuses):
a NUL character in a parameter and a text longer than its column were 500s. Both are 400s naming the field."""
import pytest


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/api/parcels/?q=a%00b", "/parcels/?q=a%00b"])
def test_a_nul_character_in_a_parameter_is_refused_by_name(client_for, personas, url):
    r = client_for(personas["staff"]).get(url)
    assert r.status_code == 400
    text = r.json()["error"] if url.startswith("/api/") else r.content.decode()
    assert text.startswith("q: contains a NUL character")


@pytest.mark.django_db
def test_a_nul_character_in_a_json_text_field_is_refused_by_name():
    from stormwater.web.jsonapi import BadInput, text_field

    with pytest.raises(BadInput, match="receipt: contains a NUL"):
        text_field({"receipt": "12\x003"}, "receipt")
    with pytest.raises(BadInput, match="receipt: at most 60 characters"):
        text_field({"receipt": "x" * 61}, "receipt", max_length=60)
    assert text_field({"receipt": "x" * 60}, "receipt", max_length=60) == "x" * 60


def test_a_form_posted_to_an_endpoint_that_reads_the_raw_body_is_not_a_500(client_for, personas):
    """The NUL check parses a multipart form before the view; /api/reviews/ then read request.body and
    raised RawPostDataException (CI: every ?title= value of the malformed sweep was a 500)."""
    c = client_for(personas["director"])
    c.raise_request_exception = False
    r = c.post("/api/reviews/?title=x", {"note": "a form, not a plan"})
    assert r.status_code == 400, r.content[:300]
    assert "error" in r.json()
