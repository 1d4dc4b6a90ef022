"""Crawl every page a person can reach (issue 16 "Navigation and look"): the one crawler of the format scan
(tests/test_look_formats.py, Django's test client) and the phone crawl (tests/browser/test_look_phone.py,
Chromium at 390 px). Starts from the pages given, follows every same-site link on each HTML page, and visits
at most ``per_name`` distinct URLs of one URL pattern (a parcel page, a case page …) so that the crawl covers
every kind of page without reading 500 parcels. What is not a page is skipped: the JSON API, files (PDF, CSV,
Excel, GeoPackage, GeoJSON, documents), sign-out.

``page_names()`` lists the URL patterns that are HTML pages a person opens (GET allowed, not API, not a file),
read from the URL resolver, so that a test can hold the crawl to cover all of them (a page no link reaches is
a page nobody finds)."""
from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterator
from html import unescape
from urllib.parse import urldefrag, urljoin, urlsplit

from django.urls import Resolver404, URLPattern, URLResolver, get_resolver, resolve

# Not pages: files and the API. Matched against the path.
FILE_PATH = re.compile(r"(\.(pdf|csv|xlsx|gpkg|json|zip|geojson|svg|png|jpg|ics|js|webmanifest)$)|(/pdf/$)|(/file$)"
                       r"|(/documents/\d+/$)|(/photos/\d+/(thumb/)?$)|(/geojson$)|(/csv/$)|(/input/$)|^/static/|^/media/")
NOT_PAGES = {"logout", "healthz", "readyz"}  # sign-out; the monitoring probes


def is_page_path(path: str) -> bool:
    if path.startswith("/api/") and path != "/api/docs/":
        return False
    return not FILE_PATH.search(path)


# An <a> start tag's href (the pages' templates quote every attribute): a regular expression, because a full
# html.parser pass per page was a fifth of the format crawl's time.
A_HREF = re.compile(r"""<a\b[^>]*?\shref\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.IGNORECASE)


def links(html: str, base: str) -> list[str]:
    """Same-site page links of an HTML page, absolute paths with their query, no fragment."""
    out = []
    for m in A_HREF.finditer(html):
        href = unescape(m.group(1) if m.group(1) is not None else m.group(2))
        if not href:
            continue
        if href.startswith(("mailto:", "tel:", "javascript:", "#")):
            continue
        url = urldefrag(urljoin(base, href))[0]
        parts = urlsplit(url)
        if parts.scheme not in ("", "http", "https") or (parts.netloc and parts.netloc != urlsplit(base).netloc):
            continue
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        if is_page_path(parts.path):
            out.append(path)
    return out


def url_name(path: str) -> str | None:
    try:
        return resolve(urlsplit(path).path).url_name
    except Resolver404:
        return None


REFERRER: dict[str, str] = {}  # path → the page whose link led the crawl there (for messages)


def crawl(fetch: Callable[[str], tuple[int, str, str] | None], start: list[str], *, per_name: int = 2,
          limit: int = 400) -> Iterator[tuple[str, str | None, int, str]]:
    """Breadth-first over the site: ``fetch(path)`` → (status, final path, html) or None when it is not an HTML
    page. Yields (path, url name, status, html) of every page fetched; ``REFERRER[path]`` is where its link was."""
    seen: set[str] = set()
    per: dict[str | None, int] = {}
    REFERRER.clear()  # this crawl's own links (each role's crawl starts afresh)
    queue = deque(start)
    fetched = 0
    while queue and fetched < limit:
        path = queue.popleft()
        if path in seen:
            continue
        seen.add(path)
        name = url_name(path)
        if name in NOT_PAGES:
            continue
        if per.get(name, 0) >= per_name and path not in start:
            continue
        per[name] = per.get(name, 0) + 1
        got = fetch(path)
        fetched += 1
        if got is None:
            continue
        status, final, html = got
        yield path, name, status, html
        for link in links(html, "http://testserver" + final):
            if link not in seen:
                REFERRER.setdefault(link, path)
                queue.append(link)


def _patterns(patterns=None, prefix: str = "") -> Iterator[tuple[str, URLPattern]]:
    for p in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(p, URLResolver):
            yield from _patterns(p.url_patterns, prefix + str(p.pattern))
        else:
            yield prefix + str(p.pattern), p


def _methods(view) -> set[str] | None:
    """The HTTP methods a view allows when it is wrapped by Django's require_http_methods (require_POST …),
    found along the decorators' __wrapped__ chain; None when any method is allowed."""
    fn = view
    while fn is not None:
        code = getattr(fn, "__code__", None)
        if code is not None and "request_method_list" in code.co_freevars:
            cell = fn.__closure__[code.co_freevars.index("request_method_list")]
            return set(cell.cell_contents)
        fn = getattr(fn, "__wrapped__", None)
    return None


def _sample(route: str) -> str:
    """A path the route matches, for telling pages from files: ``<int:id>`` → 1, ``<str:n>`` → x, a regex group of
    alternatives → its first one (``export\\.(?P<fmt>csv|xlsx)$`` → export.csv), any other group → 1."""
    s = re.sub(r"\(\?P<\w+>([\w-]+)(?:\|[\w-]+)*\)", r"\1", route)
    s = re.sub(r"\(\?P<\w+>[^)]*\)(\{[\d,]*\}|[+*?])?", "1", s)
    s = re.sub(r"<int:\w+>", "1", s)
    s = re.sub(r"<(?:str|slug|path):\w+>|<\w+>", "x", s)
    return re.sub(r"\^|\$|\\", "", s)


def page_names() -> set[str]:
    """Every named URL pattern that is an HTML page opened with GET (not the API, not a file, not POST-only)."""
    names = set()
    for route, p in _patterns():
        if not p.name or p.name in NOT_PAGES:
            continue
        methods = _methods(p.callback)
        if methods is not None and "GET" not in methods:
            continue
        path = "/" + _sample(route)
        if not is_page_path(path) or path.startswith("/api/") and path != "/api/docs/":
            continue
        names.add(p.name)
    return names
