"""The menu and the breadcrumbs of every page (issue 16 "Navigation and look").

One table, ``MENU``: the destinations grouped by program (Utility, Collections, Permits, Field, Reports, Admin).
A person sees an item when they may open its page — the page's own ``require_perm`` decides (read from the view,
so the menu and the access check never disagree) plus, for pages open to every signed-in person whose content is
per person, the item's ``show`` condition. Groups come in the order the role works in (``ROLE_FIRST``); for
residents and consultants they carry plain names ("Your property" rather than "Utility").

Breadcrumbs are made from the URL: each leading part of the path that is a page the person may open is a step
("Home › Permits › SWP-2026-0001 › Workbench"); ``CRUMB_LABELS`` names the steps that are not in the menu.

Add a page to the menu by adding a row to ``MENU``; every page must stay reachable (tests/test_look_nav.py and
the page crawl hold the menu to that).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from django.urls import NoReverseMatch, Resolver404, resolve, reverse

from stormwater.roles import Perm, Role


@dataclass(frozen=True)
class Item:
    name: str                     # URL name
    label: str
    show: tuple[str, ...] = ()    # the person needs ANY of these permissions (besides the page's own)
    staff_only: bool = False
    public_only: bool = False     # residents and consultants only
    # A resident (Role.OWNER) sees the item only with records there (a RESIDENT_RECORDS key; "never": not at all —
    # their home page is their work queue, "Yours to do"). Issue 30: a menu of empty pages is no menu.
    resident: str = ""


@dataclass(frozen=True)
class Group:
    key: str
    label: str
    items: tuple[Item, ...]
    resident_label: str = ""      # the group's name for residents and consultants


MENU: tuple[Group, ...] = (
    Group("utility", "Utility", resident_label="Your property", items=(
        Item("portal_home", "Online services", public_only=True),
        Item("parcel_list", "Parcels"),
        Item("gis_home", "GIS"),
        Item("resolution_list", "Rates"),
        Item("bill_run_list", "Bill runs"),
        Item("bill_list", "Bills"),
        Item("billing_problems", "Billing problems"),
        Item("relief_home", "Credits & appeals", show=(Perm.RELIEF_APPLY, Perm.RELIEF_VIEW_ALL)),
    )),
    Group("collections", "Collections", items=(
        Item("collections_home", "Collections"),
        Item("cashier_window", "Cashier's window"),
        Item("demands", "Demand notices"),
        Item("commitments", "Liens to the tax bill"),
    )),
    Group("permits", "Permits", items=(
        Item("permit_list", "Permits", show=(Perm.PERMIT_APPLY, Perm.PERMIT_VIEW_ALL, Perm.PERMIT_CONSULT)),
        Item("permit_applicability", "Do I need a permit?", public_only=True),
        Item("meeting_list", "Pre-application", show=(Perm.PERMIT_REVIEW,)),
        Item("review_list", "Engineering reviews"),
        Item("bmp_table_list", "BMP performance tables", show=(Perm.BMP_TABLES_LOAD,)),
        Item("rule_hearings", "Rule hearings", show=(Perm.PERMIT_DECIDE,)),
        Item("permit_standard_conditions", "Standard conditions", show=(Perm.PERMIT_DECIDE,)),
    )),
    Group("field", "Field", resident_label="Construction and upkeep", items=(
        Item("field_today", "Today's inspections (phone)", show=(Perm.INSPECT, Perm.PERMIT_CONSULT)),
        Item("town_map", "Town map", staff_only=True),
        Item("construction_list", "Construction", show=(Perm.INSPECTION_FILE, Perm.INSPECT, Perm.SURETY),
             resident="construction"),
        Item("site_list", "Stewardship", show=(Perm.STEWARDSHIP, Perm.INSPECT, Perm.PERMIT_APPLY),
             resident="stewardship"),
        Item("certifications_overdue", "Overdue certifications", show=(Perm.STEWARDSHIP,)),
    )),
    Group("reports", "Reports", resident_label="Your dates", items=(
        Item("work_queue", "Work queue", resident="never"),
        Item("fund_home", "Fund"),
        Item("aging", "Aging of receivables"),
        Item("delinquency", "Delinquent accounts"),
        Item("fund_receipts", "Fee receipts"),
        Item("fund_revenue_vs_budget", "Revenue vs budget"),
        Item("ms4_report", "MS4 annual counts", show=(Perm.STEWARDSHIP,)),
    )),
    Group("admin", "Admin", items=(
        Item("user_list", "Users"),
        Item("town_settings", "Settings"),
        Item("imports_home", "Imports"),
        Item("relief_policy", "Credit policy", show=(Perm.RELIEF_POLICY,)),
        Item("job_list", "Jobs", staff_only=True),
        Item("notice_outbox", "E-mail outbox"),
        Item("api_tokens", "API tokens"),
    )),
)

# The program each role works in first (its group is shown first; the others keep MENU's order).
ROLE_FIRST = {Role.COLLECTOR: "collections", Role.INSPECTOR: "field", Role.CONSULTANT: "permits",
              Role.CLERK: "utility", Role.ASSESSOR: "utility", Role.OWNER: "utility"}

# Breadcrumb steps that are not menu items: URL name → label (``{kwarg}`` is the URL's value).
CRUMB_LABELS = {
    "home": "Home", "portal_home": "Online services", "portal_parcel_search": "Find a property",
    "portal_signup": "Create a sign-in", "login": "Sign in", "password_reset": "Reset your password",
    "account": "Your account", "password_change": "Change your password", "account_two_factor": "Two-factor sign-in",
    "parcel_detail": "{parcel_id}", "portal_parcel": "{parcel_id}", "bill_detail": "Bill {number}",
    "account_statement": "Account {number}", "bill_run_detail": "Run {run_id}", "bill_run_new": "New bill run",
    "resolution_new": "New resolution", "permit_detail": "{number}", "permit_new": "New application",
    "construction_detail": "{number}", "construction_open": "Open a file", "construction_report": "Inspection report",
    "site_detail": "{number}", "site_new": "New site", "bmp_detail": "BMP {bmp_id}", "relief_detail": "{number}",
    "relief_credit_new": "Apply for a credit", "relief_abatement_new": "Apply for an abatement",
    "relief_lien_new": "Abatement of a lien", "review_detail": "Review {review_id}", "review_new": "Review a plan",
    "bmp_table_detail": "Table {table_id}", "bmp_table_new": "Load a table", "meeting_detail": "Meeting {meeting_id}",
    "meeting_new": "Schedule a meeting", "workbench_home": "Workbench", "workbench_summary": "Review summary",
    "workbench_item": "§ {key}", "workbench_checklist": "Checklist", "gis_import_new": "New import",
    "gis_import_detail": "Import {import_id}", "gis_survey_detail": "Survey {survey_id}", "gis_survey_eru": "ERUs",
    "gis_changes": "Changes", "job_detail": "Job {job_id}", "user_detail": "Person {user_id}", "user_new": "Add a person",
    "fund_overview": "FY{fy}", "fund_budget_edit": "Budget", "fund_line_new": "New budget line",
    "fund_revenue_new": "New revenue", "fund_rate_model": "Rate model", "commitment_detail": "Commitment {commitment_id}",
    "back_bill": "Back bill", "close_period": "Close the books", "case_numbers": "Case numbers",
}
# Steps left out of the breadcrumbs (a page that is only a redirect, or the same place as the home).
CRUMB_SKIP = {"fund_home"}


def _view_allows(user, name: str) -> bool:
    """May ``user`` open the page named ``name``? The view's own ``require_perm`` (or ``public``) decides."""
    return _func_allows(user, _callback(name))


def _func_allows(user, cb) -> bool:
    """May ``user`` open the page the view function ``cb`` draws (``require_perm`` or ``public``)?"""
    if cb is None:
        return False
    if getattr(cb, "is_public", False) or getattr(getattr(cb, "view_class", None), "is_public", False):
        return True
    if not hasattr(cb, "required_perm"):
        return False
    perm = cb.required_perm
    return bool(user and user.is_authenticated and (perm is None or user.can(perm)))


@lru_cache(maxsize=512)
def _callback(name: str):
    try:
        return resolve(reverse(name)).func
    except (NoReverseMatch, Resolver404):
        return None


def _resident_has(user, key: str) -> bool:
    """Whether the resident has records behind a menu item (one EXISTS query per kind; the menu is drawn once a
    page)."""
    if key == "never":
        return False
    if key == "construction":
        from stormwater.construction.selectors import projects_for_user as records
    else:
        from stormwater.stewardship.selectors import sites_for_user as records
    return records(user).exists()


def _item_shown(user, item: Item) -> bool:
    staff = user.is_staff_role
    if item.staff_only and not staff or item.public_only and staff:
        return False
    if item.show and not any(user.can(p) for p in item.show):
        return False
    if item.resident and user.role == Role.OWNER and not _resident_has(user, item.resident):
        return False
    return _view_allows(user, item.name)


def menu_for(user, path: str = "") -> list[dict]:
    """The grouped menu ``user`` sees: [{key, label, items: [{name, label, url, current}]}], empty groups left out."""
    groups = []
    for g in MENU:
        items = []
        for it in g.items:
            if _item_shown(user, it):
                url = reverse(it.name)
                items.append({"name": it.name, "label": it.label, "url": url,
                              "current": "page" if path == url else ("true" if url != "/" and path.startswith(url)
                                                                     else "")})
        if items:
            label = g.resident_label if g.resident_label and not user.is_staff_role else g.label
            groups.append({"key": g.key, "label": label, "items": items})
    first = ROLE_FIRST.get(user.role)
    groups.sort(key=lambda g: 0 if g["key"] == first else 1)  # stable: the rest keep MENU's order
    # Only the most specific "current" item is marked (/bill-runs/1/ is under Bill runs, not under Bills).
    best = max((i for g in groups for i in g["items"] if i["current"]), key=lambda i: len(i["url"]), default=None)
    for g in groups:
        for i in g["items"]:
            if i is not best:
                i["current"] = ""
    return groups


def breadcrumbs_for(user, path: str) -> list[dict]:
    """[{label, url}] from the home to the page's parent, then the page itself (url None): each leading part of
    the path that is a page ``user`` may open. Empty on the home pages."""
    signed_in = bool(user and user.is_authenticated)
    home_url = "/" if signed_in else "/portal/"
    if path in ("/", home_url):
        return []
    crumbs = [{"label": "Home" if signed_in else "Online services", "url": home_url}]
    parts = [p for p in path.split("/") if p]
    for i in range(1, len(parts) + 1):
        sub = "/" + "/".join(parts[:i]) + ("/" if i < len(parts) or path.endswith("/") else "")
        if sub == home_url:
            continue
        try:
            match = resolve(sub)
        except Resolver404:
            continue
        name = match.url_name
        if not name or name in CRUMB_SKIP or name == "home":
            continue
        if sub != path and not _func_allows(user, match.func):  # a record's page needs its kwargs: ask its view
            continue
        label = _crumb_label(name, match.kwargs, parts[i - 1])
        if crumbs and crumbs[-1]["label"] == label:
            continue
        crumbs.append({"label": label, "url": None if sub == path else sub})
    return crumbs if len(crumbs) > 1 else []


@lru_cache(maxsize=1)
def _menu_labels() -> dict[str, str]:
    return {it.name: it.label for g in MENU for it in g.items}


def _crumb_label(name: str, kwargs: dict, segment: str) -> str:
    fmt = CRUMB_LABELS.get(name) or _menu_labels().get(name)
    if fmt:
        try:
            return fmt.format(**kwargs)
        except (KeyError, IndexError):
            return fmt
    if len(kwargs) == 1:
        return str(next(iter(kwargs.values())))
    return segment.replace("-", " ").replace("_", " ").capitalize()   # a URL word, never "decide_abatement"


def nav(request):
    """Context processor: ``menu`` (grouped, for signed-in people), ``crumbs`` and, for compatibility, ``nav``
    (the flat list of (url name, label) the menu holds). The page's path is ``request.page_path`` where a view set
    it (``web.context.shown_at``), else the URL asked."""
    user = getattr(request, "user", None)
    path = getattr(request, "page_path", None) or getattr(request, "path", "")
    if not user or not user.is_authenticated:
        return {"nav": [], "menu": [], "crumbs": breadcrumbs_for(user, path)}
    groups = menu_for(user, path)
    return {"menu": groups, "nav": [(i["name"], i["label"]) for g in groups for i in g["items"]],
            "crumbs": breadcrumbs_for(user, path)}
