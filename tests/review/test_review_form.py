"""Issue 19: the plan as a web form, field by field, beside the YAML/JSON upload."""
from __future__ import annotations

import yaml
from django.http import QueryDict

from stormwater.review.models import Review
from stormwater.review.plan import plan_check, plan_from_dict
from stormwater.review.planform import (plan_dict_from_state, post_from_state, state_from_plan_dict, state_from_post)


def _same(a: dict, b: dict) -> bool:
    """Same plan; the pasted PFDS text may lose its trailing newline (a browser also sends CRLF)."""
    a, b = dict(a), dict(b)
    for d in (a, b):
        d["rainfall"] = {**d["rainfall"], "pfds_csv": d["rainfall"]["pfds_csv"].strip().replace("\r\n", "\n")}
    return plan_from_dict(a) == plan_from_dict(b)


def _qd(d: dict) -> QueryDict:
    q = QueryDict(mutable=True)
    for k, v in d.items():
        q.setlist(k, v if isinstance(v, list) else [v])
    return q


def test_the_example_round_trips_through_the_form_to_the_same_plan(example_data):
    state = state_from_plan_dict(example_data)
    back = plan_dict_from_state(state_from_post(_qd(post_from_state(state))))
    assert _same(back, example_data)


def test_every_broken_field_is_reported_at_once_with_its_path(example_data):
    state = state_from_plan_dict(example_data)
    state["post"][0]["cover"][0]["hsg"] = "E"
    state["post"][1]["tc"][0]["slope"] = "steep"
    state["bmps"][0]["outlets"][0]["elevation"] = "99"
    state["massdep"]["statements"]["std9_om_plan"] = {"answer": "yes", "evidence": ""}
    _plan, errors = plan_check(plan_dict_from_state(state))
    paths = [str(e).split(":")[0] for e in errors]
    assert "post[0].cover[0].hsg" in paths and "post[1].tc[0].slope" in paths
    assert "bmps[0].outlets[0]" in paths and "massdep.statements.std9_om_plan.evidence" in paths


def test_the_form_page_runs_a_review_and_shows_errors_at_their_fields(client_for, personas, example_text, example_data):
    c = client_for(personas["staff"])
    assert c.get("/reviews/new/form/").status_code == 200
    post = post_from_state(state_from_plan_dict(example_data))
    post["post[0].area_acres"] = "-3"
    r = c.post("/reviews/new/form/", _qd(post))
    assert r.status_code == 400 and Review.objects.count() == 0
    page = r.content.decode()
    assert 'id="f-post-0-area-acres"' in page and "post[0].area_acres: must be greater than zero" in page
    assert 'aria-invalid="true"' in page and 'href="#f-post-0-area-acres"' in page
    # adding a row keeps every typed value and shows no errors
    post["post[0].area_acres"] = "3.0"
    r = c.post("/reviews/new/form/", _qd({**post, "add": "post[0].cover"}))
    assert r.status_code == 200 and 'name="post[0].cover[2].area_acres"' in r.content.decode()
    r = c.post("/reviews/new/form/", _qd({**post, "title": "From the form"}))
    assert r.status_code == 302
    review = Review.objects.get()
    assert review.title == "From the form" and review.input_name == "plan-form.yaml"
    assert _same(yaml.safe_load(review.input_text), example_data)
    # and back into the form from the stored review
    page = c.get(f"/reviews/{review.pk}/form/").content.decode()
    assert 'value="TRENCH-1"' in page and "Longmeadow Commons" in page
