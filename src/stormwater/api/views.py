"""The API's own pages: the OpenAPI document, its readable reference, and the Director's API tokens page."""
from __future__ import annotations

from django.contrib import messages
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views import csrf as csrf_views
from django.views import defaults
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from stormwater.accounts.access import public, require_perm
from stormwater.accounts.roles import Perm, Role

from .lists import TokenList
from .models import ApiToken
from .openapi import openapi_document
from .tokens import TokenError, api_token_issue, api_token_revoke


@public
@require_GET
def api_openapi(request):
    """GET /api/openapi.json: the OpenAPI 3.1 document of every endpoint under /api/."""
    return JsonResponse(openapi_document(), json_dumps_params={"ensure_ascii": False})


def _type(s: dict) -> str:
    if "$ref" in s:
        return s["$ref"].rsplit("/", 1)[1]
    if "anyOf" in s:
        kinds = [_type(x) for x in s["anyOf"] if x.get("maxLength") != 0 and x.get("type") != "null"]
        return " or ".join(kinds) + (" (optional)" if len(kinds) < len(s["anyOf"]) else "")
    t = s.get("type", "any")
    t = " or ".join(t) if isinstance(t, list) else t
    if s.get("format") == "date":
        t = "date"
    if s.get("type") == "array" and isinstance(s.get("items"), dict):
        t = f"list of {_type(s['items'])}"
    return t


def _constraints(s: dict) -> str:
    if "anyOf" in s:
        return "; ".join(c for c in (_constraints(x) for x in s["anyOf"]) if c)
    bits = []
    if "enum" in s:
        bits.append("one of " + ", ".join(str(v) for v in s["enum"]))
    if "minimum" in s and "maximum" in s:
        bits.append(f"{s['minimum']:,} to {s['maximum']:,}")
    elif "minimum" in s:
        bits.append(f"at least {s['minimum']:,}")
    elif "maximum" in s:
        bits.append(f"at most {s['maximum']:,}")
    if s.get("type") == "array" and isinstance(s.get("items"), dict) and "enum" in s["items"]:
        bits.append("each one of " + ", ".join(s["items"]["enum"]))
    return "; ".join(bits)


def _fields(schema: dict, prefix: str = "") -> list[dict]:
    """Rows (name, type, required, what) of an object schema, nested objects and lists of objects flattened."""
    rows = []
    required = set(schema.get("required", ()))
    for name, s in (schema.get("properties") or {}).items():
        rows.append({"name": prefix + name, "type": _type(s), "required": name in required,
                     "what": "; ".join(x for x in (s.get("description", ""), _constraints(s)) if x)})
        inner = s.get("items") if s.get("type") == "array" else s
        if isinstance(inner, dict) and inner.get("properties"):
            rows += _fields(inner, prefix + name + ("[]." if s.get("type") == "array" else "."))
    return rows


def _reference(doc: dict) -> list[dict]:
    """The document as sections by tag, each operation with its parameters, body fields and answers."""
    sections: dict[str, list] = {}
    for path, ops in doc["paths"].items():
        for method, op in ops.items():
            body = op.get("requestBody", {}).get("content", {})
            sections.setdefault(op["tags"][0], []).append({
                "id": op["operationId"], "method": method.upper(), "path": path, "summary": op["summary"],
                "description": op["description"].replace("**", "").replace("`", ""),  # Markdown → plain text
                "params": [{"name": p["name"], "in": p["in"], "type": _type(p["schema"]),
                            "what": "; ".join(x for x in (p["schema"].get("description", ""),
                                                          _constraints(p["schema"])) if x)}
                           for p in op.get("parameters", ())],
                "bodies": [{"media": media, "closed": c["schema"].get("additionalProperties") is False,
                            "fields": _fields(c["schema"])} for media, c in body.items()],
                "responses": [{"status": k, "description": v["description"]} for k, v in op["responses"].items()],
            })
    return [{"tag": tag, "operations": ops} for tag, ops in sections.items()]


@public
@require_GET
def api_docs(request):
    """GET /api/docs/: the reference, server-rendered from the same document (no script, no CDN)."""
    doc = openapi_document()
    return render(request, "api/docs.html", {"doc": doc, "sections": _reference(doc)})


@require_http_methods(["GET", "POST"])
@require_perm(Perm.API_TOKENS)
def api_tokens_page(request):
    """The Director's tokens: the list, and a form issuing a named token with a role (its secret shown once)."""
    issued = None
    form = {"name": "", "role": Role.COLLECTOR.value}
    if request.method == "POST":
        form = {"name": request.POST.get("name", ""), "role": request.POST.get("role", "")}
        try:
            token, secret = api_token_issue(name=form["name"], role=form["role"], acting_user=request.user)
        except TokenError as e:  # refused: the page again with what was typed and the error at its field (issue 16)
            from stormwater.web.postdata import refused

            return refused(request, e, request.path)
        else:
            issued = {"token": token, "secret": secret}
            form = {"name": "", "role": form["role"]}
    lst = TokenList(request)
    if request.method == "GET" and (resp := lst.export_response()) is not None:
        return resp
    return render(request, "api/tokens.html", {"lst": lst, "issued": issued, "form": form,
                                               "roles": Role.choices}, status=200)


@require_POST
@require_perm(Perm.API_TOKENS)
def api_token_revoke_view(request, token_id: int):
    token = get_object_or_404(ApiToken, pk=token_id)
    try:
        api_token_revoke(token=token, acting_user=request.user, why=request.POST.get("why", ""))
    except TokenError as e:
        messages.error(request, str(e))
    else:
        messages.success(request, f"Token “{token.name}” revoked: it no longer works.")
    return redirect("api_tokens")


# --- errors under /api/ answer JSON (a client parses {"error": …}, never an HTML page) ----------------------

def _is_api(request) -> bool:
    return request.path.startswith("/api/")


def handler400(request, exception=None):
    if _is_api(request):
        from django.conf import settings
        from django.core.exceptions import RequestDataTooBig

        if isinstance(exception, RequestDataTooBig):  # issue 20: say what is too big and the limit
            return JsonResponse({"error": f"file: the request body is over the "
                                          f"{settings.DATA_UPLOAD_MAX_MEMORY_SIZE:,} bytes this server reads"},
                                status=400)
        return JsonResponse({"error": f"input: the request could not be read ({exception.__class__.__name__})"
                             if exception else "input: bad request"}, status=400)
    return defaults.bad_request(request, exception)


def handler403(request, exception=None):
    if _is_api(request):
        return JsonResponse({"error": str(exception) or "forbidden" if exception else "forbidden"}, status=403)
    return defaults.permission_denied(request, exception)


def handler404(request, exception=None):
    if _is_api(request):
        return JsonResponse({"error": "not found"}, status=404)
    return defaults.page_not_found(request, exception)


def handler500(request):
    if _is_api(request):
        return JsonResponse({"error": "server error: the request was not completed (it has been logged)"},
                            status=500)
    return defaults.server_error(request)


def csrf_failure(request, reason=""):
    """CSRF refusals: JSON under /api/ (a session client forgot the X-CSRFToken header), Django's page elsewhere."""
    if _is_api(request):
        return JsonResponse({"error": "forbidden: CSRF token missing or wrong (send X-CSRFToken with a session, "
                                      "or use an API token)"}, status=403)
    return csrf_views.csrf_failure(request, reason)
