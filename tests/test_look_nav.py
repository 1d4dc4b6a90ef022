"""The menu, the breadcrumbs and the filters every page uses (issue 16 "Navigation and look")."""
from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.template import Context, Template
from django.urls import reverse

from stormwater.accounts.roles import Role
from stormwater.pages.context import MENU, breadcrumbs_for, menu_for

pytestmark = pytest.mark.django_db


def _flat(groups):
    return {i["name"] for g in groups for i in g["items"]}


# The destinations the flat menu had before it was grouped (issue 16: keep every one reachable), per role.
BEFORE = {
    "director": {"parcel_list", "gis_home", "bill_run_list", "bill_list", "billing_problems", "collections_home",
                 "resolution_list", "fund_home", "review_list", "permit_list", "meeting_list", "relief_home",
                 "construction_list", "site_list", "user_list", "job_list", "api_tokens"},
    "collector": {"parcel_list", "bill_run_list", "bill_list", "billing_problems", "collections_home",
                  "resolution_list", "fund_home", "permit_list", "relief_home", "construction_list", "job_list"},
    "inspector": {"parcel_list", "bill_list", "permit_list", "construction_list", "site_list", "job_list"},
    "consultant": {"parcel_list", "bill_list", "review_list", "permit_list", "construction_list"},
    # issue 30: a resident sees Construction and Stewardship only with records there (the test below)
    "owner": {"portal_home", "parcel_list", "bill_list", "permit_list", "relief_home"},
}


@pytest.mark.parametrize("role", sorted(BEFORE))
def test_the_grouped_menu_keeps_every_destination_the_flat_menu_had(personas, role):
    assert BEFORE[role] <= _flat(menu_for(personas[role], "/"))


@pytest.mark.parametrize("role", [r.value for r in Role])
def test_every_menu_item_opens_for_the_person_who_sees_it(client_for, personas, role):
    c = client_for(personas[role])
    for g in menu_for(personas[role], "/"):
        for item in g["items"]:
            r = c.get(item["url"])
            assert r.status_code in (200, 302), f"{role}: {item['label']} {item['url']} → {r.status_code}"
            if r.status_code == 302:  # a page that sends on (the fund's current year): not to the sign-in
                assert "/login/" not in r.url


def test_menu_groups_are_programs_in_the_roles_order(personas):
    keys = [g["key"] for g in menu_for(personas["director"], "/")]
    assert keys == ["utility", "collections", "permits", "field", "reports", "admin"]
    assert [g["key"] for g in menu_for(personas["collector"], "/")][0] == "collections"
    assert [g["key"] for g in menu_for(personas["inspector"], "/")][0] == "field"
    owner = menu_for(personas["owner"], "/")
    assert owner[0]["label"] == "Your property" and "admin" not in [g["key"] for g in owner]


def test_a_person_never_sees_a_menu_item_they_may_not_open(personas):
    for role in Role:
        names = _flat(menu_for(personas[role.value], "/"))
        if role != Role.DIRECTOR:
            assert not names & {"user_list", "api_tokens"}, role
        if role in (Role.OWNER, Role.CONSULTANT):
            assert not names & {"billing_problems", "bill_run_list", "collections_home", "gis_home", "town_map"}


def test_the_current_page_is_marked_once(personas):
    groups = menu_for(personas["director"], "/bill-runs/1/")
    current = [(i["label"], i["current"]) for g in groups for i in g["items"] if i["current"]]
    assert current == [("Bill runs", "true")]


def test_every_menu_row_names_a_url():
    for g in MENU:
        for it in g.items:
            assert reverse(it.name)


def test_breadcrumbs_follow_the_path_and_skip_what_the_person_may_not_open(personas):
    staff, owner = personas["staff"], personas["owner"]
    crumbs = breadcrumbs_for(staff, "/permits/SWP-2026-0001/workbench/")
    assert [c["label"] for c in crumbs] == ["Home", "Permits", "SWP-2026-0001", "Workbench"]
    assert [c["url"] for c in crumbs] == ["/", "/permits/", "/permits/SWP-2026-0001/", None]
    assert breadcrumbs_for(staff, "/") == []
    assert [c["label"] for c in breadcrumbs_for(None, "/portal/parcels/01-01-1/")] == \
        ["Online services", "Find a property", "01-01-1"]
    assert [c["label"] for c in breadcrumbs_for(owner, "/bills/FY2027-1/")] == ["Home", "Bills", "Bill FY2027-1"]


def test_every_page_has_breadcrumbs_below_home(client_for, personas):
    html = client_for(personas["staff"]).get("/case-numbers/").content.decode()
    assert 'aria-label="Breadcrumb"' in html and '<span aria-current="page">Case numbers</span>' in html
    assert 'aria-label="Breadcrumb"' not in client_for(personas["staff"]).get("/").content.decode()


@pytest.mark.parametrize("template,value,out", [
    ("{{ v|usd }}", Decimal("1234.5"), "$1,234.50"), ("{{ v|usd }}", Decimal("-12.5"), "-$12.50"),
    ("{{ v|usd }}", Decimal("0"), "$0.00"), ("{{ v|usd }}", None, ""), ("{{ v|usd }}", Decimal("70761.255"), "$70,761.26"),
    ("{{ v|day }}", date(2026, 12, 2), "Dec 2, 2026"), ("{{ v|day:'weekday' }}", date(2026, 12, 2), "Wed, Dec 2, 2026"),
    ("{{ v }}", date(2026, 9, 15), "Sep 15, 2026"),
    ("{{ v|daytime }}", datetime(2026, 12, 2, 20, 5, tzinfo=ZoneInfo("UTC")), "Dec 2, 2026, 3:05 PM"),
    ("{{ v|people }}", "due 2026-12-05; 24 h ending 2026-12-02 09:00; $64000.00",
     "due Dec 5, 2026; 24 h ending Dec 2, 2026, 9:00 AM; $64,000.00"),
])
def test_the_one_date_and_money_filters(template, value, out):
    assert Template("{% load sw %}" + template).render(Context({"v": value})) == out


def test_the_case_numbers_legend_explains_every_prefix_once(client_for, personas):
    from stormwater.cases.machines import MACHINES
    from stormwater.cases.numbers import LEGEND

    prefixes = [m.number_prefix for m in MACHINES.values()]
    assert len(prefixes) == len(set(prefixes)), "two kinds of case share a prefix"
    assert set(MACHINES) <= set(LEGEND)
    html = client_for(personas["owner"]).get("/case-numbers/").content.decode()
    for p in prefixes:
        assert f"<td>{p}</td>" in html


def test_error_pages_speak_plainly_and_offer_a_way_on(client_for, personas):
    """A page one may not open, or that is not there, answers with the site's frame and a link home (not
    Django's bare text); under /api/ the answer stays JSON."""
    c = client_for(personas["inspector"])
    missing = c.get("/permits/999999/")
    assert missing.status_code == 404
    body = missing.content.decode()
    assert "Page not found" in body and reverse("home") in body and reverse("case_numbers") in body
    refused = c.get(reverse("user_list"))
    assert refused.status_code == 403
    assert "Your role may not open this page" in refused.content.decode()
    assert c.get("/api/no-such-thing/").json() == {"error": "not found"}


@pytest.fixture
def project_for():
    """project_for(user) → a construction file on a permit the user applied for."""
    from stormwater.cases.models import Case
    from stormwater.construction.models import ConstructionProject
    from stormwater.permits.models import PermitApplication

    def _make(user):
        pcase = Case.objects.create(kind="permit", status="approved", number="SWP-2026-0901", title="p",
                                    applicant=user)
        app = PermitApplication.objects.create(case=pcase, owner_name="O", site_address="1 Elm St", description="d",
                                               disturbance_sqft=Decimal(50000))
        ccase = Case.objects.create(kind="construction", status="active", number="SWD-2026-0901", title="c")
        return ConstructionProject.objects.create(case=ccase, permit=app, frequency="14day_storm")
    return _make


def test_a_resident_sees_construction_and_stewardship_only_with_records_there_and_no_work_queue(personas, project_for):
    """Issue 30: the resident's menu listed Construction, Stewardship and Work queue with nothing there for them (their
    home is their queue: "Yours to do")."""
    shown = _flat(menu_for(personas["owner"], "/"))
    assert not {"construction_list", "site_list", "work_queue"} & shown
    assert "work_queue" in _flat(menu_for(personas["staff"], "/"))
    assert {"construction_list", "work_queue"} <= _flat(menu_for(personas["consultant"], "/"))
    project_for(personas["owner"])       # the resident's own construction file
    shown = _flat(menu_for(personas["owner"], "/"))
    assert "construction_list" in shown and not {"site_list", "work_queue"} & shown
