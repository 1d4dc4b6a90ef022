"""Posting a bulk or irreversible act the way a person does (issue 25, ``web.confirm``): the first POST answers with
the confirmation page, whose own form (the same fields and the signed ``confirmed`` token) then acts."""
from __future__ import annotations

import re

CONFIRM_MARK = "Nothing has been done yet"


def confirm_fields(page: str) -> list[tuple[str, str]]:
    """The hidden fields of the confirmation page's form (the act's fields and the token), in order."""
    form = page[page.index(CONFIRM_MARK):]
    form = form[:form.index("</form>")]
    return [m for m in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form)
            if m[0] != "csrfmiddlewaretoken"]


def posted(fields: list[tuple[str, str]], **changes) -> dict:
    """The fields as a test client's POST data (a name may repeat: ticked accounts), ``changes`` replacing some."""
    out: dict[str, list[str]] = {}
    for k, v in fields:
        out.setdefault(k, []).append(v)
    return {**out, **changes}


def confirmed_post(client, url: str, data: dict | None = None, **kwargs):
    """POST ``data`` to ``url``; where the act asks for confirmation, confirm it (the answer to that second POST)."""
    r = client.post(url, data or {})
    if r.status_code == 200 and CONFIRM_MARK in r.content.decode():
        return client.post(url, posted(confirm_fields(r.content.decode())), **kwargs)
    if kwargs.get("follow") and r.status_code in (301, 302):
        return client.get(r["Location"])
    return r
