"""Issue 16 "Forms" (done when: "a refused staff form keeps every typed value and marks the field"): the construction
file's hand-written row forms, refused by their service, come back as the file page (400) with the form as it was
sent and the error at the input (``web.postdata.refused`` → ``web.refill``); nothing is recorded."""
import re

from stormwater.construction.models import RainEvent

from .test_web import started  # noqa: F401  (fixture)


def _tag(page: str, name: str, form_action: str) -> str:
    """The start tag of the input ``name`` in the form posting to ``form_action``."""
    m = re.search(r'<form[^>]*action="%s"[^>]*>(.*?)</form>' % re.escape(form_action), page, re.S)
    assert m, f"no form posting to {form_action}"
    t = re.search(r'<(?:input|select|textarea)[^>]*name="%s"[^>]*>' % re.escape(name), m.group(1))
    assert t, f"no {name} in the form"
    return t.group(0)


def test_rainfall_refused_keeps_every_value_and_marks_the_field(client_for, personas, started):  # noqa: F811
    c = client_for(personas["inspector"])
    url = f"/construction/{started.case.number}/rain/"
    n = RainEvent.objects.count()
    r = c.post(url, {"ended_at": "2026-04-21T07:00", "rain_in": "1.2.5", "snow_in": "0", "source": "DPW gauge"})
    assert r.status_code == 400 and RainEvent.objects.count() == n
    page = r.content.decode()
    rain = _tag(page, "rain_in", url)
    assert 'value="1.2.5"' in rain and 'aria-invalid="true"' in rain and 'aria-describedby="refused-rain_in_error"' in rain
    assert 'value="DPW gauge"' in _tag(page, "source", url)
    assert 'value="2026-04-21T07:00"' in _tag(page, "ended_at", url)
    assert '<span class="field-error" id="refused-rain_in_error">' in page
    assert 'href="#refused-rain_in">Rain [in]: ' in page  # the summary names the input by its label
    assert re.search(r"<details open[^>]*><summary>Record rainfall", page)  # the folded form is shown open
    assert 'class="messages"' not in page  # the error is on the form, not a message at the top
