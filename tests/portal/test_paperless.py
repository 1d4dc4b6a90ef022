"""Issue 17 "Paperless bills: an owner can choose e-mail only": the owner chooses on the portal, the office can
record it on the account page; the bill print file (bulk PDFs for mailing) leaves those bills out, the e-mail job
sends them, and the bill run page says how many there are."""
import subprocess

import pytest
from django.core import mail
from django.db.models import Q

from stormwater.audit.models import AuditEvent
from stormwater.parcels.models import Owner
from stormwater.parcels.services import owner_paperless_set
from stormwater.receivables.mailing import paperless_count
from stormwater.utility.models import Account, Bill, BillRun


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def olivia():
    return Owner.objects.get(name="Olivia Owner")


def olivias_bills(run):
    """Her house and her condominium unit A (the unit's owner is billed for a unit)."""
    accounts = Account.objects.filter(Q(unit__isnull=True, parcel__owner=olivia()) | Q(unit__owner=olivia()))
    return set(Bill.objects.filter(run=run, account__in=accounts).values_list("number", flat=True))


def test_an_owner_chooses_bills_by_email_only_on_the_portal(billed, personas, client_for):
    c = client_for(personas["owner"])
    page = c.get("/portal/").content.decode()
    assert "How you get your bills" in page and "On paper, by mail" in page and 'action="/portal/bills-by-email/"' in page
    # e-mail only needs an address: refused without one, nothing changed
    r = c.post("/portal/bills-by-email/", {"paperless": "on", "email": ""}, follow=True)
    assert "need an e-mail address" in r.content.decode() and not olivia().paperless
    r = c.post("/portal/bills-by-email/", {"paperless": "on", "email": "not-an-address"}, follow=True)
    assert r.status_code == 200 and not olivia().paperless
    r = c.post("/portal/bills-by-email/", {"paperless": "on", "email": "olivia@example.org"}, follow=True)
    assert "e-mailed to you only" in r.content.decode() and "By e-mail only." in r.content.decode()
    o = olivia()
    assert o.paperless and o.email == "olivia@example.org"
    row = AuditEvent.objects.filter(action="owner.paperless").latest("id")
    assert row.actor == personas["owner"] and row.data["new"] == {"paperless": True, "email": "olivia@example.org"}
    # and back to paper
    c.post("/portal/bills-by-email/", {"email": "olivia@example.org"})
    assert not olivia().paperless
    # someone signed in without a property has nothing to choose
    staff = client_for(personas["inspector"])
    assert "How you get your bills" not in staff.get("/portal/").content.decode()
    staff.post("/portal/bills-by-email/", {"paperless": "on", "email": "x@example.org"})
    assert Owner.objects.filter(paperless=True).count() == 0


def test_the_office_sets_it_on_the_account_page_and_an_owner_may_not_there(billed, personas, client_for):
    house = Account.objects.get(parcel=billed["house"], unit=None)
    c = client_for(personas["collector"])
    page = c.get(f"/accounts/{house.number}/").content.decode()
    assert "How the bills go out" in page and f'action="/accounts/{house.number}/paperless/"' in page
    r = c.post(f"/accounts/{house.number}/paperless/", {"paperless": "on", "email": "olivia@example.org"}, follow=True)
    assert r.status_code == 200 and "by e-mail only" in r.content.decode() and olivia().paperless
    # the owner sees the choice on her statement, without the office's form
    owner = client_for(personas["owner"])
    page = owner.get(f"/accounts/{house.number}/").content.decode()
    assert "by e-mail only" in page and f'action="/accounts/{house.number}/paperless/"' not in page
    assert owner.post(f"/accounts/{house.number}/paperless/", {"email": ""}).status_code == 403
    assert olivia().paperless
    # an address cannot be taken away while the bills go by e-mail only
    with pytest.raises(ValueError, match="need an e-mail address"):
        owner_paperless_set(owner=olivia(), paperless=True, email="", acting_user=personas["collector"])


def test_the_print_file_leaves_paperless_bills_out_and_the_email_job_sends_them(billed, personas, client_for,
                                                                               run_worker, settings):
    from stormwater.jobs.services import job_start

    run = BillRun.objects.get()
    mine = olivias_bills(run)
    assert mine and paperless_count(run) == 0
    owner_paperless_set(owner=olivia(), paperless=True, email="olivia@example.org", acting_user=personas["owner"])
    assert paperless_count(run) == len(mine)
    page = client_for(personas["collector"]).get(f"/bill-runs/{run.pk}/").content.decode()
    assert f'data-paperless="{len(mine)}"' in page and "by e-mail only" in page

    printed = job_start(kind="bills_pdf", params={"run": run.pk}, acting_user=None)
    emailed = job_start(kind="bills_email", params={"run": run.pk}, acting_user=None)
    run_worker()
    printed.refresh_from_db()
    emailed.refresh_from_db()
    everyone = set(Bill.objects.filter(run=run).values_list("number", flat=True))
    assert printed.state == "succeeded" and printed.result["paperless"] == len(mine)
    assert printed.result["bills"] == len(everyone) - len(mine)
    text = subprocess.run(["pdftotext", "-layout", str(settings.MEDIA_ROOT / printed.file), "-"],
                          capture_output=True, check=True).stdout.decode()
    assert all(n not in text for n in mine) and all(n in text for n in everyone - mine)
    # the e-mail job sends her bills (she is the only owner with an address)
    assert emailed.state == "succeeded" and emailed.result["sent"] == len(mine)
    assert {m.to[0] for m in mail.outbox} == {"olivia@example.org"}
    # without an address a bill is printed whatever the choice says
    Owner.objects.filter(pk=olivia().pk).update(email="")
    assert paperless_count(run) == 0
