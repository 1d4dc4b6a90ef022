"""Shared fixtures: personas for every role (healthchecks-style), a small town, a resolution."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

import os
from pathlib import Path

import pytest

from stormwater.rules.fees import TABLE_1_BLOCKS

from buildonce import built_once  # noqa: F401 (tests/buildonce.py: also tests/ops/conftest.py)

# What the PostgreSQL run of bin/test repeats (issue 24): the tests whose outcome can differ between the two
# databases, i.e. every test that touches the database (pytest-django's database fixtures or marker, or a
# `database` mark for tests whose child processes use the run's DATABASE_URL). Pure tests (rules, engineering,
# the toolkit's parsers) run once, in the SQLite run. Browser tests run once too, in the SQLite run: what they
# add to the page tests is the browser (layout at 390 px, axe, scripts, the offline outbox); every page's server
# side also runs on PostgreSQL through the Django-client tests and crawls (tests/test_look_formats.py,
# tests/test_refused_crawl.py, tests/test_access.py, each app's view tests).
_DATABASE_FIXTURES = {"db", "transactional_db", "django_db_reset_sequences", "django_db_serialized_rollback",
                      "live_server"}


def _on_postgres() -> bool:
    return os.environ.get("DATABASE_URL", "").startswith("postgres")


def _uses_the_test_database(item) -> bool:
    return bool(item.get_closest_marker("django_db") or _DATABASE_FIXTURES & set(getattr(item, "fixturenames", ())))


def touches_database(item) -> bool:
    return bool(_uses_the_test_database(item) or item.get_closest_marker("database")
                or item.get_closest_marker("postgres_only"))


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    if _on_postgres() and os.environ.get("POSTGRES_RUN_ALL") != "1":
        keep, once = [], []
        for item in items:
            (keep if touches_database(item) and not item.get_closest_marker("browser") else once).append(item)
        if once:
            config.hook.pytest_deselected(items=once)
            items[:] = keep
    # The long tests that work in child processes of their own (a wheel in a virtualenv, killed workers, backups)
    # go first, so that the parallel workers do not end with one of them alone at the tail of the run (issue 24).
    # They leave the test database alone, so pytest-django's order of the others is kept.
    first = [i for i in items if i.get_closest_marker("slow") and not _uses_the_test_database(i)]
    if first:
        chosen = set(map(id, first))
        items[:] = first + [i for i in items if id(i) not in chosen]


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


DB_FIXTURES = {"db", "transactional_db", "django_db_reset_sequences", "django_db_serialized_rollback", "live_server"}


def _migrations_data() -> None:
    """The rows the migrations write (the permits' notice recipients, demo fee schedule and standard conditions), written again when
    gone: a transactional test (live server, schemathesis) empties every table when it ends, and with the workers
    taking each other's tests (--dist worksteal) an ordinary test may run after one on the same database — it then
    found no fee schedule (the permit page said the fee without its amount; failed on PostgreSQL). Idempotent;
    written before the next database test after a transactional one (``_fresh_cache``)."""
    from importlib import import_module

    from django.apps import apps

    import_module("stormwater.permits.migrations.0002_append_only_and_defaults").forwards(apps, None)
    import_module("stormwater.permits.migrations.0004_standard_conditions").forwards(apps, None)


@pytest.fixture(autouse=True)
def _fresh_cache(request):
    """Login throttles count in the cache (per client address too): no test inherits another's failures. The cache
    is the database cache (settings.CACHES, issue 27), in the test database: cleared around each test that uses the
    database (a test in a transaction would roll its counts back anyway; a transactional one would keep them)."""
    if not (request.node.get_closest_marker("django_db") or DB_FIXTURES & set(request.fixturenames)):
        yield
        return
    from django.core.cache import cache

    request.getfixturevalue("django_db_setup")
    blocker = request.getfixturevalue("django_db_blocker")
    with blocker.unblock():
        cache.clear()
        if _FLUSHED[0]:  # only after a transactional test emptied the tables (not on every test's hot path)
            _migrations_data()
            _FLUSHED[0] = False
    yield
    with blocker.unblock():
        cache.clear()
    if _transactional(request):
        _FLUSHED[0] = True


_FLUSHED = [False]  # a transactional test ended on this worker since the migrations' rows were last written


def _transactional(request) -> bool:
    """Does this test end by flushing every table (pytest-django's transactional tests and live servers)?"""
    marker = request.node.get_closest_marker("django_db")
    return bool({"transactional_db", "live_server", "django_db_reset_sequences"} & set(request.fixturenames)
                or (marker and (marker.kwargs.get("transaction") or (marker.args and marker.args[0]))))


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory):
    """copy_to(data_folder): an empty SQLite installation's database, migrated once per test run by `stormwater
    migrate` in a child process (as an administrator runs it: no DATABASE_URL, none of the test run's settings) and
    copied into ``data_folder`` (made if missing) — for the tests whose child processes need a migrated database
    but do not test migrating (killed workers, benchmarks, the demo town). A migrate is ~30 s of CPU; a copy, none.
    The copy is the database file alone: each installation makes its own dev-secret-key and static folder."""
    import shutil
    import subprocess
    import sys

    src = Path(__file__).resolve().parents[1] / "src"

    def build(root):
        env = {k: v for k, v in os.environ.items() if k not in _CHILD_SCRUBBED and not k.startswith("PYTEST")}
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(src), env.get("PYTHONPATH")]))
        env["STORMWATER_DATA_DIR"] = str(root / "data")
        p = subprocess.run([sys.executable, "-m", "stormwater", "migrate", "--no-input", "-v0"], cwd=root, env=env,
                           capture_output=True, text=True, timeout=900)
        assert p.returncode == 0, p.stdout + p.stderr

    db = built_once(tmp_path_factory, "migrated-sqlite", build) / "data" / "stormwater.sqlite3"

    def copy_to(data: Path) -> Path:
        data.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(db, data / "stormwater.sqlite3")
        return data
    copy_to.database = db  # to read only
    return copy_to


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix, request):
    """pytest-django's hook just before it creates the test databases: on SQLite (in memory) each worker's test
    database is the run's migrated database (``migrated_sqlite``, the same `stormwater migrate`: schema, the
    migrations' rows, the append-only triggers) loaded with SQLite's backup API, instead of every worker migrating
    again (~30 s of CPU each, in the SQLite run of bin/test). PostgreSQL migrates as before."""
    from django.db import connections

    conn = connections["default"]
    if conn.vendor != "sqlite" or not conn.creation.is_in_memory_db(conn.creation._get_test_db_name()):
        yield
        return
    creation = conn.creation
    creation.create_test_db = _create_test_db_from(creation, request.getfixturevalue("migrated_sqlite").database)
    yield
    del creation.create_test_db


def _create_test_db_from(creation, template: Path):
    """Django's ``create_test_db`` (django/db/backends/base/creation.py) with the migrate replaced by a copy of
    ``template``, a database the same migrations made."""
    def create_test_db(verbosity=1, autoclobber=False, serialize=True, keepdb=False):
        import sqlite3

        from django.conf import settings
        from django.core.management import call_command

        conn = creation.connection
        name = creation._get_test_db_name()
        creation._create_test_db(verbosity, autoclobber, keepdb)
        conn.close()
        settings.DATABASES[conn.alias]["NAME"] = name
        conn.settings_dict["NAME"] = name
        conn.ensure_connection()
        source = sqlite3.connect(template)
        try:
            source.backup(conn.connection)
        finally:
            source.close()
        if serialize:
            conn._test_serialized_contents = creation.serialize_db_to_string()
        call_command("createcachetable", database=conn.alias)
        return name
    return create_test_db


# What a child process run as an administrator would not have: the test run's database, key and Django settings.
_CHILD_SCRUBBED = {"DATABASE_URL", "SECRET_KEY", "STORMWATER_ENV", "DEBUG", "ALLOWED_HOSTS", "DJANGO_SETTINGS_MODULE",
                   "STORMWATER_DATA_DIR", "SECURE_PROXY_SSL_HEADER_ON", "SECURE_SSL_REDIRECT",
                   "DJANGO_ALLOW_ASYNC_UNSAFE", "MIGRATE_DATABASE_URL"}


@pytest.fixture
def town_toml(settings, tmp_path):
    """town_toml(**settings) → the data folder's town.toml holds these [town] settings for this test (read
    through stormwater.townconfig.town_config like an installation's), e.g. town_toml(totp_required_roles=[])."""
    import tomllib

    from stormwater import townconfig

    def _write(**values):
        def lit(v):
            if isinstance(v, (list, tuple)):
                return "[" + ", ".join(lit(x) for x in v) + "]"
            return str(v).lower() if isinstance(v, bool) else repr(v) if isinstance(v, str) else str(v)
        text = "[town]\n" + "".join(f"{k} = {lit(v)}\n" for k, v in values.items())
        tomllib.loads(text)
        settings.DATA_DIR = tmp_path
        (tmp_path / "town.toml").write_text(text, encoding="utf-8")
        townconfig.town_config.cache_clear()
        return townconfig.town_config()
    yield _write
    townconfig.town_config.cache_clear()


@pytest.fixture
def personas(db):
    """One user per role, plus a second owner ("outsider") who must never see the first's records."""
    from stormwater.accounts.models import User
    from stormwater.accounts.roles import Role

    users = {r.value: User.objects.create_user(username=r.value, password="pw-" + r.value, role=r) for r in Role}
    users["outsider"] = User.objects.create_user(username="outsider", password="pw-outsider", role=Role.OWNER)
    return users


@pytest.fixture
def resolution(db):
    from stormwater.utility.services import resolution_adopt

    return resolution_adopt(
        label="Test resolution", adopted_on=date(2026, 6, 1), effective_from=date(2026, 7, 1),
        eru_sqft=Decimal("3400"), rate_per_eru=Decimal("53.16"), small_residential_rate=Decimal("53.16"),
        installments=2, interest_rate_percent=Decimal("12"), demand_charge=Decimal("25"),
        blocks=list(TABLE_1_BLOCKS), acting_user=None)


@pytest.fixture
def town(db, personas):
    """A handful of parcels of every class with one survey; owner persona owns the house."""
    from stormwater.parcels.models import (AssociationInstrument, AssociationUnit, ImperviousSurvey, InstrumentShare,
                                           Owner, Parcel, ParcelImpervious, PropertyAssociation)

    survey = ImperviousSurvey.objects.create(name="Survey 2026", surveyed_on=date(2026, 4, 1))
    mine = Owner.objects.create(name="Olivia Owner", mailing_address="1 Elm St\nLongmeadow, MA 01106",
                                user=personas["owner"])
    other = Owner.objects.create(name="Oscar Other", mailing_address="2 Oak St\nLongmeadow, MA 01106",
                                 user=personas["outsider"])
    biz = Owner.objects.create(name="Shops LLC", mailing_address="PO Box 1\nSpringfield, MA 01101")

    def mk(pid, use, units, imp, lot=500000, owner=biz, **kw):
        p = Parcel.objects.create(parcel_id=pid, address=f"{pid} Test St", owner=owner, land_use_code=use,
                                  dwelling_units=units, lot_sqft=Decimal(lot), **kw)
        if imp is not None:
            ParcelImpervious.objects.create(survey=survey, parcel=p, impervious_sqft=Decimal(imp))
        return p

    t = {
        "house": mk("01-01-1", "101", 1, 3000, owner=mine),
        "house2": mk("01-01-2", "104", 2, 4100, owner=other),
        "shops": mk("02-01-1", "325", None, 200000),  # 58.82 → 59 ERUs
        "apartments": mk("02-01-2", "112", 24, 38500),  # 11.32 → 11 ERUs
        "road": mk("09-01-1", "903", None, 120000, public_way=True),
        "garage": mk("09-01-2", "903", None, 52000, public_way=True, road_maintenance=True),
        "no_owner": mk("03-01-1", "101", 1, 3000, owner=None),
        "no_units": mk("03-01-2", "101", None, 3000),
        "no_area": mk("03-01-3", "340", None, None),
        "condo": mk("04-01-1", "102", 12, 10200),  # large residential, 3 ERUs
    }
    # Units on file by label (no unit parcels), as before instruments had a history (parcels migration 0003).
    assoc = PropertyAssociation.objects.create(parcel=t["condo"], name="Test Condominium")
    deed = AssociationInstrument.objects.create(association=assoc, reference="Book 1 Page 2",
                                                recorded_on=date(2010, 1, 4), effective_on=date(2010, 1, 4))
    for unit, pct, owner in (("A", "33.3333", mine), ("B", "33.3333", biz), ("C", "33.3334", biz)):
        u = AssociationUnit.objects.create(association=assoc, unit=unit, owner=owner)
        InstrumentShare.objects.create(instrument=deed, unit=u, percent=Decimal(pct))
    t["survey"] = survey
    return t


@pytest.fixture
def at():
    """at(day[, hour[, minute]]) freezes 'now' in America/New_York (noon by default) until the test ends
    or the next at(); the live server of browser tests runs in this process and sees it too."""
    from datetime import datetime
    from zoneinfo import ZoneInfo

    import time_machine

    travellers = []

    def _at(day: date, hour: int = 12, minute: int = 0):
        for t in travellers:
            t.stop()
        travellers.clear()
        t = time_machine.travel(datetime(day.year, day.month, day.day, hour, minute,
                                         tzinfo=ZoneInfo("America/New_York")), tick=False)
        t.start()
        travellers.append(t)
    yield _at
    for t in travellers:
        t.stop()


@pytest.fixture
def client_for(client):
    """client_for(user) → a test client signed in as ``user``."""
    def _login(user):
        client.force_login(user)
        return client
    return _login


def _race(*fns, timeout: float = 60):
    """Run ``fns`` in threads released together at a barrier (each with its own database connection,
    closed after). → (results, errors): what the calls returned and what they raised."""
    import threading

    from django.db import connections

    barrier = threading.Barrier(len(fns))
    results, errors = [], []

    def worker(fn):
        try:
            barrier.wait(timeout=10)
            results.append(fn())
        except Exception as e:  # noqa: BLE001 - reported to the test
            errors.append(e)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=worker, args=(f,)) for f in fns]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=timeout)
    return results, errors


@pytest.fixture
def race():
    """``race(*fns)`` → (results, errors): the calls started at the same moment (PostgreSQL row-lock tests)."""
    return _race


@pytest.fixture
def run_worker(monkeypatch):
    """Run every queued background job in this process through the real command (``stormwater worker --batch``:
    recovery first, then the queue library's db_worker). db_worker calls close_old_connections() between tasks,
    which would close the connection inside the test's transaction on PostgreSQL; in a test it must not (as
    pytest-django disconnects it from the request signals)."""
    from django.core.management import call_command
    from django_tasks_db.management.commands import db_worker

    monkeypatch.setattr(db_worker, "close_old_connections", lambda: None)

    def _run():
        call_command("worker", batch=True, interval=0, verbosity=0)
    return _run


class LookTown:
    """The demo town for the page crawls of issue 16 (tests/pagecrawl.py): who signs in, where each crawl
    starts, and the pages a crawl is not expected to reach, with the reason."""

    ROLES = ["director", "staff", "collector", "assessor", "clerk", "inspector", "consultant", "owner"]
    # URL names of pages no link leads to on purpose (reached from an e-mail, a sign-in step, a form's answer).
    NOT_CRAWLED = {
        "login_two_factor": "the second sign-in step (after the password)",
        "login_two_factor_setup": "reached only while signing in, when a code is required and none is set up",
        "password_reset_confirm": "the link in the password-reset e-mail",
        "password_reset_complete": "the answer to the password-reset form",
        "password_reset_done": "the answer to the password-reset form",
        "account_recovery_codes": "shown once, after two-factor sign-in is set up",
        # POST acts whose URL a GET only sends back to the run's page (no link, a form's button).
        **{f"bill_run_{act}": "a POST act on a bill run (a form's button on the run page)"
           for act in ("prepare", "approve", "discard", "void", "mailed")},
        # Pages of records the demo town does not make (each has its own tests in its app): not reached here.
        "review_detail": "the demo town has no engineering review", "review_form_from": "from a review's page",
        "review_sheets": "from a review's page", "review_letter": "from a review's page",
        "review_applicant_figures": "from a review's page",
        "fee_pay_confirm": "offered on a draft application with every other item in and its fee due (the look town's "
                           "permits are filed and paid)",
        "bmp_table_detail": "the demo town loads no BMP performance table",
        "commitment_detail": "the demo town commits no demands to the Board of Assessors",
        "gis_import_detail": "the demo town's GIS layers are loaded without an import record",
        "job_detail": "the demo town runs no background job",
        "field_report": "linked from the inspector's day only when an inspection is due today (none in the demo)",
        "professional_signup_sent": "the answer to the applicants' sign-up form",
        # Paying online (issue 25): reached by the confirmation's POST (the hand-off) and the processor's redirect.
        "pay_test": "the TEST processor's page, reached by the hand-off (a POST's redirect) with its signed query",
        "pay_return": "the processor's signed return (a redirect from the payment page)",
    }

    def __init__(self, users):
        self.users = users

    def starts(self):
        yield None, ["/portal/", "/login/", "/password-reset/"]
        for role in self.ROLES:
            yield role, ["/"]

    def not_crawled(self) -> set[str]:
        return set(self.NOT_CRAWLED)

    def browser_pages_per_name(self, who) -> int:
        """The phone crawl (slow: a browser, axe) reads two pages of each kind as the roles that see the most and
        signed out, one as the others: every kind of page is still read as every role that reaches it."""
        return 2 if who in (None, "director", "staff", "owner") else 1


@pytest.fixture
def look_town(db, settings, tmp_path):
    """The demo town (60 parcels, the GIS stand-in, bills, payments, permits, relief, construction, stewardship)."""
    from stormwater.accounts.models import User
    from stormwater.demo import demo_load

    settings.MEDIA_ROOT = tmp_path / "media"
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    demo_load(parcels=60)
    users = {u.username: u for u in User.objects.all()}
    _look_town_office(users["collector"])
    _look_town_permit(users)
    return LookTown(users)


def _look_town_permit(users):
    """The demo owner's draft permit filed and approved with conditions and approved plan sheets, its design engineer
    linked: the permit page at its fullest (issue 16: it was 680 px wide on a 390 px phone)."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from stormwater.permits import services as sv
    from stormwater.permits.checklist import ITEMS
    from stormwater.permits.models import PermitApplication

    app = PermitApplication.objects.filter(owner__user=users["owner"]).order_by("pk").first()
    pdf = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
    for item in ITEMS:
        if app.checklist.get(key=item.key).done:
            continue
        if item.by_upload:
            sv.permit_document_upload(application=app, tag=item.key, acting_user=users["staff"],
                                      upload=SimpleUploadedFile(f"{item.key}.pdf", pdf, "application/pdf"))
        elif item.key == "fees":  # paid at the counter before filing (issue 30)
            sv.permit_fees_paid(application=app, paid_on=date.today(), receipt="DPW-1", acting_user=users["staff"])
        else:
            sv.checklist_confirm(application=app, key=item.key, acting_user=users["staff"], note="demo")
    sv.permit_file(application=app, acting_user=users["owner"])
    sv.permit_determine_complete(application=app, acting_user=users["staff"])
    from permits.conftest import review_every_item  # the reviewer's checklists (issue 30's one gate)

    review_every_item(app, users["staff"])
    sv.permit_party_link(application=app, who=users["consultant"].username, role="design_engineer",
                         acting_user=users["staff"])
    sv.permit_decide(application=app, kind="approve_conditions", findings="Meets the standards of § 380-11.",
                     standards=["380-11B", "380-11D"], acting_user=users["director"],
                     conditions=["Install the silt fence and the construction entrance before any clearing, "
                                 "grubbing or earth disturbance, and keep them until final stabilization.",
                                 "Inspect erosion controls every 14 days and within 24 hours of 0.5 in. of rain."],
                     sheets=["C-1; Existing conditions and demolition plan (StormwaterManagementSiteImprovements); A",
                             "C-2; Grading, drainage and utilities; B", "C-3; Erosion and sediment control details"])


def _look_town_office(collector):
    """The Collector's office records the demo town does not make, so the crawls read those pages too: a check taken
    at the window for more than was owed (a receipt in an open batch and a credit balance to refund) and a
    municipal lien certificate requested."""
    from decimal import Decimal

    from django.utils import timezone

    from stormwater.cashier.liens import lien_certificate_request
    from stormwater.cashier.services import receipt_post
    from stormwater.receivables.ledger import account_position
    from stormwater.utility.models import Account

    for acct in Account.objects.filter(unit=None).select_related("parcel").order_by("number"):
        owed = account_position(acct, as_of=timezone.localdate()).total
        if owed > 0:
            receipt_post(account=acct, amount=owed + Decimal("10.00"), tender="check", reference="5150",
                         payer="Demo Payer", acting_user=collector)
            lien_certificate_request(parcel=acct.parcel, requester_name="Pat Buyer", requester_role="closing attorney",
                                     acting_user=collector)
            # a lockbox file: one row posts, one matches no account and waits in suspense (issue 25), so the
            # crawls read the file's page and the suspense list too
            from stormwater.receivables.lockbox import payment_batch_post

            day = timezone.localdate().isoformat()
            payment_batch_post(filename="lockbox.csv", acting_user=collector,
                               content=(f"account,amount,received_on,reference\n{acct.number},1.00,{day},LB-1\n"
                                        f"NO-SUCH-1,5.00,{day},LB-2\n").encode())
            return
    raise AssertionError("the demo town owes nothing: no receipt for the crawl")
@pytest.fixture
def add_parcels(town):
    """add_parcels(n, prefix=…, owner=…, **fields) → n more parcels (houses with 3,000 ft² of impervious
    area in the town's survey, each with its own owner unless one is given): the "200 records" of the
    query-count tests."""
    from stormwater.parcels.models import Owner, Parcel, ParcelImpervious

    def _add(n: int, *, prefix: str = "M", owner=None, imp=Decimal(3000), **fields):
        start = Parcel.objects.filter(parcel_id__startswith=f"{prefix}-").count()
        owners = [owner] * n if owner is not None else Owner.objects.bulk_create(
            Owner(name=f"{prefix} Owner {start + i}", mailing_address=f"{start + i} Main St\nLongmeadow, MA 01106")
            for i in range(n))
        kw = {"land_use_code": "101", "dwelling_units": 1, "lot_sqft": Decimal(10000), **fields}
        parcels = Parcel.objects.bulk_create(
            Parcel(parcel_id=f"{prefix}-{start + i:05d}", address=f"{start + i} Main St", owner=owners[i], **kw)
            for i in range(n))
        if imp is not None:
            ParcelImpervious.objects.bulk_create(
                ParcelImpervious(survey=town["survey"], parcel=p, impervious_sqft=imp) for p in parcels)
        return parcels
    return _add
