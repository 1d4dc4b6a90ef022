"""The staff lists that are not cases or money (users, jobs, outbox, API tokens, fund lines, reviews, meetings,
GIS surveys and imports) and the parcels list: each searches, sorts, pages, exports what it shows, and reads the
same number of queries at 10 and at 200 records."""
from __future__ import annotations

import csv
import io
from datetime import date, datetime, timedelta
from decimal import Decimal as D
from zoneinfo import ZoneInfo

import pytest

EASTERN = ZoneInfo("America/New_York")


def csv_rows(resp):
    assert resp.status_code == 200, resp.status_code
    return list(csv.reader(io.StringIO(b"".join(resp.streaming_content).decode())))


# --- factories: n records of each list (made directly where the list only reads them) ----------------------------

def make_users(personas, n, start):
    from stormwater.accounts.models import User

    for i in range(start, start + n):
        User.objects.create_user(username=f"inspector{i:04d}", password="x", role="inspector", email=f"i{i}@t.example")


def make_jobs(personas, n, start):
    from stormwater.jobs.models import Job

    Job.objects.bulk_create([Job(kind="export", title=f"Export {i:04d}", started_by=personas["director"], done=i,
                                 total=500, state="succeeded") for i in range(start, start + n)])


def make_notices(personas, n, start):
    from stormwater.notices.models import NoticeSent

    NoticeSent.objects.bulk_create([NoticeSent(kind="bill", key=f"k{i}", to=f"o{i}@t.example", subject=f"Bill {i:04d}",
                                               status="unknown" if i % 2 else "failed", message_id=f"<m{i}@t>")
                                    for i in range(start, start + n)])


def make_tokens(personas, n, start):
    from stormwater.api.tokens import api_token_issue

    for i in range(start, start + n):
        api_token_issue(name=f"system {i:04d}", role="collector", acting_user=personas["director"])


def make_lines(personas, n, start):
    from stormwater.fund.models import BudgetLine, FiscalYearBudget, OtherRevenue

    b = FiscalYearBudget.objects.get_or_create(fiscal_year=2027)[0]
    BudgetLine.objects.bulk_create([BudgetLine(budget=b, category="direct", allowed_use="B", description=f"Line {i:04d}",
                                               amount=D("100.00") + i) for i in range(start, start + n)])
    OtherRevenue.objects.bulk_create([OtherRevenue(budget=b, kind="grant", source=f"Grant {i:04d}", amount=D("50.00"),
                                                   dated=date(2026, 8, 1)) for i in range(start, start + n)])


def make_reviews(personas, n, start):
    from stormwater.review.models import Review

    Review.objects.bulk_create([Review(title=f"Plan {i:04d}", input_format="json", input_text="{}", input_sha256="x",
                                       results={}, overall="pass" if i % 3 else "fail", engine_version="t",
                                       created_by=personas["staff"]) for i in range(start, start + n)])


def make_meetings(personas, n, start):
    from stormwater.workbench.models import PreApplicationMeeting

    PreApplicationMeeting.objects.bulk_create([PreApplicationMeeting(
        applicant_name=f"Applicant {i:04d}", site_address=f"{i} Oak St",
        scheduled_at=datetime(2026, 5, 1, 10, tzinfo=EASTERN) + timedelta(days=i)) for i in range(start, start + n)])


def make_gis(personas, n, start):
    from stormwater.gis.models import GisImport
    from stormwater.parcels.models import ImperviousSurvey

    ImperviousSurvey.objects.bulk_create([ImperviousSurvey(name=f"Survey {i:04d}", surveyed_on=date(2020, 1, 1)
                                                           + timedelta(days=i)) for i in range(start, start + n)])
    GisImport.objects.bulk_create([GisImport(kind="layers", files=[f"f{i}.gpkg"], created_by=personas["staff"])
                                   for i in range(start, start + n)])


def make_parcels_for(personas, n, start):
    from stormwater.parcels.models import Owner, Parcel

    o = Owner.objects.get_or_create(name="Big Owner", defaults={"mailing_address": "x"})[0]
    Parcel.objects.bulk_create([Parcel(parcel_id=f"Z-{i:04d}", address=f"{i} Pine St", owner=o, land_use_code="101",
                                       dwelling_units=1) for i in range(start, start + n)])


LISTS = [
    # (url, who, factory, search that finds record 7, a sortable column, the export's first column of record 7)
    ("/users/?role=inspector", "director", make_users, "inspector0007", "-username", "inspector0007"),
    ("/jobs/", "director", make_jobs, "Export 0007", "title", "Export 0007"),
    ("/notices/?status=all", "director", make_notices, "Bill 0007", "-queued_at", "Bill 0007"),
    ("/api-tokens/", "director", make_tokens, "system 0007", "name", "system 0007"),
    ("/fund/2027/", "director", make_lines, "Line 0007", "-amount", "direct"),
    ("/reviews/", "staff", make_reviews, "Plan 0007", "title", "7"),
    ("/pre-application/", "staff", make_meetings, "Applicant 0007", "-scheduled_at", "2026-05-08 10:00:00"),
    ("/gis/", "staff", make_gis, "Survey 0007", "-surveyed_on", "Survey 0007"),
    ("/parcels/", "staff", make_parcels_for, "Z-0007", "-address", "Z-0007"),
]


def _with(url, **params):
    from urllib.parse import urlencode

    return url + ("&" if "?" in url else "?") + urlencode(params)


@pytest.mark.parametrize("url,who,make,needle,sort,first", LISTS, ids=[x[0] for x in LISTS])
def test_each_list_searches_sorts_pages_and_exports_what_it_shows(client_for, personas, url, who, make, needle, sort,
                                                                   first, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    make(personas, 60, 0)
    c = client_for(personas[who])
    prefix = "lines-" if url.startswith("/fund/") else ""
    page1 = c.get(_with(url, **{f"{prefix}per_page": 25})).content.decode()
    assert "Page 1 of" in page1 and 'rel="next"' in page1
    found = c.get(_with(url, **{f"{prefix}q": needle})).content.decode()
    assert needle in found and "match" in found
    rows = csv_rows(c.get(_with(url, **{f"{prefix}q": needle, f"{prefix}export": "csv"})))
    assert len(rows) == 2 and needle in rows[1]
    every = csv_rows(c.get(_with(url, **{f"{prefix}sort": sort, f"{prefix}per_page": 25, f"{prefix}export": "csv"})))
    assert len(every) - 1 >= 60  # every matching row, not the page of 25
    xlsx = c.get(_with(url, **{f"{prefix}sort": sort, f"{prefix}export": "xlsx"}))
    assert xlsx.status_code == 200 and xlsx["Content-Type"].startswith("application/vnd.openxmlformats")
    sorted_page = c.get(_with(url, **{f"{prefix}sort": sort})).content.decode()
    assert 'aria-sort="' in sorted_page


@pytest.mark.parametrize("url,who,make", [x[:3] for x in LISTS], ids=[x[0] for x in LISTS])
def test_each_list_reads_the_same_queries_at_10_and_200(client_for, personas, same_queries, url, who, make, settings,
                                                        tmp_path):
    settings.MEDIA_ROOT = tmp_path
    make(personas, 10, 0)
    same_queries(client_for(personas[who]), [url, _with(url, per_page=200)], lambda: make(personas, 190, 10))


def test_the_fund_page_s_two_lists_keep_each_other_s_query(client_for, personas):
    make_lines(personas, 30, 0)
    c = client_for(personas["director"])
    html = c.get("/fund/2027/?lines-q=Line+0007&other-sort=-source").content.decode()
    assert "1 budget line matches the filters" in html and "30 other revenue items" in html
    assert 'value="-source"' in html  # the other list's sort is kept by the first list's form
    rows = csv_rows(c.get("/fund/2027/?lines-q=Line+0007&other-sort=-source&other-export=csv"))
    assert len(rows) == 31 and rows[1][2] == "Grant 0029"
