"""Which page a response is drawn as, for the menu and the breadcrumbs (issue 16 "Navigation and look").

The menu and the breadcrumbs themselves gather every app's pages, so they live above the apps
(``stormwater.pages.context``, the ``nav`` context processor); a view below only says where it is drawn."""
from __future__ import annotations


def shown_at(request, url: str) -> None:
    """The page is drawn as the one at ``url`` (a refused form posted elsewhere, e.g. ``…/record/``, shows its page
    again): the menu and the breadcrumbs are that page's, as on the first visit (issue 16)."""
    request.page_path = url
