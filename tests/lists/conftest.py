"""Fixtures for the list pages (issue 16): a town of n parcels, billed; the query-count check."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext


@pytest.fixture
def make_parcels(db):
    """make_parcels(n, start=0, owner=None) → n parcels (small residential houses and a few shops) with an owner
    and an impervious area in one survey."""
    from stormwater.parcels.models import ImperviousSurvey, Owner, Parcel, ParcelImpervious

    def _make(n, start=0, owner=None):
        survey = ImperviousSurvey.objects.get_or_create(name="List survey", surveyed_on=date(2026, 4, 1))[0]
        out = []
        for i in range(start, start + n):
            o = owner or Owner.objects.create(name=f"Owner {i:04d}", mailing_address=f"{i} Main St\nLongmeadow")
            shop = i % 5 == 4
            p = Parcel.objects.create(parcel_id=f"L-{i:04d}", address=f"{i} Maple St", owner=o,
                                      land_use_code="325" if shop else "101", dwelling_units=None if shop else 1,
                                      lot_sqft=Decimal(100000))
            ParcelImpervious.objects.create(survey=survey, parcel=p, impervious_sqft=Decimal(20000 if shop else 3000))
            out.append(p)
        return out
    return _make


@pytest.fixture
def bill_fy2027(resolution):
    """bill_fy2027() issues FY2027 (Sep 10, 2026; two installments, the first due Oct 13, 2026)."""
    from stormwater.utility.services import bill_run_issue, fiscal_year

    def _bill():
        label, start, end = fiscal_year(2027)
        return bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2026, 9, 10),
                              acting_user=None)
    return _bill


def count_queries(client, url) -> int:
    # A first request lets the session's idle clock (accounts: staff idle timeout) write what it writes when time
    # has passed; the second is the page's own cost.
    assert client.get(url).status_code == 200
    with CaptureQueriesContext(connection) as ctx:
        r = client.get(url)
        assert r.status_code == 200, r.content[:500]
    return len(ctx.captured_queries)


@pytest.fixture
def same_queries():
    """same_queries(client, url_or_urls, grow) → {url: queries}: each page's queries, then again after ``grow()``
    added records must be the same number; a list page must not read a row at a time."""
    def _check(client, urls, grow):
        urls = [urls] if isinstance(urls, str) else list(urls)
        before = {u: count_queries(client, u) for u in urls}
        grow()
        after = {u: count_queries(client, u) for u in urls}
        assert before == after, f"queries before and after adding records: {before} → {after}"
        return after
    return _check


@pytest.fixture
def make_permits(db, personas):
    """make_permits(n, start=0, owner_user=None, clock_start=…) → n permit files (drafts by the applicant
    persona or ``owner_user``) on parcels of their own, each with a running final-action clock (§ 380-10 I(2),
    42 days) started on ``clock_start`` (default Mar 2, 2026) — the state a filed file is in."""
    from stormwater.cases.services import clock_start
    from stormwater.parcels.models import Owner, Parcel
    from stormwater.permits import workflow as wf
    from stormwater.permits.services import permit_application_start
    from stormwater.rules.applicability import determine

    def _make(n, start=0, owner_user=None, clock_on=date(2026, 3, 2)):
        user = owner_user or personas["owner"]
        owner = Owner.objects.get_or_create(user=user, defaults={"name": f"{user.username} owner",
                                                                 "mailing_address": "1 Elm St"})[0]
        det = determine(disturbance_sqft=Decimal(87120), on=date(2026, 3, 2))
        out = []
        for i in range(start, start + n):
            parcel = Parcel.objects.create(parcel_id=f"P-{user.pk}-{i:04d}", address=f"{i} Birch Rd", owner=owner,
                                           land_use_code="101", dwelling_units=1)
            app = permit_application_start(
                acting_user=user, owner=owner, owner_name=owner.name, owner_address=owner.mailing_address,
                site_address=f"{i} Birch Rd", parcels=[parcel], description=f"Project {i}",
                disturbance_sqft=Decimal(43560 + i), determination=det)
            clock_start(case=app.case, kind=wf.ACTION, label="Final action", citation="§ 380-10 I(2)",
                        start=clock_on, length=42, acting_user=None)
            out.append(app)
        return out
    return _make


@pytest.fixture
def make_projects(make_permits):
    """make_projects(n, start=0, inspected=…) → n construction files (on permit files of make_permits) under way
    since Apr 13, 2026 with an erosion-control inspection at ``inspected`` (default Apr 13, 2026 10:00) every
    7 days (CGP 2022 Part 4.2(a)) — made directly: the lists only read them."""
    from datetime import datetime
    from zoneinfo import ZoneInfo

    from stormwater.cases.services import case_open
    from stormwater.construction import workflow as cwf
    from stormwater.construction.models import ConstructionProject, Inspection

    def _make(n, start=0, owner_user=None, inspected=datetime(2026, 4, 13, 10, tzinfo=ZoneInfo("America/New_York"))):
        out = []
        for app in make_permits(n, start=start, owner_user=owner_user):
            case = case_open(kind=cwf.CONSTRUCTION_MACHINE.kind, title=app.site_address, acting_user=None, year=2026)
            p = ConstructionProject.objects.create(case=case, permit=app, frequency="7day",
                                                   started_on=date(2026, 4, 13))
            Inspection.objects.create(project=p, kind="erosion_routine", inspected_at=inspected, location="site",
                                      inspector_name="Ivy", inspector_credentials="CPESC", weather="dry",
                                      precipitation_24h_in=Decimal("0"), evaluation="compliant")
            out.append(p)
        return out
    return _make


@pytest.fixture
def make_sites(db, personas, settings, tmp_path):
    """make_sites(n, start=0, recorded_on=…, owner_user=owner, bmps=2) → n stewardship sites whose final O&M plan was
    recorded with proof on ``recorded_on`` (the first certification is due on its anniversary, § 380-14 C(2)(l)),
    each with ``bmps`` BMPs."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from stormwater.stewardship import services as sv
    from stormwater.stewardship.contents import OM_ITEMS
    from stormwater.stewardship.models import Bmp

    settings.MEDIA_ROOT = tmp_path / "media"
    pdf = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
    items = {i.key: f"§{n + 1}" for n, i in enumerate(OM_ITEMS)}

    def _make(n, start=0, recorded_on=date(2025, 5, 15), owner_user=None, bmps=2):
        out = []
        for i in range(start, start + n):
            s = sv.site_open(name=f"Basin {i:04d}", address=f"{i} Elm St", owner_user=owner_user or personas["owner"],
                             acting_user=personas["staff"])
            plan = sv.om_plan_submit(site=s, items=items, final=True, acting_user=personas["staff"],
                                     upload=SimpleUploadedFile("om.pdf", pdf, content_type="application/pdf"))
            sv.om_plan_record(plan=plan, recorded_on=recorded_on, book="25000", page=str(i), acting_user=personas["staff"],
                              proof_upload=SimpleUploadedFile("rec.pdf", pdf, content_type="application/pdf"))
            Bmp.objects.bulk_create([Bmp(site=s, name=f"BMP {i}-{k}", source_type="Bioretention",
                                         region1_category="Bioretention", subwatershed=f"SW{k % 2}",
                                         added_on=recorded_on) for k in range(bmps)])
            out.append(s)
        return out
    return _make
