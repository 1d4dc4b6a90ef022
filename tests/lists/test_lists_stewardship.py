"""Stewardship sites and a site's BMPs on the one list mechanism: the next certification as a filter and a sort,
the owner's own sites, BMP filters and export (no longer cut at 200), constant queries."""
from __future__ import annotations

import csv
import io
from datetime import date


def csv_rows(resp):
    assert resp.status_code == 200
    return list(csv.reader(io.StringIO(b"".join(resp.streaming_content).decode())))


def test_sites_by_next_certification(client_for, personas, make_sites, at):
    at(date(2026, 6, 1))
    late, = make_sites(1, recorded_on=date(2025, 5, 15))   # year 1 due Fri May 15, 2026: overdue on Jun 1
    soon, = make_sites(1, start=1, recorded_on=date(2025, 6, 20))  # due Jun 22, 2026 (Jun 20 is a Saturday)
    theirs, = make_sites(1, start=2, recorded_on=date(2025, 9, 1), owner_user=personas["outsider"])
    staff = client_for(personas["staff"])
    assert [r[0] for r in csv_rows(staff.get("/stewardship/?certification=overdue&export=csv"))[1:]] == [
        late.case.number]
    rows = csv_rows(staff.get("/stewardship/?sort=cert_due&export=csv"))
    assert [r[0] for r in rows[1:]] == [late.case.number, soon.case.number, theirs.case.number]
    assert rows[2][-1] == "2026-06-22"
    mine = {r[0] for r in csv_rows(client_for(personas["owner"]).get("/stewardship/?export=csv"))[1:]}
    assert mine == {late.case.number, soon.case.number}


def test_a_sites_bmps_are_all_listed_filtered_and_exported(client_for, personas, make_sites, at):
    at(date(2026, 6, 1))
    site, = make_sites(1, bmps=230)
    c = client_for(personas["staff"])
    html = c.get(f"/stewardship/{site.case.number}/").content.decode()
    assert "230 BMPs" in html and "Page 1 of 5" in html
    rows = csv_rows(c.get(f"/stewardship/{site.case.number}/?subwatershed=SW1&export=csv"))
    assert len(rows) - 1 == 115 and {r[3] for r in rows[1:]} == {"SW1"}


def test_stewardship_pages_read_the_same_queries_at_10_and_200(client_for, personas, make_sites, same_queries, at):
    at(date(2026, 6, 1))
    site, *_ = make_sites(10)
    c = client_for(personas["staff"])
    same_queries(c, ["/stewardship/?per_page=200", "/stewardship/?certification=overdue&sort=-cert_due"],
                 lambda: make_sites(190, start=10, bmps=1))
    from stormwater.stewardship.models import Bmp
    same_queries(c, [f"/stewardship/{site.case.number}/?per_page=200"],
                 lambda: Bmp.objects.bulk_create([Bmp(site=site, name=f"x{k}", source_type="Swale", added_on=date(2026, 1, 1))
                                                  for k in range(190)]))
