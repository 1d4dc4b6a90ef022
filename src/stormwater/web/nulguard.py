"""Requests whose parameters carry a NUL character (U+0000) are refused with 400 before any view runs.

PostgreSQL cannot store or even compare a text value containing NUL ("A string literal cannot contain NUL
(0x00) characters"), so such a parameter reaching a query or an insert was a 500 on PostgreSQL and silently
accepted on SQLite (schemathesis found it on `/api/parcels/?q=`). No field of this system has a use for NUL:
the answer names the parameter, as JSON under /api/ and as plain text elsewhere. JSON bodies are checked by
web/jsonapi.text_field (a "\\u0000" escape arrives only after parsing).
"""
from __future__ import annotations

from django.conf import settings
from django.http import HttpResponseBadRequest, JsonResponse
from django.http.multipartparser import MultiPartParserError

ERR_NUL = "{name}: contains a NUL character (U+0000), which no field accepts"


def _form(request):
    """The POSTed form, parsed so that a view can still read ``request.body`` afterwards.

    Parsing a multipart form consumes the input stream, after which ``request.body`` raises; a view that reads
    the raw body (the review's plan, a lockbox file sent as the body) then answered 500. A multipart body
    within Django's in-memory limit is therefore read into ``request.body`` first (the form is parsed from
    that copy); a larger one is an upload, parsed from the stream as before. Other content types are no form.
    """
    if request.method != "POST":
        return None
    if request.content_type == "multipart/form-data":
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        length = request.META.get("CONTENT_LENGTH") or "0"
        if limit is None or (length.isdigit() and int(length) <= limit):
            request.body  # noqa: B018 (caches the raw body)
        return request.POST
    if request.content_type == "application/x-www-form-urlencoded":
        return request.POST
    return None


def _nul_parameter(request) -> str | None:
    try:
        form = _form(request)
        sources = [request.GET] + ([form] if form is not None else [])
        for params in sources:
            for name, values in params.lists():
                if "\x00" in name or any("\x00" in v for v in values):
                    return name.replace("\x00", "\\0")
    except MultiPartParserError:
        return None  # the view's own parsing answers a broken body
    return None


class NulParameterMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        name = _nul_parameter(request)
        if name is not None:
            message = ERR_NUL.format(name=name)
            if request.path.startswith("/api/"):
                return JsonResponse({"error": message}, status=400)
            return HttpResponseBadRequest(message, content_type="text/plain; charset=utf-8")
        return self.get_response(request)
