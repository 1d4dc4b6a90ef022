"""Content-Security-Policy (issue 9): no inline script, no foreign origins.

Every response gets a policy that allows scripts, styles, images, fonts and fetches only from this site.
The few inline <script>/<style> elements that remain carry a per-request nonce ({{ request.csp_nonce }});
style *attributes* are allowed (style-src-attr), because they cannot run code and SVG charts use them.
The map tile server (town.toml map_tile_url, else GIS_TILE_URL) is added to img-src, the payment processor's
origin (payment_url_template) to form-action. CSP_REPORT_ONLY=1 sends the header as
Content-Security-Policy-Report-Only (to try a change in production without breaking pages).
"""
from __future__ import annotations

import secrets
from urllib.parse import urlsplit

from django.conf import settings


def _tile_origin() -> str:
    from stormwater.townconfig import map_tiles

    url = map_tiles()[0]
    if not url:
        return ""
    parts = urlsplit(url.replace("{s}", "a"))
    host = parts.netloc
    if "{s}" in url:  # Leaflet subdomains a/b/c
        host = "*." + host.split(".", 1)[1] if "." in host else host
    return f"{parts.scheme}://{host}" if parts.scheme else ""


def _processor_origin() -> str:
    """The town's payment processor (town.toml payment_url_template): the confirmation form's POST is answered by a
    redirect to it, which form-action must allow (issue 25, paying online)."""
    from stormwater.townconfig import town_config

    parts = urlsplit(town_config().payment_url_template)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""


def csp_header(nonce: str) -> str:
    img = " ".join(x for x in ("'self'", "data:", _tile_origin()) if x)
    return "; ".join([
        "default-src 'self'",
        f"script-src 'self' 'nonce-{nonce}'",
        f"style-src 'self' 'nonce-{nonce}'",
        "style-src-attr 'unsafe-inline'",
        f"img-src {img}",
        "font-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        " ".join(x for x in ("form-action 'self'", _processor_origin()) if x),
        "frame-ancestors 'none'",
    ])


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request.csp_nonce = secrets.token_urlsafe(16)
        response = self.get_response(request)
        name = ("Content-Security-Policy-Report-Only" if getattr(settings, "CSP_REPORT_ONLY", False)
                else "Content-Security-Policy")
        if name not in response:
            response[name] = csp_header(request.csp_nonce)
        response.setdefault("Referrer-Policy", "same-origin")
        response.setdefault("Permissions-Policy", "geolocation=(), camera=(), microphone=()")
        return response
