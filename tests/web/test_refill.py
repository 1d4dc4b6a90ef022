"""``web.refill`` (issue 16 "Forms"): a refused hand-written form shown again as it was sent — every kind of input
put back, the refused one marked and described, the summary linking to it — and only that form."""
from django.http import QueryDict

from stormwater.web.refill import refill

PAGE = """<main><h1>File</h1>
<details><summary>Record</summary>
<form method="post" action="/x/7/row/" class="stack"><input type="hidden" name="csrfmiddlewaretoken" value="NEW">
<input type="hidden" name="row" value="1">
<label for="a1">Amount</label><input id="a1" name="amount">
<label>Kind <select name="kind"><option value="">— choose —</option><option value="bond" selected>Bond</option>
<option value="cash">Cash</option></select></label>
<label><input type="checkbox" name="final"> Final</label>
<fieldset><legend>Way</legend><label><input type="radio" name="way" value="mail" checked> Mail</label>
<label><input type="radio" name="way" value="hand"> By hand</label></fieldset>
<label>Note <textarea name="note">default</textarea></label>
<label>PIN <input type="password" name="pin"></label>
<button type="submit">Save</button></form></details>
<form method="post" action="/x/7/row/"><input type="hidden" name="row" value="2"><input name="amount" value="9"></form>
<form method="post" action="/x/7/other/"><input name="amount" value="5"></form>
</main>"""


def _data(**kw) -> QueryDict:
    q = QueryDict(mutable=True)
    for k, v in kw.items():
        q.setlist(k, v if isinstance(v, list) else [v])
    return q


def test_every_kind_of_input_is_put_back_in_the_posted_form_only():
    data = _data(csrfmiddlewaretoken="OLD", row="1", amount="12,5x", kind="cash", final="on", way="hand",
                 note="Fence <down>", pin="1234")
    out = refill(PAGE, action="/x/7/row/", page="/x/7/", data=data, field="amount", message="Not an amount.")
    first, second, third = out.split("<form")[1:]
    assert 'value="NEW"' in first and "OLD" not in out  # tokens stay as the fresh page made them
    assert '<input id="a1" name="amount" value="12,5x" aria-invalid="true" aria-describedby="a1_error">' in first
    assert '<span class="field-error" id="a1_error">Not an amount.</span>' in first
    assert '<option value="cash" selected>' in first and '<option value="bond">' in first
    assert '<input type="checkbox" name="final" checked>' in first
    assert '<input type="radio" name="way" value="hand" checked>' in first
    assert '<input type="radio" name="way" value="mail">' in first
    assert "<textarea name=\"note\">Fence &lt;down&gt;</textarea>" in first
    assert "1234" not in out  # a password is never sent back
    assert '<a href="#a1">Amount: Not an amount.</a>' in first and 'role="alert"' in first
    assert "<details open>" in out
    assert 'value="9"' in second and "aria-invalid" not in second  # the other row's form, untouched
    assert 'value="5"' in third and "error" not in third


def test_the_row_is_found_by_its_hidden_id_and_an_input_without_id_gets_one():
    out = refill(PAGE, action="/x/7/row/", page="/x/7/", data=_data(row="2", amount="abc"), field="amount",
                 message="Not an amount.")
    first, second = out.split("<form")[1:3]
    assert "error" not in first and "<details>" in out  # not the posted one: left folded
    assert '<input name="amount" id="refused-amount" value="abc" aria-invalid="true"' in second
    assert '<a href="#refused-amount">Amount: Not an amount.</a>' in second


def test_a_refusal_naming_no_input_is_said_at_the_top_of_the_form_with_the_values_kept():
    out = refill(PAGE, action="/x/7/row/", page="/x/7/", data=_data(row="1", amount="12"), field=None,
                 message="The meeting has not been held.")
    first = out.split("<form")[1]
    assert "<li>The meeting has not been held.</li>" in first and 'value="12"' in first
    assert "aria-invalid" not in first


def test_a_page_without_the_posted_form_gives_none():
    assert refill(PAGE, action="/x/7/gone/", page="/x/7/", data=_data(amount="1"), field="amount", message="No.") is None
    assert refill(PAGE, action="/x/7/row/", page="/x/7/", data=_data(row="3"), field=None, message="No.") is None
