"""The server's half of the double-submission guard (issue 16 "Preview, confirm, undo"); the browser's half is
``static/stormwater/forms.js`` (base.html), which stops a second click on every POST form.

A form of an irreversible act (a written decision, a payment, a permit) carries ``{% submit_token %}``: a
random one-time token. ``submit_once`` wraps the view: the token is recorded (in its own transaction,
committed before the act) and the act runs; a second post with the same token does not run the act again but
goes where the first went, saying so. A post without a token (the JSON API, a script) is not affected: the
API's clients send their own ``Idempotency-Key``-free calls and the services refuse what the state tables
refuse."""
from __future__ import annotations

import secrets
from functools import wraps

from django.contrib import messages
from django.db import IntegrityError, transaction
from django.shortcuts import redirect

from .models import SubmitToken

FIELD = "submit_token"
MSG_ALREADY = "This form was already sent; what it asked was not done a second time."


def new_token() -> str:
    return secrets.token_urlsafe(24)


def submit_once(view):
    @wraps(view)
    def wrapped(request, *args, **kwargs):
        token = (request.POST.get(FIELD) or "").strip()[:64] if request.method == "POST" else ""
        if not token:
            return view(request, *args, **kwargs)
        user = request.user if request.user.is_authenticated else None
        try:
            with transaction.atomic():
                row = SubmitToken.objects.create(token=token, user=user, path=request.path[:300])
        except IntegrityError:
            prior = SubmitToken.objects.filter(token=token).first()
            messages.info(request, MSG_ALREADY)
            return redirect(prior.outcome if prior and prior.outcome else request.path)
        response = view(request, *args, **kwargs)
        if response.status_code >= 400:
            # Refused (the page again with the errors): nothing was done, so the same token may be sent again.
            SubmitToken.objects.filter(pk=row.pk).delete()
        elif response.status_code in (301, 302, 303):
            SubmitToken.objects.filter(pk=row.pk).update(outcome=response["Location"][:300])
        return response
    return wrapped
